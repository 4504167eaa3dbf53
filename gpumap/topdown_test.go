package gpumap

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// TestTopDownMachines checks how topDown splits machines: at the top
// split (levels of one group above it skipped), none for a flat machine
// or an irregular one.
func TestTopDownMachines(t *testing.T) {
	for _, c := range []struct{ h, d, upper, lower string }{
		{"4:8:6", "1:10:100", "6 / 100", "4:8 / 1:10"},
		{"4:8:1", "1:10:100", "8 / 10", "4 / 1"},
		{"2:3", "1:5", "3 / 5", "2 / 1"},
	} {
		top, err := topology.Parse(c.h, c.d)
		if err != nil {
			t.Fatal(err)
		}
		u, l, ok := topDown(top)
		if !ok || u.String() != c.upper || l.String() != c.lower {
			t.Errorf("%s / %s: got %v, %v, %v; want %s and %s", c.h, c.d, u, l, ok, c.upper, c.lower)
		}
	}
	flat, _ := topology.Parse("192", "1")
	if _, _, ok := topDown(flat); ok {
		t.Errorf("a flat machine split top-down")
	}
	tree, err := topology.NewTree([][]int{{0, 0, 1, 1, 1}}, []int64{1, 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := topDown(tree); ok {
		t.Errorf("an irregular machine split top-down")
	}
}

// TestSubEps checks that a group's imbalance gives its PEs the whole
// machine's Lmax, never more.
func TestSubEps(t *testing.T) {
	for _, c := range []struct {
		w    int64
		per  int
		lmax int64
	}{{6897, 32, 216}, {6912, 32, 216}, {6000, 32, 216}, {1, 4, 1}, {3, 3, 1}, {1000003, 7, 150000}} {
		eps := subEps(c.w, c.per, c.lmax)
		if eps < 0 {
			t.Fatalf("%+v: eps %v", c, eps)
		}
		if got := graph.Lmax(c.w, c.per, eps); got > c.lmax || got < c.lmax-1 {
			t.Errorf("%+v: eps %v gives Lmax %d", c, eps, got)
		}
	}
	// A light group under heavy limits: an imbalance Map accepts, a limit
	// the group meets.
	eps := subEps(1, 4, 1<<40)
	if !ValidEps(eps) || graph.Lmax(1, 4, eps) < 1 || graph.Lmax(1, 4, eps) > 1<<40 {
		t.Errorf("weight 1 on 4 PEs of limit 2^40: eps %v, Lmax %d", eps, graph.Lmax(1, 4, eps))
	}
	if eps := subEps(6913, 32, 216); eps >= 0 {
		t.Errorf("a group heavier than its PEs' limits: eps %v", eps)
	}
}

// TestTopDownOnHubGraphs: on an R-MAT graph (degree CV >= imClusterCV,
// topDownMinVertices vertices or more) default's IM maps top-down, the
// mapping is feasible, the same for 1 and 2 threads, and its J is well
// below that of IM on the whole machine (before, default's mapping):
// on this graph 0.55x.
func TestTopDownOnHubGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("maps a 2^15 R-MAT graph three times")
	}
	top, _ := topology.Parse("4:8:2", "1:10:100")
	rmat := graph.RMAT(15, 8, 11)
	if cv := features.DegreeCV(rmat); cv < imClusterCV || rmat.N() < topDownMinVertices {
		t.Fatalf("R-MAT: degree cv %.2f, %d vertices", cv, rmat.N())
	}
	var first *Result
	for _, threads := range []int{1, 2} {
		var log bytes.Buffer
		opt := DefaultOptions()
		opt.Algorithm, opt.Backend, opt.Threads, opt.Progress = Integrated, CPU, threads, &log
		res, err := Map(rmat, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "top-down") {
			t.Fatalf("%d threads: IM did not map top-down:\n%s", threads, log.String())
		}
		if !res.Metrics.Feasible {
			t.Fatalf("%d threads: max block %d above Lmax %d", threads, res.Metrics.MaxBlock, res.Metrics.Lmax)
		}
		if first == nil {
			first = res
		} else if !slices.Equal(res.PE, first.PE) {
			t.Errorf("the mapping at %d threads differs from the one at 1", threads)
		}
	}
	// IM on the whole machine, as before.
	opt := DefaultOptions()
	opt.Algorithm, opt.Backend, opt.Threads = Integrated, CPU, 2
	p := newPipeline(par.New(2), rmat, top, opt, &tracker{})
	p.backend = cpu.New(2)
	c := p.imSettings()
	c.Cluster, c.CapDiv = true, imClusterCapDiv
	whole, _, err := p.mapIM(p.backend, c, imClusterTries)
	if err != nil {
		t.Fatal(err)
	}
	m, err := graph.Evaluate(rmat, top, whole, opt.Eps)
	if err != nil {
		t.Fatal(err)
	}
	if float64(first.Metrics.J) > 0.8*float64(m.J) {
		t.Errorf("top-down J %d, on the whole machine %d: want at most 0.8x", first.Metrics.J, m.J)
	}
	t.Logf("top-down J %d, whole machine %d (%.3fx)", first.Metrics.J, m.J, float64(first.Metrics.J)/float64(m.J))
}

// TestGPUTopDownAsTheCPU: where default's IM maps top-down, the GPU
// backend maps the top split's groups as the CPU does (the integrated
// loop is the same on both) and the groups' subgraphs on the CPU, so the
// mapping is the CPU backend's, byte for byte. Needs the emulated driver.
func TestGPUTopDownAsTheCPU(t *testing.T) {
	needEmulator(t)
	top, _ := topology.Parse("4:8:2", "1:10:100")
	rmat := graph.RMAT(15, 8, 11)
	var pes [2][]int32
	for i, b := range []Backend{CPU, GPU} {
		var log bytes.Buffer
		opt := DefaultOptions()
		opt.Algorithm, opt.Backend, opt.Threads, opt.Progress = Integrated, b, 2, &log
		res, err := Map(rmat, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "top-down") {
			t.Fatalf("backend %v: IM did not map top-down:\n%s", b, log.String())
		}
		pes[i] = res.PE
	}
	if !slices.Equal(pes[0], pes[1]) {
		t.Errorf("the GPU backend's top-down IM differs from the CPU's")
	}
}
