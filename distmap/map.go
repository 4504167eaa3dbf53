package distmap

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// Options configures Map.
type Options struct {
	Eps     float64       // allowed imbalance: Lmax = ceil((1+Eps) c(V)/k)
	Seed    uint64        // the same seed, graph and rank count give the same mapping
	Threads int           // threads per process for the coarsest graph's mapping (0: all cores)
	Preset  gpumap.Preset // the preset of the coarsest graph's mapping
	// Coarsest is the size (vertices) at which coarsening stops; 0 means
	// max(8000, 20k). Small values let tests contract small graphs.
	Coarsest int64
}

// Result is a distributed mapping.
type Result struct {
	PE      []int32       // PE of every local vertex
	Metrics graph.Metrics // of the whole mapping, the same on every rank
	Levels  int           // contractions before the coarsest graph
	CoarseN int64         // vertices of the coarsest graph
}

// Tuning, fixed for now (the same on every rank).
const (
	clusterRounds = 4
	refineRounds  = 6
	maxLevels     = 40
	initialTries  = 4
	gatherFM      = 16 // levels of at most 16 x the coarsest size get gpumap's FM
)

// coarsestSize is the number of vertices below which the graph is small
// enough to map whole on every process.
func coarsestSize(k int, opt Options) int64 {
	if opt.Coarsest > 0 {
		return opt.Coarsest
	}
	return max(8000, 20*int64(k))
}

// Map maps the distributed graph g onto top (see the package comment).
// Collective over the communicator g was read or built on; every rank
// returns the same error.
func Map(g *Graph, top *topology.Topology, opt Options) (res *Result, err error) {
	defer func() { abortOnPanic(g.c, recover()) }()
	var bad error
	if !gpumap.ValidEps(opt.Eps) {
		bad = &Error{KindOptions, fmt.Sprintf("eps %v must be a finite number in [0, 1e6]", opt.Eps)}
	}
	if err := agree(g.c, bad); err != nil {
		return nil, err
	}
	if err := sameOptions(g, top, opt); err != nil {
		return nil, err
	}
	k := top.K()
	sums, err := sumAll(g.c, localWeight(g.VW), localWeight(g.W))
	if err != nil {
		return nil, err
	}
	total := sums[0]
	// Every edge is stored twice; J must fit, as in gpumap map.
	if w, d := sums[1]/2, top.MaxDistance(); d > 0 && w > graph.MaxCost/d {
		return nil, &Error{KindGraph, fmt.Sprintf("the edge weights sum to %d and the largest distance is %d: J could reach their product, more than %d (2^62); scale the edge weights or the distances down", w, d, int64(graph.MaxCost))}
	}
	lmax := graph.Lmax(total, k, opt.Eps)
	small := coarsestSize(k, opt)
	limit := max(1, (total+small-1)/small)
	// Coarsen until small or stalled.
	var levels []*level
	cur := g
	for len(levels) < maxLevels && cur.GlobalN() > small {
		label, err := cluster(cur, limit, clusterRounds, opt.Seed, len(levels))
		if err != nil {
			return nil, err
		}
		lv, err := contract(cur, label)
		if err != nil {
			return nil, err
		}
		if lv.coarse.GlobalN() > cur.GlobalN()*9/10 {
			// Stalled: too little gained for a level.
			if lv.coarse.GlobalN() == cur.GlobalN() {
				break
			}
			levels = append(levels, lv)
			cur = lv.coarse
			break
		}
		levels = append(levels, lv)
		cur = lv.coarse
	}
	if cur.GlobalN() > graph.MaxVertices {
		return nil, fmt.Errorf("the graph coarsened to %d vertices only, more than one process maps (%d)", cur.GlobalN(), graph.MaxVertices)
	}
	pe, err := initial(cur, top, opt)
	if err != nil {
		return nil, err
	}
	// Uncoarsen: project and refine on every level, the input's included.
	for i := len(levels); i >= 0; i-- {
		fine := g
		if i > 0 {
			fine = levels[i-1].coarse
		}
		if i < len(levels) {
			if pe, err = project(fine, levels[i], pe[:levels[i].coarse.N()]); err != nil {
				return nil, err
			}
			gpe, err := exchange(fine, pe)
			if err != nil {
				return nil, err
			}
			pe = append(pe, gpe...)
		}
		if i < len(levels) && fine.GlobalN() <= gatherFM*small {
			if err := gatheredFM(fine, top, pe, lmax, opt); err != nil {
				return nil, err
			}
		}
		if err := refine(fine, top, pe, lmax, refineRounds, opt.Seed, i); err != nil {
			return nil, err
		}
	}
	m, err := evaluate(g, top, pe, opt.Eps)
	if err != nil {
		return nil, err
	}
	return &Result{PE: pe[:g.N()], Metrics: m, Levels: len(levels), CoarseN: cur.GlobalN()}, nil
}

