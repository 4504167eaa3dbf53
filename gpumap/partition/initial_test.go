package partition

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// Partition started from Initial's partition (Config.Initial) is the
// partition it computes without one, for bisections and k-way splits, and
// a user that releases a shared hierarchy lets its levels go once the
// other users are done.
func TestInitialIsTheMultilevelStart(t *testing.T) {
	g := graph.RandomGeometric(6000, 3)
	for _, k := range []int{2, 4, 6} {
		maxW := limits(g.TotalVertexWeight(), k, 0.03)
		cfg := Config{Seed: 7, Tries: 4, LPRounds: 2, FMRounds: 2, Local: true, FM: refinement.FMConfig{Alpha: 30}}
		if !SharedCoarsening(g, maxW, cfg) {
			t.Fatalf("k=%d: the configuration shares no coarsening", k)
		}
		plain := cfg
		plain.Levels = Coarsen(par.New(1), g, maxW, cfg, 1)
		want := Partition(par.New(1), g, maxW, plain)

		started := cfg
		started.Levels = Coarsen(par.New(1), g, maxW, cfg, 2)
		started.Initial = Initial(par.New(1), g, maxW, started)
		if len(started.Initial) != started.Levels.levels[len(started.Levels.levels)-1].Graph.N() {
			t.Fatalf("k=%d: Initial partitioned %d vertices, not the coarsest graph", k, len(started.Initial))
		}
		start := slices.Clone(started.Initial)
		started.Levels.Release() // the second user
		for _, threads := range []int{1, 2, 4} {
			if threads > 1 {
				started.Levels = Coarsen(par.New(1), g, maxW, cfg, 1)
			}
			if got := Partition(par.New(threads), g, maxW, started); !slices.Equal(got, want) {
				t.Fatalf("k=%d, %d threads: the partition started from Initial differs", k, threads)
			}
			if !slices.Equal(started.Initial, start) {
				t.Fatalf("k=%d: Partition changed Config.Initial", k)
			}
			for i, l := range started.Levels.levels {
				if l.Graph != nil {
					t.Fatalf("k=%d: level %d kept after its last user", k, i)
				}
			}
		}
	}
}
