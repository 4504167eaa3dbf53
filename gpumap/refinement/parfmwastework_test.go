package refinement

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Issue 25: the parallel FM's rounds end by WasteWork too. On a skewed
// graph whose partition has converged, a round with the bound counts at
// most the bound plus one batch of searches since the last kept move
// (each search at most 2 x Alpha moves of the hub's degree, its squared
// degree and its neighbours' builds), much less in all than without it,
// at a cost within 0.5% of the unbounded round's; and it ends at the same
// place on 1, 2 and 4 threads (the count is taken in seed order at the
// replay, not as the workers finish).
func TestParallelFMWasteWorkBoundsFruitlessRounds(t *testing.T) {
	old := ParallelFMMin
	ParallelFMMin = 0
	defer func() { ParallelFMMin = old }()
	const k, alpha = 8, 30
	g := graph.PowerLaw(4000, 6, 3)
	if underRace { // the same replay on 1, 2 and 4 threads, smaller
		g = graph.PowerLaw(1500, 6, 3)
	}
	n := g.N()
	part := make([]int32, n)
	for v := range part {
		part[v] = int32(v % k)
	}
	maxW := limits3(n, k)
	s := NewState(g, k, part, maxW, Cut())
	RunFMParallel(par.New(2), s, FMConfig{Rounds: 8, Alpha: alpha, Seed: 1}, s.Cost())
	converged := append([]int32(nil), s.Part...)

	run := func(threads int, wasteWork float64) (work, tail, cost int64, part []int32) {
		s := NewState(g, k, append([]int32(nil), converged...), maxW, Cut())
		var w atomic.Int64
		f := newBatchFM(par.New(threads), s, withFMDefaults(s, FMConfig{Rounds: 1, Alpha: alpha, Seed: 2, WasteWork: wasteWork, Work: &w}))
		f.run(s.Cost())
		f.release()
		return w.Load(), f.tailWork, s.Cost(), s.Part
	}
	free, _, freeCost, _ := run(2, 0)
	const wasteWork = 0.5
	bounded, tail, boundedCost, ref := run(1, wasteWork)
	hub := hubDegree(g)
	search := 2 * (alpha + 1) * (hub + hub*hub + hub*hub)
	nb := 0 // the round's seeds: its batches are cut from their number
	for v := int32(0); v < int32(n); v++ {
		if s.IsBoundary(v) && g.XAdj[v+1]-g.XAdj[v] <= hub {
			nb++
		}
	}
	batch := int64(min(max(nb/256, 8), 256))
	if limit := int64(wasteWork*float64(len(g.Adj))) + batch*search; tail > limit {
		t.Errorf("with WasteWork %v the round's fruitless searches counted %d entries, more than %d", wasteWork, tail, limit)
	}
	if tail <= int64(wasteWork*float64(len(g.Adj))) {
		t.Errorf("the round ended with %d entries counted since the last kept move, within the bound: the test graph no longer reaches it", tail)
	}
	if free < 2*bounded {
		t.Errorf("without the bound the round counted only %d entries (bounded: %d): the bound did not end the round early", free, bounded)
	}
	if boundedCost > freeCost+freeCost/200 {
		t.Errorf("cost %d with the bound, %d without", boundedCost, freeCost)
	}
	for _, threads := range []int{2, 4} {
		work, tail2, _, p := run(threads, wasteWork)
		if work != bounded || tail2 != tail || !slices.Equal(p, ref) {
			t.Errorf("threads=%d: counted %d (tail %d), threads=1 %d (tail %d), partitions equal: %v", threads, work, tail2, bounded, tail, slices.Equal(p, ref))
		}
	}
	t.Logf("counted: %d without the bound, %d with (tail %d, 2m %d); cost %d / %d", free, bounded, tail, len(g.Adj), freeCost, boundedCost)
}

// The parallel FM's stamps come from a pool with their round counter
// going on from the last run: a run after others gives the mapping a
// fresh one gives (the heap's tie-break counts rounds from the run's
// start).
func TestParallelFMPooledStampsSameResult(t *testing.T) {
	old := ParallelFMMin
	ParallelFMMin = 0
	defer func() { ParallelFMMin = old }()
	const k = 8
	g := graph.RandomGeometric(20000, 4)
	other := graph.RandomGeometric(30000, 5)
	if underRace {
		g, other = graph.RandomGeometric(4000, 4), graph.RandomGeometric(6000, 5)
	}
	run := func(g *graph.Graph) []int32 {
		part, maxW := stripes(g, k)
		s := NewState(g, k, part, maxW, Cut())
		RunFMParallel(par.New(2), s, FMConfig{Rounds: 3, Alpha: 20, Seed: 4}, s.Cost())
		return s.Part
	}
	stamps.drop()
	fresh := run(g)
	release := Keep()
	defer release()
	run(other)
	run(g)
	if m := stamps.get(); m == nil || m.round == 0 {
		t.Fatalf("no stamps with rounds in the pool: nothing tested")
	} else {
		stamps.put(m)
	}
	if !slices.Equal(run(g), fresh) {
		t.Errorf("a run on pooled stamps differs from a run on fresh ones")
	}
}
