package tests

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// gpumap convert, then gpumap-mpi on the METIS file and on the binary
// one: at P = 1 (the same distribution) the two mappings are the same
// bytes; at P = 3 the binary one is feasible and printed as gpumap eval
// prints it. A truncated binary file stops every rank with one message
// and no mapping file.
func TestDistributedBinaryRoundTrip(t *testing.T) {
	need(t, "bin/gpumap", "bin/gpumap-mpi")
	dir := t.TempDir()
	g := graph.RandomGeometric(3000, 4)
	gf := filepath.Join(dir, "g.graph")
	if err := graph.WriteFile(gf, func(w io.Writer) error { return graph.WriteMETIS(w, g) }); err != nil {
		t.Fatal(err)
	}
	bf := filepath.Join(dir, "g.bgf")
	if out, err := run(t, time.Minute, nil, filepath.Join(root, "bin/gpumap"), "convert", "-g", gf, "-o", bf); err != nil {
		t.Fatalf("convert: %v\n%s", err, out)
	}
	args := []string{"-h", "4:4:2", "-d", "1:10:100", "-e", "0.03", "-s", "3", "-coarsest", "400"}
	maps := map[string]string{}
	for _, in := range []string{gf, bf} {
		mf := in + ".map"
		if out, err := mpiMap(t, 1, append(args, "-g", in, "-m", mf)...); err != nil {
			t.Fatalf("%s, P=1: %v\n%s", in, err, out)
		}
		b, _ := os.ReadFile(mf)
		maps[in] = string(b)
	}
	if maps[gf] != maps[bf] || maps[gf] == "" {
		t.Errorf("P=1: the binary file maps differently from its METIS text")
	}
	top, err := topology.Parse("4:4:2", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	mf := filepath.Join(dir, "p3.map")
	out, err := mpiMap(t, 3, append(args, "-g", bf, "-m", mf)...)
	if err != nil {
		t.Fatalf("P=3: %v\n%s", err, out)
	}
	if want := evalText(t, g, top, mf, 0.03); !strings.HasPrefix(out, want) {
		t.Errorf("P=3 printed\n%s\nbut gpumap eval gives\n%s", out, want)
	}
	data, _ := os.ReadFile(bf)
	cut := filepath.Join(dir, "cut.bgf")
	os.WriteFile(cut, data[:len(data)-8], 0o644)
	cm := filepath.Join(dir, "cut.map")
	out, err = mpiMap(t, 3, append(args, "-g", cut, "-m", cm)...)
	msg := "gpumap-mpi: " + cut + ": the file has " + strconv.Itoa(len(data)-8) + " bytes, shorter than the " +
		strconv.Itoa(len(data)) + " its header says"
	if err == nil || strings.Count(out, msg) != 1 {
		t.Errorf("truncated file on 3 ranks: want exit 1 and once %q, got %v:\n%s", msg, err, out)
	}
	if _, err := os.Stat(cm); err == nil {
		t.Errorf("a failed run left %s", cm)
	}
}
