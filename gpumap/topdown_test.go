package gpumap

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
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
	// A weightless group (vertices of weight 0) fits any limit: an eps Map
	// accepts (it was -1, which distmap passed on to Map, an error on
	// every rank).
	if eps := subEps(0, 4, 10); !ValidEps(eps) {
		t.Errorf("a group of weight 0: eps %v, want one Map accepts", eps)
	}
}

// TestTopDownOnHubGraphs: on an R-MAT graph (degree CV >= imClusterCV,
// topDownMinVertices vertices or more) default's IM maps top-down, the
// mapping is feasible, the same for 1, 2 and 3 threads, and its J is well
// below that of IM on the whole machine (before, default's mapping):
// on this graph 0.474x.
func TestTopDownOnHubGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("maps a 2^15 R-MAT graph three times")
	}
	top, _ := topology.Parse("4:8:2", "1:10:100")
	rmat := graph.RMAT(15, 8, 11)
	if cv := features.DegreeCV(rmat); cv < imClusterCV || rmat.N() < topDownMinVertices {
		t.Fatalf("R-MAT: degree cv %.2f, %d vertices", cv, rmat.N())
	}
	first := mapTopDownAt(t, rmat, top, "top-down", 1, 2, 3)
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

// TestGPUTopDownTimes: the groups' host mappings count in the GPU
// backend's est_total_ms (before, it held the top's mapping alone: r15
// est_total_ms=63 while ~1.07 s went to the groups), and the integrated
// line says their time. Needs the emulated driver.
func TestGPUTopDownTimes(t *testing.T) {
	needEmulator(t)
	top, _ := topology.Parse("4:8:2", "1:10:100")
	var log bytes.Buffer
	opt := DefaultOptions()
	opt.Algorithm, opt.Backend, opt.Threads, opt.Progress = Integrated, GPU, 2, &log
	if _, err := Map(graph.RMAT(15, 8, 11), top, opt); err != nil {
		t.Fatal(err)
	}
	l := log.String()
	groups := regexp.MustCompile(`the top's groups on the CPU ([0-9.]+) ms`).FindStringSubmatch(l)
	total := regexp.MustCompile(`est_total_ms=([0-9.]+)`).FindStringSubmatch(l)
	if groups == nil || total == nil {
		t.Fatalf("no groups' time or no est_total_ms:\n%s", l)
	}
	g, _ := strconv.ParseFloat(groups[1], 64)
	tot, _ := strconv.ParseFloat(total[1], 64)
	if g <= 0 || tot < g {
		t.Errorf("the groups took %.2f ms, est_total_ms %.2f", g, tot)
	}
	t.Logf("groups %.2f ms, est_total_ms %.2f", g, tot)
}

// withHub is g with one more vertex adjacent to all others (a universal
// hub), and, where vw is not nil, vertex weights vw(v).
func withHub(t *testing.T, g *graph.Graph, hub bool, vw func(v int32) int64) *graph.Graph {
	n := g.N()
	if hub {
		n++
	}
	b := graph.NewBuilder(n)
	for v := int32(0); v < int32(g.N()); v++ {
		if vw != nil {
			b.SetVertexWeight(int(v), vw(v))
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; u > v {
				b.AddEdge(int(v), int(u), g.W(e))
			}
		}
		if hub {
			b.AddEdge(int(v), g.N(), 1)
		}
	}
	h, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTopDownRetry: on R-MAT with a universal hub the top split filled a
// group so that its own mapping came back infeasible and the whole
// machine was mapped by mapIM; the top is now mapped once more at half
// the imbalance, and the groups' mappings are feasible (before the fix
// the log had no top-down line). Where a vertex is heavier than Lmax
// (vertex weight = degree) no group holding it is feasible: IM maps the
// whole machine at once, and the log says why.
func TestTopDownRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("maps two 2^15 R-MAT graphs")
	}
	top, _ := topology.Parse("4:8:6", "1:10:100")
	rmat := graph.RMAT(15, 8, 7) // with the hub: seed 7 retries, 1 and 3 do not
	for _, c := range []struct {
		name    string
		g       *graph.Graph
		topDown bool
		log     string
	}{
		{"universal hub", withHub(t, rmat, true, nil), true, "the top again at eps"},
		{"weight = degree", withHub(t, rmat, false, func(v int32) int64 { return int64(max(1, rmat.Degree(v))) }), false, "not top-down: a vertex of weight"},
	} {
		var log bytes.Buffer
		opt := DefaultOptions()
		opt.Algorithm, opt.Backend, opt.Threads, opt.Progress = Integrated, CPU, 1, &log
		res, err := Map(c.g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		l := log.String()
		if !strings.Contains(l, c.log) {
			t.Errorf("%s: no %q:\n%s", c.name, c.log, l)
		}
		if got := strings.Contains(l, "top-down, the top split's groups first"); got != c.topDown {
			t.Errorf("%s: mapped top-down %v, want %v:\n%s", c.name, got, c.topDown, l)
		}
		if c.topDown && !res.Metrics.Feasible {
			t.Errorf("%s: infeasible (max block %d, Lmax %d)", c.name, res.Metrics.MaxBlock, res.Metrics.Lmax)
		}
		if !c.topDown {
			continue
		}
		// The retry's mapping at 3 threads is the one at 1.
		opt.Threads, opt.Progress = 3, nil
		res3, err := Map(c.g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res3.PE, res.PE) {
			t.Errorf("%s: the mapping at 3 threads differs from the one at 1", c.name)
		}
	}
}

