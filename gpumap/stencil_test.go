package gpumap

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/tiling"
	"github.com/gpumap/gpumap/topology"
)

// A stencil whose tiling is proven optimal is mapped by the tiling alone:
// J at most the hand-built tiling's, the same mapping for every preset and
// thread count, and the same on the machine given as a tree (the form
// hwdetect infers for uniform nodes, what gpumap_reorder maps onto).
func TestProvenStencilTiling(t *testing.T) {
	cases := []struct {
		dims []int
		h    string
	}{
		{[]int{16, 16}, "4:8:8"},
		{[]int{256, 128}, "16:2:1024"},
		{[]int{64, 32, 16}, "16:2:1024"},
		{[]int{32, 32, 32}, "16:2:1024"},
		{[]int{12, 12, 12}, "6:4:72"},
	}
	for _, c := range cases {
		top, _ := topology.Parse(c.h, "1:10:100")
		g := graph.Grid(c.dims...)
		tiling := tilingJ(t, c.dims, top)
		tree := treeOf(t, top)
		var first []int32
		for _, preset := range []Preset{Fast, Default, Strong} {
			for _, threads := range []int{1, 2, 3} {
				opts := DefaultOptions()
				opts.Eps, opts.Preset, opts.Threads = 0, preset, threads
				for _, m := range []*topology.Topology{top, tree} {
					res, err := Map(g, m, opts)
					if err != nil {
						t.Fatal(err)
					}
					checkResult(t, g, m, 0, res)
					if res.Metrics.J > tiling {
						t.Errorf("%v on %s, %s: J %d above the tiling's %d", c.dims, c.h, preset, res.Metrics.J, tiling)
					}
					if !ranPhase(res, "tiling") || ranPhase(res, "one-to-one") {
						t.Errorf("%v on %s: phases %v, want the tiling alone", c.dims, c.h, res.Phases)
					}
					if first == nil {
						first = res.PE
					} else if !slices.Equal(first, res.PE) {
						t.Errorf("%v on %s: %s, %d threads: another mapping", c.dims, c.h, preset, threads)
					}
				}
			}
		}
	}
}

// treeOf returns the regular machine top as an irregular tree.
func treeOf(t *testing.T, top *topology.Topology) *topology.Topology {
	t.Helper()
	groups := make([][]int, top.Levels()-1)
	for i := range groups {
		groups[i] = make([]int, top.K())
		for p := range groups[i] {
			groups[i][p] = top.GroupOf(i+1, p).Lo / top.GroupOf(i+1, 0).Size()
		}
	}
	tree, err := topology.NewTree(groups, top.Distances())
	if err != nil {
		t.Fatal(err)
	}
	if _, regular := tree.Arity(); regular {
		t.Fatal("NewTree made a regular machine")
	}
	return tree
}

// A grid whose tiling is not proven optimal gets its top-level boxes
// mapped inside as instances of their own (100x30: a better split into
// sockets than the uniform one) and still runs the multisection, and
// keeps the lower J: the multisection's where the uniform tiling cuts
// slabs. Every J is at least the lower bound.
func TestUnprovenStencilTiling(t *testing.T) {
	cases := []struct {
		dims    []int
		h       string
		slabsJ  int64 // the uniform tiling's J
		want    int64 // the J expected; 0: the multisection's, below slabsJ
		onlyOne bool  // the tiling alone runs (large, near the bound)
	}{
		{[]int{7, 11, 13}, "7:11:13", 102358, 0, false},
		{[]int{10, 10, 10}, "8:5:25", 85500, 0, false},
		{[]int{100, 30}, "4:3:250", 184250, 179750, false},
		{[]int{30, 30, 36}, "12:3:900", 2925900, 2877300, true},
	}
	for _, c := range cases {
		if testing.Short() && c.dims[0] == 30 {
			continue
		}
		g := graph.Grid(c.dims...)
		res, top := mapOneToOne(t, g, c.h)
		ran := ranPhase(res, "one-to-one")
		if ran == c.onlyOne {
			t.Errorf("%v on %s: multisection ran: %v, want %v", c.dims, c.h, ran, !c.onlyOne)
		}
		if c.want == 0 && res.Metrics.J >= c.slabsJ || c.want != 0 && res.Metrics.J != c.want {
			t.Errorf("%v on %s: J %d, uniform tiling %d, want %d", c.dims, c.h, res.Metrics.J, c.slabsJ, c.want)
		}
		gr, _ := tiling.Detect(g)
		arity, _ := top.Arity()
		if lb, ok := tiling.LowerBound(gr, arity, top.Distances()); !ok || lb > res.Metrics.J || lb == c.slabsJ {
			t.Errorf("%v on %s: lower bound %d (%v), J %d, tiling %d", c.dims, c.h, lb, ok, res.Metrics.J, c.slabsJ)
		}
	}
}

