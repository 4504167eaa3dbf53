package distmap

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// Top-down on a hub graph coarsened across the ranks (mapTopDown, with a
// small coarsest graph so that the distributed levels run on a graph a
// test can afford): at P = 1, 2 and 3 the mapping is feasible, a second
// run gives the same mapping, and J is at most 1.08x the one-process
// default's, as issue 24 asks.
func TestTopDownHubs(t *testing.T) {
	if !mpitest.Child() {
		runRanks(t, "TestTopDownHubs", 1, 2, 3)
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	whole := graph.RMAT(14, 8, 5)
	if cv := features.DegreeCV(whole); cv < gpumap.HubCV {
		rankFail("degree CV %.2f: not a hub graph, the test tests nothing", cv)
	}
	top, _ := topology.Parse("4:4:3", "1:10:100")
	g := spreadEvenly(c, size, rank, whole)
	opt := Options{Eps: 0.03, Seed: 2, Threads: 1, Preset: gpumap.Default, Coarsest: 800}
	total := whole.TotalVertexWeight()
	cv, entries, err := degreeCV(g)
	if err != nil {
		rankFail("%v", err)
	}
	var first []int32
	for run := range 2 {
		res, err := mapTopDown(g, top, opt, total, cv, entries, graph.Lmax(total, top.K(), opt.Eps))
		if err != nil {
			rankFail("%v", err)
		}
		if !res.Metrics.Feasible || len(res.Notes) != 1 || res.Levels == 0 {
			rankFail("P=%d: feasible %v, %d levels, notes %q: want a coarsened top-down mapping", size, res.Metrics.Feasible, res.Levels, res.Notes)
		}
		all, _, err := mpi.Allgatherv(c, res.PE, size)
		if err != nil {
			rankFail("%v", err)
		}
		m, err := graph.Evaluate(whole, top, all, opt.Eps)
		if err != nil || m.J != res.Metrics.J || !m.Feasible {
			rankFail("P=%d: the mapping's J %d (feasible %v, %v), Result says %d", size, m.J, m.Feasible, err, res.Metrics.J)
		}
		if run == 1 && !slices.Equal(all, first) {
			rankFail("P=%d: a second run gave another mapping", size)
		}
		first = all
		if run == 0 && rank == 0 {
			o := gpumap.DefaultOptions()
			o.Eps, o.Seed, o.Threads, o.Backend = opt.Eps, opt.Seed, 1, gpumap.CPU
			one, err := gpumap.Map(whole, top, o)
			if err != nil {
				rankFail("%v", err)
			}
			if 100*res.Metrics.J > 108*one.Metrics.J {
				rankFail("P=%d: J %d is %.3fx the one-process J %d (at most 1.08x)", size, res.Metrics.J, float64(res.Metrics.J)/float64(one.Metrics.J), one.Metrics.J)
			}
			fmt.Printf("P=%d J %d, one-process %d\n", size, res.Metrics.J, one.Metrics.J)
		}
	}
	// A vertex heavier than Lmax: no group holding it can be feasible,
	// so the distributed levels map the whole machine, and say so.
	if rank == 0 {
		g.VW[0] = total
	}
	res, err := mapTopDown(g, top, opt, 2*total-1, cv, entries, graph.Lmax(2*total-1, top.K(), opt.Eps))
	if err != nil {
		rankFail("%v", err)
	}
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "not top-down: a vertex of weight") || res.Metrics.Feasible {
		rankFail("P=%d: a vertex above Lmax: notes %q, feasible %v", size, res.Notes, res.Metrics.Feasible)
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// hubTopDown maps top-down only hub graphs under the default preset,
// onto machines with a top split and fewer PEs than vertices, and none
// where Options.Coarsest is set.
func TestHubTopDownGate(t *testing.T) {
	def := Options{Preset: gpumap.Default}
	m486, _ := topology.Parse("4:8:6", "1:10:100")
	flat, _ := topology.Parse("192", "1")
	for _, x := range []struct {
		n    int64
		cv   float64
		top  *topology.Topology
		opt  Options
		want bool
	}{
		{1 << 21, gpumap.HubCV, m486, def, true},
		{1 << 21, gpumap.HubCV - 0.01, m486, def, false},
		{1 << 21, 5, flat, def, false},
		{192, 5, m486, def, false},
		{1 << 21, 5, m486, Options{Preset: gpumap.Default, Coarsest: 500}, false},
		{1 << 21, 5, m486, Options{Preset: gpumap.Fast}, false},
	} {
		if got := hubTopDown(x.n, x.cv, x.top, x.opt); got != x.want {
			t.Errorf("hubTopDown(%d, %.2f, %v, %+v) = %v, want %v", x.n, x.cv, x.top, x.opt, got, x.want)
		}
	}
}
