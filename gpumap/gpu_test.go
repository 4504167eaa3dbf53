package gpumap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// These tests need the emulated CUDA driver (make test runs them with
// GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1); elsewhere they skip.

func needEmulator(t *testing.T) {
	t.Helper()
	if !driver.Emulated() {
		t.Skip("needs the emulated driver (make cudaemu; GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1)")
	}
}

func gpuMap(t *testing.T, g *graph.Graph) (*Result, string, error) {
	t.Helper()
	top, _ := topology.Parse("2:4:2", "1:10:100")
	var log bytes.Buffer
	res, err := Map(g, top, Options{Backend: GPU, Algorithm: Integrated, Eps: 0.03, Seed: 1, Progress: &log})
	if err == nil && !res.Metrics.Feasible {
		t.Errorf("infeasible mapping: %+v", res.Metrics)
	}
	return res, log.String(), err
}

// Defect: when the graph did not fit the device, the pipeline closed the
// GPU backend and Map closed it again (releasing the context twice).
func TestGPUTooLargeFallsBackToTheCPUOnce(t *testing.T) {
	needEmulator(t)
	devs, err := driver.Devices()
	if err != nil {
		t.Fatal(err)
	}
	driver.EmuSetMemory(1 << 20) // nothing fits
	defer driver.EmuSetMemory(devs[0].TotalMem)
	before, _ := driver.Emu()
	res, log, err := gpuMap(t, graph.Grid(100, 100))
	if err != nil {
		t.Fatal(err)
	}
	after, _ := driver.Emu()
	if !strings.HasPrefix(res.Backend, "cpu") || !strings.Contains(log, "does not fit") {
		t.Errorf("backend %q, log %q: want the CPU and the reason", res.Backend, log)
	}
	if r, l := after.CtxRetains-before.CtxRetains, after.CtxReleases-before.CtxReleases; r != l || after.Errors != before.Errors {
		t.Errorf("context retained %d, released %d times; %d failed driver calls", r, l, after.Errors-before.Errors)
	}
}

// Defect: an allocation that failed in the middle of a mapping aborted it
// instead of running the mapping on the CPU.
func TestGPUOutOfMemoryMidRunFallsBackToTheCPU(t *testing.T) {
	needEmulator(t)
	g := graph.Grid(100, 100)
	before, _ := driver.Emu()
	if _, _, err := gpuMap(t, g); err != nil {
		t.Fatal(err)
	}
	after, _ := driver.Emu()
	allocs := after.Allocs - before.Allocs
	driver.EmuFail("cuMemAlloc_v2", int(allocs/2), driver.ErrCodeOutOfMemory)
	defer driver.EmuClearFailures()
	res, log, err := gpuMap(t, g)
	if err != nil {
		t.Fatalf("allocation %d of %d failed: %v", allocs/2, allocs, err)
	}
	if !strings.HasPrefix(res.Backend, "cpu") || !strings.Contains(log, "out of memory") {
		t.Errorf("backend %q, log %q: want the CPU and the reason", res.Backend, log)
	}
	end, _ := driver.Emu()
	if end.LiveBytes != before.LiveBytes {
		t.Errorf("%d bytes of device memory left allocated", end.LiveBytes-before.LiveBytes)
	}
}
