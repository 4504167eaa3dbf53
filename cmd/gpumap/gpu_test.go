package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cuda"
)

// gpumap map --backend gpu on a graph generated here: the mapping file of
// --backend cpu -a im, byte for byte (the same input and seed give the same
// mapping on every backend), and the model with its "gpu:" line
// on stderr. Needs a GPU or the emulator (make test sets GPUMAP_CUDA_LIB).
func TestGPUMapCommand(t *testing.T) {
	needGPU(t)
	dir := t.TempDir()
	g := filepath.Join(dir, "rgg.graph")
	if code, _, e := runCLI("gen", "-t", "rgg", "-n", "70000", "-s", "31337", "-o", g); code != 0 {
		t.Fatalf("gen: %d %s", code, e)
	}
	js := map[string]int64{}
	for _, be := range []string{"gpu", "cpu"} {
		m := filepath.Join(dir, be+".map")
		code, out, errs := runCLI("map", "-g", g, "-h", "4:8:6", "-d", "1:10:100", "-e", "0.03", "-a", "im", "--backend", be, "-m", m)
		if code != exitOK {
			t.Fatalf("--backend %s: exit %d: %s", be, code, errs)
		}
		if be == "gpu" {
			line := regexp.MustCompile(`(?m)^gpu: launches=\d+ syncs=\d+ h2d_bytes=\d+ d2h_bytes=\d+ est_h100_ms=[0-9.]+ est_total_ms=[0-9.]+$`)
			if !line.MatchString(errs) || !strings.Contains(errs, "estimated H100 time") || !strings.Contains(out, "backend=cuda") {
				t.Errorf("--backend gpu: no model on stderr or not on the GPU:\n%s\n%s", out, errs)
			}
		}
		code, out, errs = runCLI("eval", "-g", g, "-h", "4:8:6", "-d", "1:10:100", "-e", "0.03", "-m", m)
		if code != exitOK || !strings.Contains(out, "feasible=true") {
			t.Fatalf("eval of the %s mapping: exit %d: %s %s", be, code, out, errs)
		}
		f := regexp.MustCompile(`J=(\d+)`).FindStringSubmatch(out)
		js[be], _ = strconv.ParseInt(f[1], 10, 64)
	}
	gm, _ := os.ReadFile(filepath.Join(dir, "gpu.map"))
	cm, _ := os.ReadFile(filepath.Join(dir, "cpu.map"))
	if js["gpu"] != js["cpu"] || !bytes.Equal(gm, cm) {
		t.Errorf("the GPU's mapping (J %d) differs from the CPU's (J %d)", js["gpu"], js["cpu"])
	}
}

// needGPU skips a test without a GPU, and fails it when GPUMAP_CUDA_LIB
// names a driver that does not open (make test's emulated pass).
func needGPU(t *testing.T) {
	t.Helper()
	b, err := cuda.Open()
	if err != nil {
		if lib := os.Getenv("GPUMAP_CUDA_LIB"); lib != "" {
			t.Fatalf("GPUMAP_CUDA_LIB=%s is set but no GPU opens: %v", lib, err)
		}
		t.Skipf("no GPU: %v", err)
	}
	b.Close()
}
