package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gpumap convert writes the bytes of ParHIP's binary format, worked out
// by hand for the path 1-2-3, and refuses a weighted graph without
// leaving a file; gpumap map reads the binary file as the same graph.
func TestConvertBinary(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "path.graph", "% the path 1-2-3\n3 2\n2\n1 3\n2\n")
	out := filepath.Join(dir, "path.bgf")
	if code, _, e := runCLI("convert", "-g", path, "-o", out); code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, e)
	}
	// Version 3, n = 3, 2m = 4; the neighbours start after 3 + 4 words
	// (byte 56): vertex 0 has 1 neighbour, 1 has 2, 2 has 1.
	words := []uint64{3, 3, 4, 56, 64, 80, 88, 1, 0, 2, 1}
	want := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(want[8*i:], w)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Errorf("convert wrote\n%v\nwant\n%v", got, want)
	}
	for _, c := range []struct{ name, text string }{
		{"ew.graph", "2 1 1\n2 5\n1 5\n"},
		{"vw.graph", "2 1 10\n3 2\n1 1\n"},
	} {
		in := writeFile(t, dir, c.name, c.text)
		bad := filepath.Join(dir, c.name+".bgf")
		code, _, e := runCLI("convert", "-g", in, "-o", bad)
		if code != exitFailure || !strings.Contains(e, "has no weights") {
			t.Errorf("%s: exit %d, want %d and a message on weights: %s", c.name, code, exitFailure, e)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%s: a refused conversion left %s", c.name, bad)
		}
	}
	// A weighted graph whose weights are all 1 has the same binary file.
	ones := writeFile(t, dir, "ones.graph", "3 2 11\n1 2 1\n1 1 1 3 1\n1 2 1\n")
	out1 := filepath.Join(dir, "ones.bgf")
	if code, _, e := runCLI("convert", "-g", ones, "-o", out1); code != exitOK {
		t.Fatalf("convert weights of 1: exit %d: %s", code, e)
	}
	if got, _ := os.ReadFile(out1); !bytes.Equal(got, want) {
		t.Errorf("weights of 1: convert wrote another file")
	}
	// gpumap map reads the binary file too, as the same graph.
	grid := filepath.Join(dir, "grid.graph")
	if code, _, e := runCLI("gen", "-t", "grid", "-dims", "12x12", "-o", grid); code != 0 {
		t.Fatalf("gen: %d %s", code, e)
	}
	gridBin := filepath.Join(dir, "grid.bgf")
	if code, _, e := runCLI("convert", "-g", grid, "-o", gridBin); code != exitOK {
		t.Fatalf("convert grid: exit %d: %s", code, e)
	}
	var maps [2][]byte
	for i, in := range []string{grid, gridBin} {
		m := filepath.Join(dir, fmt.Sprintf("grid%d.map", i))
		if code, _, e := runCLI("map", "-q", "-g", in, "-h", "4:4", "-d", "1:10", "-t", "1", "-m", m); code != exitOK {
			t.Fatalf("map %s: exit %d: %s", in, code, e)
		}
		maps[i], _ = os.ReadFile(m)
	}
	if len(maps[0]) == 0 || !bytes.Equal(maps[0], maps[1]) {
		t.Errorf("gpumap map maps the binary file differently from its METIS text")
	}
	if code, _, _ := runCLI("convert", "-g", path); code != exitUsage {
		t.Errorf("convert without -o: exit %d, want %d", code, exitUsage)
	}
}
