package devhm_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// On the CPU backend (what the device computes, TestMultisection in
// package cuda): feasible mappings, with vertex weights too, the same at
// 1 and 2 threads, every PE used on a graph with many vertices per PE,
// and an irregular machine refused with ErrIrregular; ultra's V-cycles
// too.
func TestMapFeasibleAndReproducible(t *testing.T) {
	top, _ := topology.Parse("2:3:2", "1:10:100")
	for i, g := range []*graph.Graph{graph.RandomGeometric(3000, 0x5eed), graph.Random(2000, 8000, 7, 9, 0x5eed), graph.Grid(24, 20, 10), graph.Random(2000, 8000, 7, 9, 0x5eed)} {
		cfg := devhm.Default
		if i >= 2 {
			cfg = devhm.Ultra
		}
		cfg.Seed = 5
		pe, _, err := devhm.Map(cpu.New(1), par.New(1), g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := graph.Evaluate(g, top, pe, 0.03)
		if err != nil || !m.Feasible {
			t.Errorf("n=%d: infeasible (%v): max block %d, lmax %d", g.N(), err, m.MaxBlock, m.Lmax)
		}
		used := map[int32]bool{}
		for _, p := range pe {
			used[p] = true
		}
		if len(used) != top.K() {
			t.Errorf("n=%d: %d of %d PEs used", g.N(), len(used), top.K())
		}
		again, _, _ := devhm.Map(cpu.New(2), par.New(2), g, top, 0.03, cfg)
		if !slices.Equal(again, pe) {
			t.Errorf("n=%d: 2 threads mapped differently from 1", g.N())
		}
	}
	tree, _ := topology.NewTree([][]int{{0, 0, 1, 1, 1}}, []int64{1, 10})
	if _, _, err := devhm.Map(cpu.New(1), par.New(1), graph.Grid(10, 10), tree, 0.03, devhm.Default); !errors.Is(err, devhm.ErrIrregular) {
		t.Errorf("irregular machine: %v, want ErrIrregular", err)
	}
}

// Ultra's V-cycles stop where the host's downloads would pass issue 26's
// bound, 8n + 4 MiB, less the share (d2hMargin, 6%) left to the Jet loop's
// scalars, which the count leaves out: on a 24^3 grid onto 4:8:6 the dense
// coarsest graphs took 4,906,924 bytes, 1.14 of the bound, with ultra's
// two V-cycles per split then (3 now) and no check.
func TestUltraDownloadsWithinBound(t *testing.T) {
	g := graph.Grid(24, 24, 24)
	top, _ := topology.Parse("4:8:6", "1:10:100")
	bytes := countedMap(t, "24^3 grid", g, top, true)
	if limit := 0.94 * float64(8*g.N()+4<<20); float64(bytes) > limit {
		t.Errorf("%d bytes to the host, more than 0.94 (8n + 4 MiB) = %.0f", bytes, limit)
	}
}

// Every partition, not only the V-cycles, keeps the host's downloads
// within issue 26's bound (less d2hMargin) on dense inputs: the tries
// after a split's first run only where they fit, and a split's first
// partition coarsens below its target size until its coarsest graph fits.
// Before, with no check on the tries, a random graph of 20k vertices and
// mean degree 20 onto 4:8:6 took 4.81 of the bound under ultra and 2.17
// under GPU-HM's default (the whole machine's coarsest graph alone, 2,214
// vertices of mean degree 157, 0.65 of it, three tries), the 32^3 grid
// onto 8:8:4 1.04 and the 40^3 grid onto 2:16:6 1.01 under ultra.
func TestDownloadsWithinBoundDense(t *testing.T) {
	cases := []struct {
		g     *graph.Graph
		h     string
		ultra bool
	}{
		{graph.Random(20000, 200000, 1, 1, 1), "4:8:6", false},
		{graph.Random(20000, 200000, 1, 1, 1), "4:8:6", true},
		{graph.Grid(32, 32, 32), "8:8:4", true},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			g     *graph.Graph
			h     string
			ultra bool
		}{graph.Grid(40, 40, 40), "2:16:6", true})
	}
	for _, c := range cases {
		top, _ := topology.Parse(c.h, "1:10:100")
		bytes := countedMap(t, fmt.Sprintf("n=%d onto %s", c.g.N(), c.h), c.g, top, c.ultra)
		if limit := 0.94 * float64(8*c.g.N()+4<<20); float64(bytes) > limit {
			t.Errorf("n=%d onto %s (ultra %v): %d bytes to the host, %.3f of 0.94 (8n + 4 MiB)", c.g.N(), c.h, c.ultra, bytes, float64(bytes)/limit)
		}
	}
}

