package refinement

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// FMConfig.Work: the count is the same for any thread count (strong
// budgets by it, and its mapping must not depend on the threads), and it
// is at least the degree of every vertex a kept move moved (each move
// updates its neighbours' entries).
func TestFMWorkCounted(t *testing.T) {
	defer func(m int) { ParallelFMMin = m }(ParallelFMMin)
	top, _ := topology.Parse("4:8:3", "1:10:100")
	g := graph.RandomGeometric(20000, 4)
	for _, parallel := range []bool{false, true} {
		ParallelFMMin = 1 << 30
		if parallel {
			ParallelFMMin = 0
		}
		var first int64
		for i, threads := range []int{1, 2, 4} {
			part, maxW := stripes(g, top.K())
			before := slices.Clone(part)
			var w atomic.Int64
			s := NewState(g, top.K(), part, maxW, Mapping(top))
			cfg := FMConfig{Rounds: 2, Alpha: 20, SkipExplored: true, Seed: 3, Work: &w}
			gain := RunFMParallel(par.New(threads), s, cfg, -1)
			moved := int64(0)
			for v := range part {
				if part[v] != before[v] {
					moved += g.XAdj[v+1] - g.XAdj[v]
				}
			}
			if gain <= 0 || w.Load() < moved {
				t.Fatalf("parallel %v threads %d: gain %d, counted work %d, below the moved vertices' degrees %d",
					parallel, threads, gain, w.Load(), moved)
			}
			if i == 0 {
				first = w.Load()
			} else if w.Load() != first {
				t.Fatalf("parallel %v: counted work %d at %d threads, %d at 1", parallel, w.Load(), threads, first)
			}
		}
	}
}
