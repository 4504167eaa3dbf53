package graph

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
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

// A file read and parsed in pieces gives the same graph for any thread
// count (pieces of the text, of the file and of the parse).
func TestReadFileSameForAnyThreadCount(t *testing.T) {
	old, oldChunk := parallelReadMin, readChunk
	t.Cleanup(func() { parallelReadMin, readChunk = old, oldChunk })
	parallelReadMin, readChunk = 1, 97
	parallelParsing(t, 61)
	rng := rand.New(rand.NewPCG(9, 10))
	path := filepath.Join(t.TempDir(), "g.graph")
	for trial := 0; trial < 10; trial++ {
		n := 50 + rng.IntN(500)
		text, want := randomMETIS(rng, n, rng.IntN(6*n), trial%2 == 0)
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2, 3, 5} {
			prev := runtime.GOMAXPROCS(threads)
			g, err := ReadFile(path)
			runtime.GOMAXPROCS(prev)
			if err != nil || !equalGraphs(g, want) {
				t.Fatalf("trial %d, %d threads: %v, or a different graph", trial, threads, err)
			}
		}
	}
}
