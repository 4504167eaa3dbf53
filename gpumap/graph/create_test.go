package graph

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateIsWriteOnly: an output file is created or truncated, and
// opened for writing only. Opened for reading too, a pipe's name gave the
// writer a reader of its own pipe, and writes blocked forever once the
// real reader had gone (the whole scenario: cmd/gpumap's
// TestOutputToAClosedPipeFails).
func TestCreateIsWriteOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(path, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Read(make([]byte, 1)); err == nil || err == io.EOF {
		t.Fatalf("reading an output file: %v, want an error (it must be write-only)", err)
	}
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		t.Fatalf("output file not truncated: %v, %v", st.Size(), err)
	}
}
