package gpumap

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
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
					if !slices.ContainsFunc(res.Phases, func(p PhaseTime) bool { return p.Name == "tiling" }) ||
						slices.ContainsFunc(res.Phases, func(p PhaseTime) bool { return p.Name == "one-to-one" }) {
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

// A grid whose tiling is not proven optimal still runs the multisection,
// and keeps the lower J of the two (here the multisection's).
func TestUnprovenStencilTiling(t *testing.T) {
	top, _ := topology.Parse("7:11:13", "1:10:100")
	g := graph.Grid(7, 11, 13)
	opts := DefaultOptions()
	opts.Eps = 0
	res, err := Map(g, top, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, g, top, 0, res)
	if !slices.ContainsFunc(res.Phases, func(p PhaseTime) bool { return p.Name == "one-to-one" }) {
		t.Errorf("phases %v: the multisection did not run", res.Phases)
	}
	// the uniform tiling of 7x11x13 onto 7:11:13 cuts slabs: J 102358
	if res.Metrics.J >= 102358 {
		t.Errorf("J %d, not below the slab tiling's 102358", res.Metrics.J)
	}
}
