package refinement

import (
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// flowWorkPerRound bounds what one Flows call may count, in units of the
// graph's size n+2m per round: the piercing loop (up to flowPierceMax
// piercings of a pair, each a search of the whole region, most of them in
// vain) must not make a call cost hundreds of passes over the graph. In
// the pipeline, strong's Alpha 8 on R-MAT 2^14 (gen -t rmat -n 16384 -ef
// 16 -s 3) onto 4:8:4 counted up to 1,273 x (n+2m) in one call, for no
// gain. Here, at flowPierceMax 256: 40-60 x per round; at 32: 6-17 x.
const flowWorkPerRound = 32

// On a dense R-MAT graph cut into 4 blocks by FM at eps 3% (the shape of
// the coarse levels where strong's Alpha 8 spent 3.7x main's CPU on R-MAT
// 2^14 onto 4:8:4 -a hm, for a J 0.6% worse), Flows at Alpha 8 counts at
// most flowWorkPerRound x (n+2m) a round. Fails on wp-flows a913d11.
func TestFlowsWorkBoundedDense(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		g := graph.RMAT(11, 40, seed)
		k := 4
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(v * k / g.N())
		}
		total := int64(0)
		for _, w := range g.VW {
			total += w
		}
		lmax := graph.Lmax(total, k, 0.03)
		maxW := []int64{lmax, lmax, lmax, lmax}
		s := NewState(g, k, part, maxW, Cut())
		RunFM(s, FMConfig{Alpha: 60, Rounds: 4}, -1)
		// A first call takes what there is; the second, on a cut flows
		// and FM already refined (the multilevel scheme's next level),
		// is where the piercing runs in vain.
		Flows(s, FlowConfig{Rounds: 2, Alpha: 8})
		RunFM(s, FMConfig{Alpha: 60, Rounds: 4}, -1)
		var units atomic.Int64
		cfg := FlowConfig{Rounds: 2, Alpha: 8, Count: &units}
		gain := Flows(s, cfg)
		work := units.Load() * flowUnitsPerEntry
		size := int64(g.N() + len(g.Adj))
		t.Logf("seed %d: n %d, 2m %d, work %d = %.1f x (n+2m), gain %d", seed, g.N(), len(g.Adj), work, float64(work)/float64(size), gain)
		if work > flowWorkPerRound*int64(cfg.Rounds)*size {
			t.Errorf("seed %d: Flows counted %d units, %.0f x (n+2m), above %d x a round", seed, work, float64(work)/float64(size), flowWorkPerRound)
		}
	}
}
