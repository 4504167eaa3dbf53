package distmap

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// exposedAt against the hierarchies' own points and hand-worked
// log-log interpolations, and the comparison lessExposed makes on the
// curves that finan512 twice and a 3D grid gave at P=2 (seeds 21, 3):
// label propagation on finan, matchings on the grid.
func TestExposedAt(t *testing.T) {
	e := []exposure{{1024, 4000}, {256, 1000}, {64, 100}}
	for _, c := range []struct {
		n    int64
		want float64
	}{
		{1024, 4000}, {256, 1000}, {64, 100},
		{math.MaxInt64, 4000},
		// Halfway in log n between two graphs: the geometric mean.
		{512, math.Sqrt(4000 * 1000)},
		{128, math.Sqrt(1000 * 100)},
	} {
		got := exposedAt(e, c.n)
		if math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("exposedAt(%d) = %.1f, want %.1f", c.n, got, c.want)
		}
	}
	// A graph's own size gives its weight exactly (a tie between the
	// hierarchies stays a tie, which keeps the matchings), and a
	// hierarchy whose coarsest graph has no edges exposes nothing there
	// (it gave the level before's weight: the review).
	for _, x := range e {
		if got := exposedAt(e, x.n); got != float64(x.w) {
			t.Errorf("exposedAt(%d) = %v, want exactly %d", x.n, got, x.w)
		}
	}
	collapsed := []exposure{{1000, 500}, {100, 0}}
	if got := exposedAt(collapsed, 100); got != 0 {
		t.Errorf("no edges left: exposedAt = %v, want 0", got)
	}
	if got := exposedAt(collapsed, 316); got <= 0 || got >= 500 {
		t.Errorf("towards no edges: exposedAt(316) = %v, want between 0 and 500", got)
	}
	if got := exposedAt(e[:1], 5); got != 4000 {
		t.Errorf("one graph: exposedAt = %v, want its weight", got)
	}
	finanM := []exposure{{149504, 522241}, {77824, 450561}, {44800, 378113}, {24896, 325949}, {14404, 283525}, {11470, 279759}, {11080, 278979}}
	finanLP := []exposure{{149504, 522241}, {36412, 310353}, {10899, 233810}, {10473, 232843}}
	if m, l := exposedAt(finanM, 11080), exposedAt(finanLP, 11080); l >= m {
		t.Errorf("finan512 x2: label propagation exposes %.0f, matchings %.0f; want label propagation's less", l, m)
	}
	gridM := []exposure{{257481, 760292}, {128741, 631552}, {64371, 502859}, {32186, 377117}, {16093, 312760}}
	gridLP := []exposure{{257481, 760292}, {112785, 603159}, {30430, 391789}, {10151, 300191}, {8992, 295453}, {8991, 295449}}
	if m, l := exposedAt(gridM, 16093), exposedAt(gridLP, 16093); m >= l {
		t.Errorf("3D grid: matchings expose %.0f, label propagation %.0f; want the matchings' less", m, l)
	}
}

// exposedOf on 3 ranks against contract: on grids and random graphs with
// random edge weights spread over the ranks at random boundaries (one
// rank possibly empty), clustered by label propagation (clusters across
// the ranks' boundaries) or by random labels of vertices anywhere, the
// size and exposed edge weight without the contraction are those of the
// contracted graph (lessExposed drops a level behind uncontracted).
func TestExposedOfContract(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestExposedOfContract")
		if n := len(regexp.MustCompile(`(?m)^rank \d: ok$`).FindAllString(out, -1)); n != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", n, out)
		}
		return
	}
	defer rankRecover()
	c, _, rank := rankComm(t)
	rng := rand.New(rand.NewPCG(21, 4))
	for trial := range 100 {
		var whole *graph.Graph
		switch trial % 2 {
		case 0:
			whole = graph.Grid(2+rng.IntN(30), 2+rng.IntN(30))
		default:
			whole = randomGraph(rng, 2+rng.IntN(150))
		}
		n := whole.N()
		ew := make([]int64, whole.DirectedEdges())
		for v := range n {
			for e := whole.XAdj[v]; e < whole.XAdj[v+1]; e++ {
				u := whole.Adj[e]
				// The same weight both ways: a hash of the pair.
				ew[e] = 1 + int64((uint64(min(int32(v), u))*31+uint64(max(int32(v), u)))%5)*int64(trial%2)
			}
		}
		vtxdist := randomVtxdist(rng, n)
		lo, hi := vtxdist[rank], vtxdist[rank+1]
		g, err := rankSlice(c, whole, vtxdist, rank, true, func(e int64) int64 { return ew[e] })
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		var label []int64
		if trial%3 == 2 {
			// Labels of any vertex: the same draw on every rank.
			lr := rand.New(rand.NewPCG(uint64(trial), 1))
			all := make([]int64, n)
			for v := range all {
				all[v] = int64(lr.IntN(n))
			}
			label = slices.Clone(all[lo:hi])
			for _, x := range g.Ghost {
				label = append(label, all[x])
			}
		} else {
			cl, err := newClustering(g, int64(1+rng.IntN(6)), uint64(trial), 0, 1, 0)
			if err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			if err := cl.run(3); err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			label = cl.label
		}
		got, err := exposedOf(g, label)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		lv, err := contract(g, label)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		var h hierarchy
		if err := h.addExposed(lv.coarse); err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		if got != h.exposed[0] {
			rankFail("trial %d: exposedOf %+v, the contracted graph %+v", trial, got, h.exposed[0])
		}
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// A road whose numbering leaves at most spreadMax of its entries across
// the ranks is coarsened by label propagation alone (roadsMatch): the
// road grid in its own numbering at P=2 builds no matchings' hierarchy
// (Map's trace has no duel of exposed edge weights), while the same
// grid shuffled (about half its entries across) keeps the duel.
func TestRoadsMatch(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestRoadsMatch", "roads ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	road := graph.RoadGrid(60, 60)
	for _, x := range []struct {
		name  string
		whole *graph.Graph
		want  bool
	}{{"own numbering", road, false}, {"shuffled", shuffled(road, 5), true}} {
		g := spreadEvenly(c, size, rank, x.whole)
		got, err := roadsMatch(g)
		if err != nil {
			rankFail("%v", err)
		}
		if got != x.want {
			rankFail("%s: roadsMatch %v, want %v", x.name, got, x.want)
		}
	}
	g := spreadEvenly(c, size, rank, road)
	var tr bytes.Buffer
	if _, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: 1, Coarsest: 600, Trace: &tr}); err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		if strings.Contains(tr.String(), "exposed edge weight") {
			rankFail("the road grid in its own numbering duelled the hierarchies:\n%s", tr.String())
		}
		fmt.Println("roads ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
