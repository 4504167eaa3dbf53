package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gpumap map --backend gpu -a hm runs GPU-HM: a feasible mapping, the
// model's gpu: line, and the same mapping file twice (determinism).
// Needs a GPU or the emulator (make test sets GPUMAP_CUDA_LIB).
func TestGPUMapCommandMultisection(t *testing.T) {
	needGPU(t)
	dir := t.TempDir()
	g := filepath.Join(dir, "rgg.graph")
	if code, _, e := runCLI("gen", "-t", "rgg", "-n", "2500", "-s", "4711", "-o", g); code != 0 {
		t.Fatalf("gen: %d %s", code, e)
	}
	var maps [2][]byte
	for i := range maps {
		m := filepath.Join(dir, "hm.map")
		code, out, errs := runCLI("map", "-g", g, "-h", "2:4:2", "-d", "1:10:100", "-e", "0.03", "-a", "hm", "--backend", "gpu",
			"-t", []string{"1", "2"}[i], "-m", m)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		line := regexp.MustCompile(`(?m)^gpu: launches=\d+ syncs=\d+ h2d_bytes=\d+ d2h_bytes=\d+ est_h100_ms=[0-9.]+`)
		if !line.MatchString(errs) || !strings.Contains(out, "backend=cuda") || !strings.Contains(out, "feasible=true") {
			t.Errorf("no model on stderr, not on the GPU or infeasible:\n%s\n%s", out, errs)
		}
		var err error
		if maps[i], err = os.ReadFile(m); err != nil {
			t.Fatal(err)
		}
	}
	if string(maps[0]) != string(maps[1]) {
		t.Errorf("two runs (-t 1, -t 2) wrote different mappings")
	}
}
