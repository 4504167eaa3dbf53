package distmap

import (
	"math"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// mapWhole maps a graph that is not coarsened (at most coarsestSize
// vertices) as the one-process mapper does, with its pipelines spread
// over the ranks (collective). Every rank gathers the graph; the
// pipelines that gpumap.Map runs side by side and keeps the best of
// (gpumap.Split: default's HM and IM below 2^18 edges, otherwise its one
// pipeline) are dealt out: with C of them, rank r runs pipeline r mod C
// with the seed plus r/C (P > C: the extra ranks try further seeds), and
// a rank of fewer than C runs pipelines r, r+P, ...; at P = 1 that is
// gpumap.Map itself on the rank's threads. The least J wins (feasible
// first, then the lowest rank, which runs the first pipeline: Map's own
// order) with one allreduce, and its mapping is broadcast. So at P >= C
// the distributed mapping is the one-process mapping (seed and options
// alike) or one of lower J, in about the wall time of the one-process
// run on C threads, and the same P gives the same mapping.
//
// No refinement follows: a gathered graph is the one-process mapper's
// input, and its FM and label propagation have run to the end (before,
// the ranks refined again with the distributed levels' label
// propagation and FM, 1.6 s of a 5.2 s run on R-MAT 2^16 at P=1 for
// J -3%, and forced HM on R-MAT, where default runs IM alone, took 9 s
// of CPU at P=2).
func mapWhole(g *Graph, top *topology.Topology, opt Options) (*Result, error) {
	cg, err := gather(g)
	if err != nil {
		return nil, err
	}
	o := gpumap.DefaultOptions()
	o.Preset, o.Eps, o.Threads, o.Seed = opt.Preset, opt.Eps, opt.Threads, opt.Seed
	// The ranks of a node would each open the GPU.
	o.Backend = gpumap.CPU
	mine := []gpumap.Options{o}
	if g.size > 1 {
		mine = dealt(gpumap.Split(cg, top, o), g.size, g.rank)
	}
	var whole []int32
	j, feasible := int64(math.MaxInt64), false
	for _, x := range mine {
		r, e := gpumap.Map(cg, top, x)
		if e != nil {
			err = e
			break
		}
		if whole == nil || r.Metrics.Feasible && !feasible || r.Metrics.Feasible == feasible && r.Metrics.J < j {
			whole, j, feasible = r.PE, r.Metrics.J, r.Metrics.Feasible
		}
	}
	if err := agree(g.c, err); err != nil {
		return nil, err
	}
	if whole, err = bestWhole(g, whole, j, feasible); err != nil {
		return nil, err
	}
	n := g.N()
	pe := make([]int32, n+len(g.Ghost))
	copy(pe, whole[g.First():g.First()+int64(n)])
	for i, x := range g.Ghost {
		pe[n+i] = whole[x]
	}
	m, err := evaluate(g, top, pe, opt.Eps)
	if err != nil {
		return nil, err
	}
	return &Result{PE: pe[:n], Metrics: m, CoarseN: g.GlobalN()}, nil
}

// dealt returns the options that rank of size ranks runs out of the
// pipelines cands (see mapWhole).
func dealt(cands []gpumap.Options, size, rank int) []gpumap.Options {
	c := len(cands)
	if size < c {
		var mine []gpumap.Options
		for i := rank; i < c; i += size {
			mine = append(mine, cands[i])
		}
		return mine
	}
	o := cands[rank%c]
	o.Seed += uint64(rank / c)
	return []gpumap.Options{o}
}

// bestWhole returns, on every rank, the mapping whole of the rank with
// the least J among those with feasible mappings (all when none is), the
// lowest such rank on ties (collective).
func bestWhole(g *Graph, whole []int32, j int64, feasible bool) ([]int32, error) {
	key := j
	if !feasible {
		key = math.MaxInt64
	}
	best, winner, err := mpi.MinLoc(g.c, key)
	if err != nil {
		return nil, err
	}
	if best == math.MaxInt64 {
		// No feasible mapping anywhere (a vertex heavier than Lmax):
		// the least J.
		if _, winner, err = mpi.MinLoc(g.c, min(j, graph.MaxCost)); err != nil {
			return nil, err
		}
	}
	if winner != g.rank {
		whole = make([]int32, g.GlobalN())
	}
	if err := mpi.BcastOf(g.c, whole, winner); err != nil {
		return nil, err
	}
	return whole, nil
}
