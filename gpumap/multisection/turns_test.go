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

// The top split's tries share one hierarchy and take turns
// (partition.Hierarchy.Turns) for any number of tries against threads:
// fewer threads than tries (2 of 3, 3 of 8), as many, and more (5 for 3);
// the mapping is the one thread's. Small enough for the race detector,
// which the gpumap package's thread tests do not reach this path under.
func TestTopTriesTakeTurnsAnyWorkerCount(t *testing.T) {
	defer func(n int) { refinement.ParallelFMMin = n }(refinement.ParallelFMMin)
	refinement.ParallelFMMin = 1 << 12
	top, _ := topology.Parse("4:8:3", "1:10:100")
	g := graph.Grid(40, 40, 6) // 9600 vertices, local numbering: natural-order tries
	if underRace {
		g = graph.Grid(32, 24, 6) // 4608
	}
	for _, tries := range []int{3, 8} {
		cfg := Config{Eps: 0.03, Seed: 3, TopTries: tries,
			Partition: partition.Config{Tries: 2, LPRounds: 2, FMRounds: 1}}
		var ref []int32
		for _, threads := range []int{1, 2, 3, 5} {
			pe := Map(par.New(threads), g, top, cfg)
			check(t, g, top, 0.03, pe)
			if ref == nil {
				ref = pe
			} else if !slices.Equal(pe, ref) {
				t.Fatalf("%d tries, threads=%d: another mapping than threads=1", tries, threads)
			}
		}
	}
}
