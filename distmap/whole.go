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
	if err := opt.Phases.Done("gather"); err != nil {
		return nil, err
	}
	whole, m, err := mapGathered(g.c, cg, top, opt)
	if err != nil {
		return nil, err
	}
	n := g.N()
	pe := make([]int32, n)
	copy(pe, whole[g.First():g.First()+int64(n)])
	return &Result{PE: pe, Metrics: m, CoarseN: g.GlobalN()}, nil
}

// MapWhole maps the graph g, the same on every rank of c (ReadWhole), as
// Map maps a graph of at most 2^17 vertices (mapWhole), and returns the
// mapping of all vertices and its metrics on every rank (collective;
// every rank returns the same error).
func MapWhole(c mpi.Comm, g *graph.Graph, top *topology.Topology, opt Options) ([]int32, graph.Metrics, error) {
	defer func() { abortOnPanic(c, recover()) }()
	_, _, _, _, rank := mpi.Inspect(c)
	if err := checkOptions(c, rank, top, opt); err != nil {
		return nil, graph.Metrics{}, err
	}
	return mapGathered(c, g, top, opt)
}

// mapGathered maps cg, the same graph on every rank of c, as mapWhole
// does, and returns the whole mapping and its metrics on every rank.
func mapGathered(c mpi.Comm, cg *graph.Graph, top *topology.Topology, opt Options) ([]int32, graph.Metrics, error) {
	_, _, _, size, rank := mpi.Inspect(c)
	o := gpumap.DefaultOptions()
	o.Preset, o.Eps, o.Threads, o.Seed = opt.Preset, opt.Eps, opt.Threads, opt.Seed
	// The ranks of a node would each open the GPU.
	o.Backend = gpumap.CPU
	mine := []gpumap.Options{o}
	if size > 1 {
		mine = dealt(gpumap.Split(cg, top, o), size, rank)
	}
	var whole []int32
	var err error
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
	if err := agree(c, err); err != nil {
		return nil, graph.Metrics{}, err
	}
	if err := opt.Phases.Done("pipelines"); err != nil {
		return nil, graph.Metrics{}, err
	}
	if whole, err = bestWhole(c, rank, cg.N(), whole, j, feasible); err != nil {
		return nil, graph.Metrics{}, err
	}
	// The same graph and mapping on every rank: the same metrics.
	m, err := graph.Evaluate(cg, top, whole, opt.Eps)
	if err := agree(c, err); err != nil {
		return nil, graph.Metrics{}, err
	}
	if err := opt.Phases.Done("minloc, bcast, evaluate"); err != nil {
		return nil, graph.Metrics{}, err
	}
	return whole, m, nil
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
func bestWhole(c mpi.Comm, rank, n int, whole []int32, j int64, feasible bool) ([]int32, error) {
	key := j
	if !feasible {
		key = math.MaxInt64
	}
	best, winner, err := mpi.MinLoc(c, key)
	if err != nil {
		return nil, err
	}
	if best == math.MaxInt64 {
		// No feasible mapping anywhere (a vertex heavier than Lmax):
		// the least J.
		if _, winner, err = mpi.MinLoc(c, min(j, graph.MaxCost)); err != nil {
			return nil, err
		}
	}
	if winner != rank {
		whole = make([]int32, n)
	}
	if err := mpi.BcastOf(c, whole, winner); err != nil {
		return nil, err
	}
	return whole, nil
}
