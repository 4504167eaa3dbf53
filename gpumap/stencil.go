package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/tiling"
	"github.com/gpumap/gpumap/topology"
)

// gridTiling maps a one-to-one instance that is exactly a grid in rank
// order (a Cartesian stencil, package tiling) by the best uniform
// hierarchical tiling. enough: no mapping has a lower J (the tiling meets
// the lower bound), or, above the preset's largeN tasks (where one cheap
// recursive bisection runs), its J is within nearBound of the bound, so
// nothing else needs to run; otherwise the tiling is one more candidate.
// ok is false when the input is no grid.
func (p *pipeline) gridTiling() (pe []int32, j int64, enough, ok bool) {
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
		lb, bounded := tiling.LowerBound(gr, arity, p.top.Distances())
		switch {
		case !bounded:
			p.t.logf("one-to-one: grid %s, tiling J %d, no lower bound", topology.FormatInts(gr.Dims), j)
		case j == lb:
			enough = true
			p.t.logf("one-to-one: grid %s, tiling J %d, optimal (the lower bound)", topology.FormatInts(gr.Dims), j)
		default:
			enough = p.g.N() > p.cfg.oneToOne.largeN && float64(j) <= (1+nearBound)*float64(lb)
			p.t.logf("one-to-one: grid %s, tiling J %d, lower bound %d (+%.2f%%)", topology.FormatInts(gr.Dims), j, lb, 100*(float64(j)/float64(lb)-1))
		}
	})
	return pe, j, enough, ok
}

// nearBound: above largeN tasks a tiling whose J is within this fraction
// of the lower bound is kept without running the multisection. On 14
// stencils of 27,000-36,000 ranks the multisection beat the tiling only
// where the tiling was 7-29% above the bound (30x30x30 onto 12:2:1125,
// 40x30x30 onto 16:2:1125, 25^3 onto 5:5:625), and came out 4-11% above
// the bound everywhere; at 1-7% the tiling won every time (30x30x36 onto
// 12:3:900: tiling 2.6% above the bound, multisection 10.8%).
const nearBound = 0.03

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
