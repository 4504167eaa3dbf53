package graph

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// WriteBinary then ReadFile gives the graph back, and each kind of bad
// binary file gives an error that says what is wrong.
func TestBinaryRoundTripAndBadFiles(t *testing.T) {
	dir := t.TempDir()
	g := RandomGeometric(500, 3)
	var b bytes.Buffer
	if err := WriteBinary(&b, g); err != nil {
		t.Fatal(err)
	}
	// No .bgf ending: found by its content.
	path := filepath.Join(dir, "g.bin")
	os.WriteFile(path, b.Bytes(), 0o644)
	h, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.XAdj, h.XAdj) || !slices.Equal(g.Adj, h.Adj) || !slices.Equal(g.VW, h.VW) {
		t.Errorf("the graph read back differs")
	}
	if vw, ew := h.UnitWeights(); !vw || !ew {
		t.Errorf("the graph read back has weights")
	}
	words := func(w ...uint64) []byte {
		out := make([]byte, 8*len(w))
		for i, x := range w {
			binary.LittleEndian.PutUint64(out[8*i:], x)
		}
		return out
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"version.bgf", words(2, 3, 4, 56, 64, 80, 88, 1, 0, 2, 1), "binary graph version 2, but gpumap reads version 3"},
		{"short", words(3, 3, 4, 56, 64, 80, 88, 1, 0, 2), "the file has 80 bytes, but its header says 88"},
		{"header.bgf", words(3)[:7], "shorter than its 24-byte header"},
		{"range", words(3, 3, 4, 56, 64, 80, 88, 1, 0, 2, 7), "vertex 7 is out of range [0,3)"},
		{"order", words(3, 3, 4, 56, 64, 56, 88, 1, 0, 2, 1), "vertex 2: offset 56 is below vertex 1's"},
		{"asym", words(3, 4, 6, 64, 72, 80, 88, 112, 1, 0, 3, 0, 1, 2), "asymmetric edge: vertex 3 lists neighbour 0, but vertex 0 does not list 3"},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, c.data, 0o644)
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("%s: got %v, want an error naming the file with %q", c.name, err, c.want)
		}
	}
	// Weights are refused, not dropped.
	if err := WriteBinary(&b, Random(50, 200, 9, 1, 1)); err != ErrWeighted {
		t.Errorf("a weighted graph: got %v, want ErrWeighted", err)
	}
}