// localWeight sums weights that check has bounded.
func localWeight(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// gather returns the whole graph g on every rank (collective; the same
// error on every rank).
func gather(g *Graph) (*graph.Graph, error) {
	n := g.N()
	deg := make([]int64, n)
	adj := make([]int64, len(g.Adj))
	for v := range n {
		deg[v] = g.XAdj[v+1] - g.XAdj[v]
	}
	for e, u := range g.Adj {
		adj[e] = g.global(u)
	}
	allDeg, _, err := mpi.Allgatherv(g.c, deg, g.size)
	if err != nil {
		return nil, err
	}
	allAdj, _, err := mpi.Allgatherv(g.c, adj, g.size)
	if err != nil {
		return nil, err
	}
	allW, _, err := mpi.Allgatherv(g.c, g.W, g.size)
	if err != nil {
		return nil, err
	}
	allVW, _, err := mpi.Allgatherv(g.c, g.VW, g.size)
	if err != nil {
		return nil, err
	}
	xadj := make([]int64, len(allDeg)+1)
	for v, d := range allDeg {
		xadj[v+1] = xadj[v] + d
	}
	adj32 := make([]int32, len(allAdj))
	for e, u := range allAdj {
		adj32[e] = int32(u)
	}
	cg, err := graph.FromCSR(xadj, adj32, allVW, allW)
	return cg, agree(g.c, err)
}

// gatheredFM improves the mapping pe (local vertices and ghosts) of a
// graph small enough to gather: every rank refines the whole graph with
// gpumap's FM on J (its own seed), the least J is kept. It refines what
// label propagation cannot: moves that pay only after others.
func gatheredFM(g *Graph, top *topology.Topology, pe []int32, lmax int64, opt Options) error {
	whole, err := gather(g)
	if err != nil {
		return err
	}
	all, _, err := mpi.Allgatherv(g.c, pe[:g.N()], g.size)
	if err != nil {
		return err
	}
	maxW := make([]int64, top.K())
	for p := range maxW {
		maxW[p] = lmax
	}
	s := refinement.NewState(whole, top.K(), all, maxW, refinement.Mapping(top))
	refinement.RunFM(s, refinement.FMConfig{Seed: opt.Seed + uint64(g.rank)}, -1)
	j := s.Cost()
	if s.Overloaded() > 0 {
		j = math.MaxInt64
	}
	_, winner, err := mpi.MinLoc(g.c, j)
	if err != nil {
		return err
	}
	if err := mpi.BcastOf(g.c, s.Part, winner); err != nil {
		return err
	}
	n := g.N()
	copy(pe, s.Part[g.First():g.First()+int64(n)])
	for i, x := range g.Ghost {
		pe[n+i] = s.Part[x]
	}
	return nil
}

// initial maps the coarsest graph: every rank gathers it whole and maps
// it with gpumap.Map and its own seed (seed + rank); the mapping of the
// least J (lowest rank among equals) is kept. It returns the PEs of the
// local vertices and ghosts.
func initial(g *Graph, top *topology.Topology, opt Options) ([]int32, error) {
	cg, err := gather(g)
	if err != nil {
		return nil, err
	}
	var whole []int32
	j := int64(math.MaxInt64)
	{
		o := gpumap.DefaultOptions()
		o.Preset, o.Eps, o.Threads = opt.Preset, opt.Eps, opt.Threads
		// At least initialTries mappings in all: few ranks try several
		// seeds each (seed + rank + t*size).
		for t := range (initialTries + g.size - 1) / g.size {
			o.Seed = opt.Seed + uint64(g.rank) + uint64(t*g.size)
			var r *gpumap.Result
			if r, err = gpumap.Map(cg, top, o); err != nil {
				break
			}
			x := r.Metrics.J
			if !r.Metrics.Feasible {
				x = math.MaxInt64 // any feasible mapping first
			}
			if whole == nil || x < j {
				whole, j = r.PE, x
			}
		}
	}
	if err := agree(g.c, err); err != nil {
		return nil, err
	}
	_, winner, err := mpi.MinLoc(g.c, j)
	if err != nil {
		return nil, err
	}
	if winner != g.rank {
		whole = make([]int32, g.GlobalN())
	}
	if err := mpi.BcastOf(g.c, whole, winner); err != nil {
		return nil, err
	}
	n := g.N()
	pe := make([]int32, n+len(g.Ghost))
	copy(pe, whole[g.First():g.First()+int64(n)])
	for i, x := range g.Ghost {
		pe[n+i] = whole[x]
	}
	return pe, nil
}

// evaluate computes the metrics of the mapping pe (local vertices and
// ghosts) of g exactly as graph.Evaluate does for the whole graph.
func evaluate(g *Graph, top *topology.Topology, pe []int32, eps float64) (graph.Metrics, error) {
	k, n, L := top.K(), g.N(), top.Levels()
	labels := top.Labels()
	// J, cut, cut per level, then the loads of the k PEs.
	sums := make([]int64, 2+L+k)
	var bad error
	for v := range n {
		p := pe[v]
		sums[2+L+int(p)] += g.VW[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			q := pe[g.Adj[e]]
			if q == p {
				continue
			}
			w := g.W[e]
			d := top.LabelDistance(labels[p], labels[q])
			if w > 0 && d > (math.MaxInt64-sums[0])/w {
				bad = errors.New("J overflows int64")
			}
			sums[0] += w * d
			sums[1] += w
			for i := range top.CommonLevel(int(p), int(q)) {
				sums[2+i] += w
			}
		}
	}
	if err := agree(g.c, bad); err != nil {
		return graph.Metrics{}, err
	}
	if err := mpi.Allreduce(g.c, sums, mpi.Sum); err != nil {
		return graph.Metrics{}, err
	}
	// Every edge was counted from both ends.
	m := graph.Metrics{J: sums[0] / 2, Cut: sums[1] / 2, CutPerLevel: make([]int64, L)}
	for i := range L {
		m.CutPerLevel[i] = sums[2+i] / 2
	}
	var total int64
	for _, x := range sums[2+L:] {
		m.MaxBlock = max(m.MaxBlock, x)
		total += x
	}
	m.Lmax = graph.Lmax(total, k, eps)
	if total > 0 {
		m.Imbalance = float64(m.MaxBlock)/(float64(total)/float64(k)) - 1
	}
	m.Feasible = m.MaxBlock <= m.Lmax
	return m, nil
}
