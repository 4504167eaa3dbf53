package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
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
		if !bounded || j > lb {
			if pe2, j2, better := p.remapBoxes(gr, arity, t, pe); better && j2 < j {
				p.t.logf("one-to-one: the top-level boxes mapped inside: J %d -> %d", j, j2)
				pe, j = pe2, j2
			}
		}
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

// remapBoxes keeps the top level of tiling t (its boxes, one per
// top-level group) and maps the inside of the first box again, as a
// one-to-one instance of its own onto the levels below (the tiling of the
// box, or a better split of it into unequal parts), then copies that to
// every box: they are translates, so each gains the same. ok is false when
// there is nothing to remap (fewer than three levels).
func (p *pipeline) remapBoxes(gr tiling.Grid, arity []int, t tiling.Tiling, pe []int32) (out []int32, j int64, ok bool) {
	L := len(arity)
	if L < 3 {
		return nil, 0, false
	}
	index, first, _ := gr.Boxes(t, L-1)
	span := p.top.K() / arity[L-1]
	b := graph.NewBuilder(span)
	for v := range index {
		if !first[v] {
			continue
		}
		for e := p.g.XAdj[v]; e < p.g.XAdj[v+1]; e++ {
			if u := p.g.Adj[e]; first[u] && int(u) > v {
				b.AddEdge(int(index[v]), int(index[u]), p.g.W(e))
			}
		}
	}
	box, err := b.Build()
	if err != nil {
		return nil, 0, false
	}
	sub, err := topology.NewRegular(arity[:L-1], p.top.Distances()[:L-1])
	if err != nil {
		return nil, 0, false
	}
	opt := p.opt
	opt.Eps, opt.Progress, opt.Stats = 0, nil, false
	res, err := Map(box, sub, opt)
	if err != nil {
		return nil, 0, false
	}
	out = make([]int32, len(pe))
	for v := range out {
		out[v] = pe[v]/int32(span)*int32(span) + res.PE[index[v]]
	}
	obj := refinement.Mapping(p.top)
	return out, obj.Cost(p.g, out), true
}

// nearBound: above largeN tasks a tiling whose J is within this fraction
// of the lower bound is kept without running the multisection. On 14
// stencils of 10,000-36,000 ranks the multisection beat the tiling (boxes
// remapped) only where the tiling was 7-29% above the bound (30x30x30
// onto 12:2:1125, 40x30x30 onto 16:2:1125, 25^3 onto 5:5:625), and came
// out 4-11% above the bound everywhere; at 1-7% the tiling won every time
// (30x30x36 onto 12:3:900: tiling 0.85% above the bound, multisection
// 10.8%; 100x100 onto 20:5:100: 1.6%, multisection at least 6.1%).
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