// One-to-one mapping of inputs that are no grid in rank order (a shuffled
// grid, a shuffled torus) is the same for every thread count: the halves of the
// recursive bisections run side by side on each one's own thread.
func TestOneToOneSameForAnyThreadCount(t *testing.T) {
	torus := graph.NewBuilder(2048)
	for v := 0; v < 2048; v++ {
		x, y := v/32, v%32
		torus.AddEdge(v, x*32+(y+1)%32, 1)
		torus.AddEdge(v, (x+1)%64*32+y, 1)
	}
	tg, _ := torus.Build()
	cases := []struct {
		g *graph.Graph
		h string
	}{
		{shuffled(graph.Grid(24, 24, 16), 5), "16:2:288"},
		{shuffled(tg, 6), "8:2:128"},
	}
	for i, c := range cases {
		top, _ := topology.Parse(c.h, "1:10:100")
		var ref []int32
		for _, threads := range []int{1, 2, 3} {
			opts := DefaultOptions()
			opts.Eps, opts.Threads = 0, threads
			res, err := Map(c.g, top, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !ranPhase(res, "one-to-one") {
				t.Errorf("case %d: no multisection, but it is no grid in rank order", i)
			}
			if ref == nil {
				ref = res.PE
			} else if !slices.Equal(ref, res.PE) {
				t.Errorf("case %d: %d threads give another mapping", i, threads)
			}
		}
	}
}

// A torus (a periodic Cartesian stencil) in rank order is tiled too: J at
// the lower bound, below what the multisection finds on the same torus
// numbered at random.
func TestTorusTiling(t *testing.T) {
	const nx, ny, nz = 16, 16, 8
	b := graph.NewBuilder(nx * ny * nz)
	id := func(x, y, z int) int { return (x%nx*ny+y%ny)*nz + z%nz }
	for x := 0; x < nx; x++ {
		for y := 0; y < ny; y++ {
			for z := 0; z < nz; z++ {
				b.AddEdge(id(x, y, z), id(x+1, y, z), 1)
				b.AddEdge(id(x, y, z), id(x, y+1, z), 1)
				b.AddEdge(id(x, y, z), id(x, y, z+1), 1)
			}
		}
	}
	g, _ := b.Build()
	res, top := mapOneToOne(t, g, "8:2:128")
	gr, ok := tiling.Detect(g)
	if !ok || !slices.Equal(gr.Periodic, []bool{true, true, true}) {
		t.Fatalf("torus detected as %+v, %v", gr, ok)
	}
	arity, _ := top.Arity()
	lb, _ := tiling.LowerBound(gr, arity, top.Distances())
	if res.Metrics.J != lb || ranPhase(res, "one-to-one") {
		t.Errorf("J %d, lower bound %d, phases %v", res.Metrics.J, lb, res.Phases)
	}
	other, _ := mapOneToOne(t, shuffled(g, 9), "8:2:128")
	if other.Metrics.J < res.Metrics.J {
		t.Errorf("the multisection found J %d below the optimum %d", other.Metrics.J, res.Metrics.J)
	}
	t.Logf("torus %dx%dx%d onto 8:2:128: J %d (bound), multisection on the shuffled torus %d", nx, ny, nz, res.Metrics.J, other.Metrics.J)
}

// mapOneToOne maps g onto the machine h (distances 1:10:100) at eps 0 with
// the default options and checks the result.
func mapOneToOne(t *testing.T, g *graph.Graph, h string) (*Result, *topology.Topology) {
	t.Helper()
	top, err := topology.Parse(h, "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Eps = 0
	res, err := Map(g, top, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, g, top, 0, res)
	return res, top
}

// ranPhase reports whether the mapping ran the named phase.
func ranPhase(res *Result, name string) bool {
	return slices.ContainsFunc(res.Phases, func(p PhaseTime) bool { return p.Name == name })
}

// A stencil whose ranks own boxes of unequal sides (edge weight = shared
// face area, per dimension) is proven optimal by the weighted bound: the
// 16x16x16 rank grid of w3d_16x16x16 in ../shared/one-to-one.
func TestWeightedStencilTiling(t *testing.T) {
	const nx, ny, nz = 16, 16, 16
	w := [3]int64{64 * 16, 16 * 32, 32 * 64} // faces across x, y, z of a 32x64x16 box
	b := graph.NewBuilder(nx * ny * nz)
	id := func(x, y, z int) int { return (x*ny+y)*nz + z }
	for x := 0; x < nx; x++ {
		for y := 0; y < ny; y++ {
			for z := 0; z < nz; z++ {
				if x+1 < nx {
					b.AddEdge(id(x, y, z), id(x+1, y, z), w[0])
				}
				if y+1 < ny {
					b.AddEdge(id(x, y, z), id(x, y+1, z), w[1])
				}
				if z+1 < nz {
					b.AddEdge(id(x, y, z), id(x, y, z+1), w[2])
				}
			}
		}
	}
	g, _ := b.Build()
	res, top := mapOneToOne(t, g, "8:2:256")
	gr, _ := tiling.Detect(g)
	arity, _ := top.Arity()
	lb, ok := tiling.LowerBound(gr, arity, top.Distances())
	if !ok || res.Metrics.J != lb || ranPhase(res, "one-to-one") {
		t.Errorf("J %d, lower bound %d (%v), phases %v", res.Metrics.J, lb, ok, res.Phases)
	}
}
