package gpumap

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// GPU-HM (-a hm on the GPU) needs the emulated driver here, like the
// other GPU tests of this file's neighbour gpu_test.go.

func gpuHM(t *testing.T, g *graph.Graph, top *topology.Topology, threads int) (*Result, string) {
	t.Helper()
	var log bytes.Buffer
	res, err := Map(g, top, Options{Backend: GPU, Algorithm: Multisection, Eps: 0.03, Seed: 1, Threads: threads, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Metrics.Feasible {
		t.Errorf("infeasible mapping: %+v", res.Metrics)
	}
	return res, log.String()
}

// -a hm with --backend gpu runs GPU-HM on the device (the gpu: line), not
// the CPU multisection, and maps the same at any thread count.
func TestGPUMultisectionOnTheDevice(t *testing.T) {
	needEmulator(t)
	top, _ := topology.Parse("2:4:2", "1:10:100")
	g := graph.Grid(40, 40)
	res, log := gpuHM(t, g, top, 1)
	if !strings.HasPrefix(res.Backend, "cuda") || !strings.Contains(log, "gpu-hm on cuda") || !strings.Contains(log, "\ngpu: launches=") {
		t.Errorf("backend %q, log:\n%s\nwant GPU-HM on the device with its gpu: line", res.Backend, log)
	}
	if again, _ := gpuHM(t, g, top, 2); !slices.Equal(again.PE, res.PE) {
		t.Errorf("2 threads mapped differently from 1")
	}
}

// GPU-HM falls back to the CPU multisection, with the reason, on a graph
// too large for the device and on a machine whose groups differ in size
// (its splits place parts by stride); the context is released once.
func TestGPUMultisectionFallsBackToTheCPU(t *testing.T) {
	needEmulator(t)
	devs, err := driver.Devices()
	if err != nil {
		t.Fatal(err)
	}
	g := graph.Grid(40, 40)
	top, _ := topology.Parse("2:4:2", "1:10:100")
	before, _ := driver.Emu()
	driver.EmuSetMemory(1 << 20) // nothing fits
	res, log := gpuHM(t, g, top, 0)
	driver.EmuSetMemory(devs[0].TotalMem)
	if !strings.HasPrefix(res.Backend, "cpu") || !strings.Contains(log, "does not fit") {
		t.Errorf("backend %q, log %q: want the CPU and the reason", res.Backend, log)
	}
	// Sockets of 2 and 3 PEs on one node of 5.
	tree, err := topology.NewTree([][]int{{0, 0, 1, 1, 1}}, []int64{1, 10})
	if err != nil {
		t.Fatal(err)
	}
	res, log = gpuHM(t, g, tree, 0)
	if !strings.HasPrefix(res.Backend, "cpu") || !strings.Contains(log, "children of equal size") {
		t.Errorf("backend %q, log %q: want the CPU and the reason", res.Backend, log)
	}
	after, _ := driver.Emu()
	if r, l := after.CtxRetains-before.CtxRetains, after.CtxReleases-before.CtxReleases; r != l || after.LiveBytes != before.LiveBytes {
		t.Errorf("context retained %d, released %d times; %d bytes left allocated", r, l, after.LiveBytes-before.LiveBytes)
	}
}

// -a auto on the GPU below gpuBothMaxEdges maps with GPU-HM and GPU-IM on
// the device and keeps the lower J: the mapping is the better of -a hm's
// and -a im's (HM's on ties), the gpu: line counts both runs, and two
// runs agree. Above it, GPU-IM alone.
func TestGPUAutoMapsWithBoth(t *testing.T) {
	needEmulator(t)
	top, _ := topology.Parse("2:4:2", "1:10:100")
	g := graph.RandomGeometric(3000, 0x26a0)
	run := func(alg Algorithm) (*Result, string) {
		t.Helper()
		var log bytes.Buffer
		res, err := Map(g, top, Options{Backend: GPU, Algorithm: alg, Eps: 0.03, Seed: 1, Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Metrics.Feasible {
			t.Errorf("%v: infeasible mapping", alg)
		}
		return res, log.String()
	}
	launches := func(log string) int {
		m := regexp.MustCompile(`\ngpu: launches=(\d+)`).FindAllStringSubmatch(log, -1)
		if len(m) != 1 {
			t.Fatalf("want one gpu: line, log:\n%s", log)
		}
		l, _ := strconv.Atoi(m[0][1])
		return l
	}
	hm, hmLog := run(Multisection)
	im, imLog := run(Integrated)
	auto, autoLog := run(AutoAlgorithm)
	want := hm
	if im.Metrics.J < hm.Metrics.J {
		want = im
	}
	if !strings.Contains(autoLog, "auto on the GPU") || !slices.Equal(auto.PE, want.PE) {
		t.Errorf("auto: J %d, want the better of HM's %d and IM's %d; log:\n%s", auto.Metrics.J, hm.Metrics.J, im.Metrics.J, autoLog)
	}
	if l, lh, li := launches(autoLog), launches(hmLog), launches(imLog); l != lh+li {
		t.Errorf("auto's gpu: line counts %d launches, HM's and IM's runs %d + %d", l, lh, li)
	}
	if again, _ := run(AutoAlgorithm); !slices.Equal(again.PE, auto.PE) {
		t.Errorf("two runs of auto differ")
	}
	defer func(v int64) { gpuBothMaxEdges = v }(gpuBothMaxEdges)
	gpuBothMaxEdges = 0
	if !strings.Contains(autoLog, "algorithm on the GPU: hm and im") {
		t.Errorf("auto's log does not say that both run:\n%s", autoLog)
	}
	if big, log := run(AutoAlgorithm); !slices.Equal(big.PE, im.PE) || strings.Contains(log, "gpu-hm") ||
		!strings.Contains(log, "algorithm on the GPU: im alone (at least 0 edges)") {
		t.Errorf("auto above gpuBothMaxEdges: want GPU-IM alone, log:\n%s", log)
	}
}

// On a wide machine -a auto on a GPU maps with GPU-IM alone, and says so
// after the header line's CPU choice (it printed algorithm=hm on the H200
// and ran GPU-IM): GPU-HM there partitions thousands of tiny parts on the
// host.
func TestGPUAutoWideTakesIM(t *testing.T) {
	needEmulator(t)
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 17)
	var log bytes.Buffer
	res, err := Map(g, top, Options{Backend: GPU, Eps: 0.03, Seed: 1, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Metrics.Feasible || strings.Contains(log.String(), "auto on the GPU") ||
		!regexp.MustCompile(`integrated on`).MatchString(log.String()) ||
		!strings.Contains(log.String(), "algorithm on the GPU: im alone (a wide machine)") {
		t.Errorf("feasible %v; want GPU-IM alone, log:\n%s", res.Metrics.Feasible, log.String())
	}
}

// GPU-HM's final J pass on the host runs under -c strong only
// (hostRefinesHM): the default preset's GPU-HM ends where the device
// does. On the CPU backend, which runs the same GPU-HM pipeline.
func TestGPUHMHostJPassIsStrongs(t *testing.T) {
	top, _ := topology.Parse("2:2:2", "1:10:100")
	g := graph.Grid(24, 24)
	for _, pr := range []Preset{Default, Strong} {
		var log bytes.Buffer
		p := newPipeline(par.New(1), g, top, Options{Preset: pr, Eps: 0.03, Backend: CPU}, &tracker{w: &log})
		p.backend = cpu.New(1)
		pe := p.gpuMultisection()
		if m, err := graph.Evaluate(g, top, pe, 0.03); err != nil || !m.Feasible {
			t.Errorf("%v: infeasible (%v)", pr, err)
		}
		skipped := strings.Contains(log.String(), "refine-J: skipped after GPU-HM")
		if ran := strings.Contains(log.String(), "refine-J: J"); skipped != (pr == Default) || ran != (pr == Strong) {
			t.Errorf("%v: host J pass skipped %v, ran %v; want it under strong only; log:\n%s", pr, skipped, ran, log.String())
		}
	}
}

// A mapping that GPU-HM's levels leave one vertex above Lmax (as on
// wiki-Vote onto 4:8:2) is made feasible on the host before it is
// returned, moving as little as it must; a feasible one is not touched.
func TestRebalanceAbove(t *testing.T) {
	top, _ := topology.Parse("4:8:2", "1:10:100")
	g := graph.Grid(32, 30) // 960 vertices onto 64 PEs: Lmax 16 at eps 0.03
	lmax := graph.Lmax(int64(g.N()), top.K(), 0.03)
	pe := make([]int32, g.N())
	for v := range pe {
		pe[v] = int32(v * top.K() / g.N()) // 15 a PE
	}
	before := slices.Clone(pe)
	if over, _, ok := rebalanceAbove(g, top, lmax, pe); over != 0 || !ok || !slices.Equal(pe, before) {
		t.Fatalf("a feasible mapping: over %d, ok %v, changed %v", over, ok, !slices.Equal(pe, before))
	}
	// PE 5 takes a neighbour of its block from PE 6, and two more: 18 > 16.
	for _, v := range []int{90, 91, 92} {
		pe[v] = 5
	}
	over, _, ok := rebalanceAbove(g, top, lmax, pe)
	if over != 1 || !ok {
		t.Fatalf("over %d, ok %v: want 1 PE above Lmax made feasible", over, ok)
	}
	load := make([]int64, top.K())
	moved := 0
	for v, q := range pe {
		load[q]++
		if q != before[v] {
			moved++
		}
	}
	if slices.Max(load) > lmax {
		t.Errorf("heaviest PE %d above Lmax %d", slices.Max(load), lmax)
	}
	if moved > 3 {
		t.Errorf("%d vertices away from the feasible start, want at most the 3 put there", moved)
	}
}

// GPU-HM's mapping is feasible where its levels leave a PE above Lmax:
// on an R-MAT graph of 2^12 ids (seed 4) onto 4:8:2 the device's levels
// ended with a PE at 50 against Lmax 48 before the host's check
// (feasibleHM), which now moves vertices out and says so.
func TestGPUMultisectionFeasibleRMAT(t *testing.T) {
	needEmulator(t)
	top, _ := topology.Parse("4:8:2", "1:10:100")
	g := graph.RMAT(12, 8, 4)
	var log bytes.Buffer
	res, err := Map(g, top, Options{Backend: GPU, Algorithm: Multisection, Eps: 0.03, Threads: 2, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Metrics.Feasible {
		t.Fatalf("infeasible: heaviest PE %d, Lmax %d", res.Metrics.MaxBlock, res.Metrics.Lmax)
	}
	if !strings.Contains(log.String(), "above Lmax") {
		t.Errorf("log:\n%s\nwant the host's rebalancing said (the device's levels left this graph over)", log.String())
	}
}
