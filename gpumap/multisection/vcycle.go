package multisection

import (
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// vcycle refines part, a partition of g into len(maxW) blocks within
// their limits, by one V-cycle: g is coarsened with matchings inside the
// blocks (so part stays representable), and on every level, coarsest
// first, two-way FM between adjacent blocks (refinement.PairFM) moves
// whole clusters, which single-vertex FM at exact balance cannot. Limits
// are the real ones on every level: PairFM moves out of the side above its
// limit first and keeps only prefixes within all limits, so part stays
// feasible. It returns the cut reduction.
func vcycle(x *par.Exec, g *graph.Graph, part []int32, maxW []int64, seed uint64, pf refinement.PairFMConfig) int64 {
	k := len(maxW)
	minW := maxW[0]
	for _, w := range maxW {
		minW = min(minW, w)
	}
	levels := coarsening.Coarsen(x, g, coarsening.Config{StopSize: 8 * k, MaxWeight: max(minW/4, 1),
		Block: part, Seed: seed})
	if len(levels) == 0 {
		return 0
	}
	cut := refinement.Cut()
	before := cut.Cost(g, part)
	cur := append([]int32(nil), levels[len(levels)-1].Block...)
	for at := len(levels) - 1; at >= 0; at-- {
		lg := levels[at].Graph
		pf.Seed = seed + uint64(at)
		refinement.PairFM(refinement.NewState(lg, k, cur, maxW, cut), pf)
		fine := part
		if at > 0 {
			fine = make([]int32, levels[at-1].Graph.N())
		}
		coarsening.Project(x, levels[at].CMap, cur, fine)
		cur = fine
	}
	pf.Seed = seed
	refinement.PairFM(refinement.NewState(g, k, part, maxW, cut), pf)
	return before - cut.Cost(g, part)
}
