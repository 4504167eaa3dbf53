package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/tiling"
	"github.com/gpumap/gpumap/topology"
)

// gridTiling maps a one-to-one instance that is exactly a grid in rank
// order (a Cartesian stencil, package tiling) by the best uniform
// hierarchical tiling. proven: no mapping has a lower J (the projection
// bound holds at every level), so nothing else needs to run; otherwise the
// tiling is one more candidate. ok is false when the input is no grid.
func (p *pipeline) gridTiling() (pe []int32, j int64, proven, ok bool) {
	arity, regular := uniformArity(p.top)
	if !regular || p.g.N() != p.top.K() {
		return nil, 0, false, false
	}
	if unit, _ := p.g.UnitWeights(); !unit {
		return nil, 0, false, false
	}
	p.t.phase("tiling", func() {
		gr, isGrid := tiling.Detect(p.g)
		if !isGrid {
			return
		}
		t, found := tiling.Best(gr, arity, p.top.Distances())
		if !found {
			return
		}
		pe, j, ok = tiling.Map(gr, arity, t), t.J, true
		proven = tiling.Optimal(gr, arity, p.top.Distances(), t)
		p.t.logf("one-to-one: grid %s, tiling J %d, optimal: %v", topology.FormatInts(gr.Dims), j, proven)
	})
	return pe, j, proven, ok
}

// uniformArity returns a1..aL when every level-i group of top has the same
// number of PEs (a regular hierarchy, or a tree that is one in fact, as the
// machines hwdetect infers from uniform nodes): PE p's level-i group is
// then p / (a1*...*ai).
func uniformArity(top *topology.Topology) ([]int, bool) {
	if arity, ok := top.Arity(); ok {
		return arity, true
	}
	L := top.Levels()
	arity := make([]int, L)
	below := 1 // PEs of a level-(i-1) group
	for i := 1; i < L; i++ {
		size := top.GroupOf(i, 0).Size()
		for p := size; p < top.K(); p += size {
			if g := top.GroupOf(i, p); g.Lo != p || g.Size() != size {
				return nil, false
			}
		}
		if size%below != 0 {
			return nil, false
		}
		arity[i-1], below = size/below, size
	}
	if top.K()%below != 0 {
		return nil, false
	}
	arity[L-1] = top.K() / below
	return arity, true
}
