package refinement

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// The rule by hand: with alpha 1 and beta 3, steps of equal losses have
// no spread, so the search stops at the first step beyond beta, the
// fourth; steps alternating +2 and -3 have, after an even number s of
// them, mean -1/2 and variance 25/4, and stop once (s-3)/4 > 25/4, at
// s = 30 (after s = 29 the mean is -12/29: 26 x 0.171 = 4.45 < 6.24);
// steps of gain 0 never stop it.
func TestStopRuleHand(t *testing.T) {
	cfg := FMConfig{StopAlpha: 1, StopBeta: 3}
	steps := func(gain func(i int) int64) int {
		r := newStopRule(&cfg, 0)
		for i := 1; i <= 1000; i++ {
			if r.step(gain(i)) {
				return i
			}
		}
		return -1
	}
	if s := steps(func(int) int64 { return -1000 }); s != 4 {
		t.Errorf("gains -1000: stopped after %d steps, want 4", s)
	}
	if s := steps(func(i int) int64 { return []int64{2, -3}[(i-1)%2] }); s != 30 {
		t.Errorf("gains +2, -3, ...: stopped after %d steps, want 30", s)
	}
	if s := steps(func(int) int64 { return 0 }); s != -1 {
		t.Errorf("gains 0: stopped after %d steps, want never", s)
	}
	r := newStopRule(&FMConfig{}, 0)
	for range 100 {
		if r.step(-1000) {
			t.Fatal("the rule stopped a search with StopAlpha 0 (off)")
		}
	}
	r = newStopRule(&cfg, 1)
	for range 100 {
		if r.step(-1000) {
			t.Fatal("the rule stopped a search that started overloaded")
		}
	}
	r = newStopRule(&cfg, 0)
	r.step(-1)
	r.step(-1)
	r.best() // a new best: the walk starts again
	if r.step(-1) || r.step(-1) || r.step(-1) || !r.step(-1) {
		t.Error("after best() the rule did not count from zero")
	}
}

// twoCliques is two cliques of m vertices, one per block, joined by one
// edge (vertex 0 to vertex m): two boundary vertices, and under limits of
// 5m/4 no sequence of moves gains: moving j vertices of a clique to the
// other makes the cut at least j(m-j) - j + 1, above 1 for 0 < j <= m/4+1.
func twoCliques(m int) (*graph.Graph, []int32, []int64) {
	b := graph.NewBuilder(2 * m)
	for side := 0; side < 2; side++ {
		o := side * m
		for i := 0; i < m; i++ {
			for j := i + 1; j < m; j++ {
				b.AddEdge(o+i, o+j, 1)
			}
		}
	}
	b.AddEdge(0, m, 1)
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	part := make([]int32, 2*m)
	for v := m; v < 2*m; v++ {
		part[v] = 1
	}
	lim := int64(m + m/4)
	return g, part, []int64{lim, lim}
}

// Where no move can gain, plain FM's searches walk on as far as Alpha and
// the limits let them (m/4+1 moves from a clique) before rolling back,
// each move updating its neighbours' entries and gains; under the rule
// every move loses about m edges with little spread, so a search stops
// at its first move beyond beta: the round (two searches, one from each
// end of the joining edge) rolls back at most 2(beta+1) moves, and the
// counted work below plain FM's. Both leave the partition as
// it was (FM keeps its best prefix, here the empty one), for either FM.
// (The work of building the cliques' entries is the same in both runs.)
func TestStopRuleEndsFruitlessSearches(t *testing.T) {
	defer func(m int) { ParallelFMMin = m }(ParallelFMMin)
	const m, beta = 64, 3
	g, part0, maxW := twoCliques(m)
	run := func(parallel bool, stopAlpha float64) (undone, work int64) {
		ParallelFMMin = 1 << 30
		if parallel {
			ParallelFMMin = 0
		}
		part := slices.Clone(part0)
		s := NewState(g, 2, part, maxW, Cut())
		var w atomic.Int64
		cfg := FMConfig{Rounds: 1, Alpha: 60, Seed: 4, StopAlpha: stopAlpha, StopBeta: beta, Work: &w}
		var gain int64
		if parallel {
			gain = RunFMParallel(par.New(2), s, cfg, -1)
		} else {
			f := NewFM(s, cfg)
			gain = f.Run(-1)
			undone = f.undone
		}
		if gain != 0 || !slices.Equal(part, part0) || s.Cost() != 1 {
			t.Fatalf("parallel %v, StopAlpha %v: gain %d, cut %d (want 0 and 1, the partition unchanged)", parallel, stopAlpha, gain, s.Cost())
		}
		return undone, w.Load()
	}
	plain, plainWork := run(false, 0)
	stopped, stoppedWork := run(false, 1)
	if stopped > 2*(beta+1) {
		t.Errorf("under the rule the round rolled back %d moves, more than %d", stopped, 2*(beta+1))
	}
	if plain < 4*(beta+1) {
		t.Errorf("plain FM rolled back only %d moves: the graph no longer shows fruitless searches", plain)
	}
	if 4*stoppedWork > 3*plainWork {
		t.Errorf("counted work %d under the rule, %d without: not below three quarters", stoppedWork, plainWork)
	}
	_, parPlain := run(true, 0)
	_, parStopped := run(true, 1)
	if 4*parStopped > 3*parPlain {
		t.Errorf("parallel FM: counted work %d under the rule, %d without: not below three quarters", parStopped, parPlain)
	}
	t.Logf("rolled back %d -> %d moves, work %d -> %d (parallel %d -> %d)", plain, stopped, plainWork, stoppedWork, parPlain, parStopped)
}
