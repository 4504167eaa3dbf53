package graph

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// The parallel read of regular files gives the text, or the error, that the
// sequential read gives: plain, compressed, binary, beyond the limit, with
// a bad header.
func TestParallelReadMatchesSequential(t *testing.T) {
	old, oldChunk := parallelReadMin, readChunk
	t.Cleanup(func() { parallelReadMin, readChunk = old, oldChunk })
	readChunk = 3 // pieces of a few bytes
	dir := t.TempDir()
	plain := []byte("% a comment\n3 2\n2\n1 3\n2\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	nul := append(append([]byte(nil), plain...), 0, '\n')
	files := map[string][]byte{
		"plain":   plain,
		"gzip":    gz.Bytes(),
		"nul":     nul,
		"nulhead": append([]byte("3 2\x00"), plain...),
		"header":  []byte("3 x\n2\n1 3\n2\n"),
		"xz":      {0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 0xe6, 0xd6},
		"long":    append(bytes.Repeat([]byte("%\n"), 3<<10), plain...),
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int64{0, 10, int64(len(data))} {
			parallelReadMin = 1 << 62
			want, werr := ReadText(path, limit)
			for _, min := range []int64{1, 4, 5, int64(len(data))} {
				parallelReadMin = min
				got, gerr := ReadText(path, limit)
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || !bytes.Equal(got, want) {
					t.Errorf("%s, limit %d, parallel from %d bytes: %q, %v; sequential %q, %v", name, limit, min, got, gerr, want, werr)
				}
			}
		}
	}
}