// The bound's exception: a coarsening that stalls (a matching keeps more
// than 95% of the vertices) while its graph is above what the download
// may take ends there, and devhm downloads that graph. Isolated vertices
// never match, and a star's leaves match only with its centre: the
// review measured 1M isolated vertices onto 4:8:6 at 5.0 times 8n + 4 MiB
// and a star of 1M vertices at 3.7 (default) and 6.4 (ultra). This pins
// the exception (the mapping stays feasible) until devhm handles such
// graphs; TestDownloadsWithinBoundDense pins the bound elsewhere.
func TestDownloadsAboveBoundWhereCoarseningStalls(t *testing.T) {
	const n = 1 << 17
	isolated, star := graph.NewBuilder(n), graph.NewBuilder(n)
	isolated.AddEdge(0, 1, 1)
	for v := 1; v < n; v++ {
		star.AddEdge(0, v, 1)
	}
	top, _ := topology.Parse("4:8:6", "1:10:100")
	for name, gb := range map[string]*graph.Builder{"isolated": isolated, "star": star} {
		g, err := gb.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, ultra := range []bool{false, true} {
			r := float64(countedMap(t, name, g, top, ultra)) / float64(8*g.N()+4<<20)
			t.Logf("%s of %d vertices onto 4:8:6 (ultra %v): %.2f of 8n + 4 MiB", name, n, ultra, r)
			if r <= 1 {
				t.Errorf("%s (ultra %v): %.2f of the bound: the exception is gone, update the docs", name, ultra, r)
			}
		}
	}
}

// R-MAT graphs keep GPU-HM's downloads within issue 26's bound: a
// split below the top restricts the graph to the groups above, and the
// leaves whose hub went to another group are left isolated; they never
// match, so the vertex count stalls while the dense core's edges still
// shrink. Before, a stall ended the coarsening above the download's
// room: R-MAT 2^16 (seed 3, 40,254 vertices) onto 4:8:2 took 2.05 of 8n
// + 4 MiB here (1.89 with the mapper's seed 0; 19k of the 20.8k vertices
// of the second level's coarsest graph isolated, its 447k adjacency
// entries downloaded). Then ultra's tries and V-cycles, pricing the
// levels below at their vertex targets, left the last level too little
// room for its isolated vertices: 1.032 of the bound here (later).
func TestDownloadsWithinBoundRMAT(t *testing.T) {
	for _, c := range []struct {
		scale int
		seed  uint64
		h     string
		ultra bool
	}{{16, 3, "4:8:2", false}, {16, 3, "4:8:2", true}} {
		g := graph.RMAT(c.scale, 8, c.seed)
		top, _ := topology.Parse(c.h, "1:10:100")
		bytes := countedMap(t, fmt.Sprintf("R-MAT 2^%d seed %d onto %s", c.scale, c.seed, c.h), g, top, c.ultra)
		// 0.94 of the bound, as the dense tests: the counting backend
		// leaves the Jet loop's scalars to the rest (d2hMargin).
		if limit := float64(8*g.N() + 4<<20); float64(bytes) > 0.94*limit {
			t.Errorf("R-MAT 2^%d seed %d (n=%d) onto %s (ultra %v): %d bytes to the host, %.3f of 8n + 4 MiB", c.scale, c.seed, g.N(), c.h, c.ultra, bytes, float64(bytes)/limit)
		}
	}
}

// A split's tries and V-cycles are chosen by overload first, then cut:
// the Jet loop can end with a block over its limit, and a try one edge
// lower in cut with a PE at Lmax + 1 won. Ultra on R-MAT with 2^15 ids
// onto 4:8:6 gave infeasible mappings so (main before the hub-graph
// changes: seeds 19 and 20; with tries reusing a coarsest graph, since
// dropped: seed 24, cut 31,963 at 115 over 31,964 within Lmax 114).
func TestUltraFeasibleRMAT(t *testing.T) {
	g := graph.RMAT(15, 8, 19)
	top, _ := topology.Parse("4:8:6", "1:10:100")
	pe, _, err := devhm.Map(cpu.New(0), par.New(0), g, top, 0.03, devhm.Ultra)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := graph.Evaluate(g, top, pe, 0.03); !m.Feasible {
		t.Errorf("infeasible: max block %d, Lmax %d", m.MaxBlock, m.Lmax)
	}
}