// TestTopDownWork: the groups' FM work counts in the pipeline's work,
// which strong's budget reads (before, the top's alone was counted:
// R-MAT 2^15 onto 4:8:2 the same as the top's mapping without groups).
func TestTopDownWork(t *testing.T) {
	if testing.Short() {
		t.Skip("maps a 2^15 R-MAT graph")
	}
	top, _ := topology.Parse("4:8:2", "1:10:100")
	rmat := graph.RMAT(15, 8, 11)
	opt := DefaultOptions()
	opt.Algorithm, opt.Backend, opt.Threads = Integrated, CPU, 1
	var work [2]int64
	for i := range work {
		p := newPipeline(par.New(1), rmat, top, opt, &tracker{})
		p.backend = cpu.New(1)
		c := p.imSettings()
		c.Cluster, c.CapDiv, c.InitialPE = true, imClusterCapDiv, nil
		if i == 0 {
			if pe, _, err := p.topDownIM(p.backend, c, imClusterTries); err != nil || pe == nil {
				t.Fatalf("top-down: %v, %v", pe == nil, err)
			}
		} else {
			upper, _, _ := topDown(top)
			if _, _, err := p.mapIMOn(p.backend, upper, p.opt.Eps, c, imClusterTries); err != nil {
				t.Fatal(err)
			}
		}
		work[i] = p.work.Load()
	}
	if work[0] <= 2*work[1] {
		t.Errorf("top-down counted %d FM entries, the top alone %d", work[0], work[1])
	}
	t.Logf("top-down %d FM entries, the top alone %d", work[0], work[1])
}

// TestTopDownNotOneVertexPerPE: where the machine has at least as many
// PEs as the graph vertices, IM does not map top-down (R-MAT 2^15 onto
// 4:8:1024 lost 0.19% of J top-down); on a wide machine with fewer PEs
// than vertices it still does.
func TestTopDownNotOneVertexPerPE(t *testing.T) {
	rmat := graph.RMAT(15, 8, 11)
	top, _ := topology.Parse("4:8:1024", "1:10:100")
	if top.K() < rmat.N() {
		t.Fatalf("%d PEs, %d vertices", top.K(), rmat.N())
	}
	opt := DefaultOptions()
	opt.Algorithm, opt.Backend, opt.Threads = Integrated, CPU, 1
	p := newPipeline(par.New(1), rmat, top, opt, &tracker{})
	p.backend = cpu.New(1)
	c := p.imSettings()
	c.Cluster, c.CapDiv = true, imClusterCapDiv
	if pe, _, err := p.topDownIM(p.backend, c, imClusterTries); pe != nil || err != nil {
		t.Errorf("top-down onto %d PEs, %d vertices: mapping %v, error %v", top.K(), rmat.N(), pe != nil, err)
	}
}

// TestTopDownOneGroupTop: a machine whose top level has one group
// (4:8:1) maps top-down at the level below it (8 groups of 4 PEs), end
// to end through Map, feasible, and the same mapping at 1 and 3 threads.
func TestTopDownOneGroupTop(t *testing.T) {
	if testing.Short() {
		t.Skip("maps a 2^15 R-MAT graph twice")
	}
	top, _ := topology.Parse("4:8:1", "1:10:100")
	rmat := graph.RMAT(15, 8, 11)
	mapTopDownAt(t, rmat, top, "top-down, the top split's groups first", 1, 3)
}

// mapTopDownAt maps g onto top by -a im on the CPU at each thread count,
// checks that every run logged want (IM mapped top-down), is feasible and
// gives the first run's mapping, and returns the first run's result.
func mapTopDownAt(t *testing.T, g *graph.Graph, top *topology.Topology, want string, threads ...int) *Result {
	t.Helper()
	var first *Result
	for _, th := range threads {
		var log bytes.Buffer
		opt := DefaultOptions()
		opt.Algorithm, opt.Backend, opt.Threads, opt.Progress = Integrated, CPU, th, &log
		res, err := Map(g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), want) {
			t.Fatalf("%d threads: IM did not map top-down:\n%s", th, log.String())
		}
		if !res.Metrics.Feasible {
			t.Fatalf("%d threads: max block %d above Lmax %d", th, res.Metrics.MaxBlock, res.Metrics.Lmax)
		}
		if first == nil {
			first = res
		} else if !slices.Equal(res.PE, first.PE) {
			t.Errorf("the mapping at %d threads differs from the one at %d", th, threads[0])
		}
	}
	return first
}

// TestTopDownFallback: where the groups cannot hold their weight at any
// top (PE limits below the average weight, set here by hand), top-down
// tries the top twice, says so, and leaves the mapping to IM on the
// whole machine (nil, no error).
func TestTopDownFallback(t *testing.T) {
	top, _ := topology.Parse("4:8:2", "1:10:100")
	rmat := graph.RMAT(15, 8, 11)
	var log bytes.Buffer
	opt := DefaultOptions()
	opt.Algorithm, opt.Backend, opt.Threads = Integrated, CPU, 1
	p := newPipeline(par.New(1), rmat, top, opt, &tracker{w: &log})
	p.lmax = rmat.TotalVertexWeight()/int64(top.K()) - 1
	p.backend = cpu.New(1)
	c := p.imSettings()
	c.Cluster, c.CapDiv = true, imClusterCapDiv
	pe, _, err := p.topDownIM(p.backend, c, imClusterTries)
	if pe != nil || err != nil {
		t.Fatalf("a mapping %v, error %v", pe != nil, err)
	}
	for _, want := range []string{"the top again at eps", "infeasible again; IM on the whole machine"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no %q in the log:\n%s", want, log.String())
		}
	}
}
