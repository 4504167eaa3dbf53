package refinement

import (
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// Issue 25: on a skewed graph whose partition FM has converged, a round's
// searches keep almost nothing, and each rolled-back move costs its
// neighbours' entry lists. With WasteWork the round ends once the searches
// since the last kept move have counted WasteWork x 2m entries: that tail
// stays within the bound plus one search (counted, not timed: at most
// 2 x Alpha moves, each counting at most its degree and its neighbours'
// entries, squared degree, and the builds of the neighbours' entries), the
// round counts much less in all, and the cost stays within 0.5% of the
// unbounded round's.
func TestFMWasteWorkBoundsFruitlessRounds(t *testing.T) {
	const k, alpha = 8, 30
	g := graph.PowerLaw(4000, 6, 3)
	n := g.N()
	part := make([]int32, n)
	for v := range part {
		part[v] = int32(v % k)
	}
	maxW := limits3(n, k)
	s := NewState(g, k, part, maxW, Cut())
	RunFM(s, FMConfig{Rounds: 8, Alpha: alpha, Seed: 1}, s.Cost())
	converged := append([]int32(nil), s.Part...)

	run := func(wasteWork float64) (work, tail, cost int64) {
		s := NewState(g, k, append([]int32(nil), converged...), maxW, Cut())
		var w atomic.Int64
		f := NewFM(s, FMConfig{Rounds: 1, Alpha: alpha, Seed: 2, WasteWork: wasteWork, Work: &w})
		f.Run(s.Cost())
		return w.Load(), f.tailWork, s.Cost()
	}
	free, _, freeCost := run(0)
	const wasteWork = 0.5
	bounded, tail, boundedCost := run(wasteWork)
	hub := hubDegree(g)
	search := 2 * (alpha + 1) * (hub + hub*hub + hub*hub)
	if limit := int64(wasteWork*float64(len(g.Adj))) + search; tail > limit {
		t.Errorf("with WasteWork %v the round's fruitless searches counted %d entries, more than %d", wasteWork, tail, limit)
	}
	if free < 2*bounded {
		t.Errorf("without the bound the round counted only %d entries (bounded: %d): the test graph no longer shows fruitless work", free, bounded)
	}
	if boundedCost > freeCost+freeCost/200 {
		t.Errorf("cost %d with the bound, %d without", boundedCost, freeCost)
	}
	t.Logf("counted: %d without the bound, %d with (tail %d, 2m %d); cost %d / %d", free, bounded, tail, len(g.Adj), freeCost, boundedCost)
}
