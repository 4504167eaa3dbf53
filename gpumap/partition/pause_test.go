package partition

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// A multilevel partition paused before the input graph's level and then
// finished is the partition that Partition returns without Pause, on one
// thread and two, with its own coarsening and with a shared one; where
// Partition coarsens nothing it returns the partition and leaves Pause
// unset.
func TestPauseFinishIsPartition(t *testing.T) {
	fm := refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25}
	for _, g := range []*graph.Graph{graph.RandomGeometric(20000, 3), graph.Grid(60, 50, 4)} {
		maxW := limits(g.TotalVertexWeight(), 6, 0.03)
		for _, threads := range []int{1, 2} {
			x := par.New(threads)
			for seed := range uint64(3) {
				cfg := Config{Tries: 8, LPRounds: 2, FMRounds: 2, FM: fm, Seed: seed, Natural: seed%2 == 0}
				want := Partition(x, g, maxW, cfg)
				var p Paused
				pc := cfg
				pc.Pause = &p
				if got := Partition(x, g, maxW, pc); got != nil || p.Part == nil || p.Coarse.N() >= g.N() {
					t.Fatalf("n=%d seed %d: not paused before the input graph", g.N(), seed)
				}
				if got := p.Finish(x); !slices.Equal(got, want) {
					t.Errorf("n=%d threads %d seed %d: finished pause differs from Partition", g.N(), threads, seed)
				}
				if SharedCoarsening(g, maxW, cfg) {
					var q Paused
					pc.Pause, pc.Levels = &q, Coarsen(x, g, maxW, cfg, 1)
					if Partition(x, g, maxW, pc) != nil || !slices.Equal(q.Finish(x), want) {
						t.Errorf("n=%d threads %d seed %d: with a shared hierarchy, not Partition's", g.N(), threads, seed)
					}
				}
			}
		}
	}
	small := graph.Grid(8, 8, 1)
	var p Paused
	if part := Partition(par.New(1), small, limits(64, 2, 0.03), Config{Pause: &p}); part == nil || p.Part != nil {
		t.Errorf("a flat bisection paused")
	}
}
