package multisection

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Tries whose coarsest partitions are equal run once: three tries of one
// configuration are one run.
func TestDistinctStartsDropsRepeatedStarts(t *testing.T) {
	g := graph.Grid(64, 64)
	maxW := []int64{2110, 2110}
	pc := partition.Config{Tries: 4, LPRounds: 2, FMRounds: 2, Local: true, Seed: 5, FM: refinement.FMConfig{Alpha: 30}}
	levels := partition.Coarsen(par.New(1), g, maxW, pc, 3)
	runs, starts := distinctStarts(par.New(1), g, maxW, levels, func(int) partition.Config { return pc }, 3)
	if !slices.Equal(runs, []int{0}) || len(starts) != 1 {
		t.Fatalf("three tries from one start ran as %v", runs)
	}
	// The one that runs takes the start and the hierarchy: a bisection
	// within the limits.
	pc.Levels, pc.Initial = levels, starts[0]
	part := partition.Partition(par.New(1), g, maxW, pc)
	var w [2]int64
	for v, b := range part {
		w[b] += g.VW[v]
	}
	if w[0] > maxW[0] || w[1] > maxW[1] {
		t.Fatalf("blocks of %v past the limits %v", w, maxW)
	}
}

// The top split's tries are chosen from their starts alone, so the
// mapping is the same on any thread count (the tries run side by side on
// a shared hierarchy from 2^16 vertices on).
func TestTopTriesSameOnAnyThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("maps a 2^16-vertex grid three times")
	}
	g := graph.Grid(256, 256)
	top, _ := topology.Parse("4:8:2", "1:10:100")
	cfg := Config{Eps: 0.03, Seed: 3, TopTries: 3, SlackDepth: 0.03,
		Partition: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2, FM: refinement.FMConfig{Alpha: 30}}}
	want := Map(par.New(1), g, top, cfg)
	check(t, g, top, 0.03, want)
	for _, threads := range []int{2, 4} {
		if got := Map(par.New(threads), g, top, cfg); !slices.Equal(got, want) {
			t.Fatalf("%d threads map differently from 1", threads)
		}
	}
}
