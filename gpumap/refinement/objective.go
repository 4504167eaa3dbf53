package refinement

import (
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"math/bits"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Objective is the cost a refinement minimises: the edge cut (zero value)
// or the mapping cost J on a topology whose PEs are the blocks.
type Objective struct {
	labels    []uint64 // per block; nil for the edge cut
	distOfBit [64]int64
	shifts    []uint  // bit offset of each level's label field, innermost first
	dists     []int64 // d1..dL
}

// Cut is the edge-cut objective: every pair of distinct blocks is 1 apart.
func Cut() Objective { return Objective{} }

// Mapping is the objective J on top: block b is PE b.
func Mapping(top *topology.Topology) Objective {
	o := Objective{labels: top.Labels(), dists: top.Distances()}
	for b := 0; b < 64; b++ {
		o.distOfBit[b] = top.LabelDistance(0, 1<<uint(b))
	}
	o.shifts = top.LabelShifts()
	return o
}

// IsCut reports whether o is the edge cut.
func (o *Objective) IsCut() bool { return o.labels == nil }

// D is the distance between blocks a and b.
func (o *Objective) D(a, b int32) int64 {
	if o.labels == nil {
		if a == b {
			return 0
		}
		return 1
	}
	x := o.labels[a] ^ o.labels[b]
	if x == 0 {
		return 0
	}
	return o.xorDist(x)
}

// xorDist is the distance between two blocks whose labels differ: x, the
// labels' xor, is not 0 (its highest bit is the level where they part).
func (o *Objective) xorDist(x uint64) int64 {
	return o.distOfBit[63-bits.LeadingZeros64(x)]
}

// Cost evaluates the objective of part on g from scratch.
func (o *Objective) Cost(g *graph.Graph, part []int32) int64 {
	return o.cost(g, part, 0, g.N()) / 2
}

// CostParallel is Cost summed over ranges of vertices in parallel (an
// integer sum: the same for any thread count).
func (o *Objective) CostParallel(x *par.Exec, g *graph.Graph, part []int32) int64 {
	return x.SumInt64(g.N(), func(lo, hi int) int64 { return o.cost(g, part, lo, hi) }) / 2
}

// cost sums the objective over the edges of the vertices [lo,hi), each
// undirected edge counted from both ends.
func (o *Objective) cost(g *graph.Graph, part []int32, lo, hi int) int64 {
	var s int64
	for v := lo; v < hi; v++ {
		pv := part[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if pu := part[g.Adj[e]]; pu != pv {
				s += g.W(e) * o.D(pv, pu)
			}
		}
	}
	return s
}
