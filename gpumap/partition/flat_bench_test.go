package partition

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// BenchmarkFlatBisect: flat bisections as the default preset runs them
// (8 tries, the partitioner's FM config with WasteWork), on graphs of the
// size of a split's coarsest graph: dense communities (the small dense
// real graphs' case), a grid, and a weighted random graph (a coarse level
// of an LP model). refinement's BenchmarkFM2 compares their FM, RunFM2,
// with the general RunFM.
func BenchmarkFlatBisect(b *testing.B) {
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"dense160", graph.Communities(160, 8, 24, 6, 1)},
		{"grid13x13", graph.Grid(13, 13)},
		{"random300w", graph.Random(300, 1800, 20, 8, 3)},
	}
	fm := refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25, WasteWork: 3}
	for _, c := range graphs {
		total := c.g.TotalVertexWeight()
		maxW := [2]int64{total/2 + total/100 + 1, total/2 + total/100 + 1}
		b.Run(c.name, func(b *testing.B) {
			o := refinement.Cut()
			var cut int64
			for i := 0; i < b.N; i++ {
				part := flatBisect(c.g, maxW, 8, fm, 0, refinement.PairFMConfig{}, uint64(i%8))
				cut += o.Cost(c.g, part)
			}
			b.ReportMetric(float64(cut)/float64(b.N), "cut")
		})
	}
}
