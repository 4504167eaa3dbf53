package partition

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// BenchmarkPartitionDense: the default preset's top split (4 blocks) of a
// dense graph, where every move's gain updates touch ~40 neighbours: the
// FM's cost per vertex on such graphs (issue 25).
func BenchmarkPartitionDense(b *testing.B) {
	g := graph.Communities(4096, 64, 18, 4, 1)
	maxW := limits(g.TotalVertexWeight(), 4, 0.03)
	cfg := Config{Tries: 8, LPRounds: 2, FMRounds: 2, Stall: 0.6, LevelGrowth: 1.5, StallShrink: 0.8,
		FM: refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25, WasteWork: 3}}
	x := par.New(1)
	b.ResetTimer()
	var cut int64
	o := refinement.Cut()
	for i := 0; i < b.N; i++ {
		cfg.Seed = uint64(i % 4)
		part := Partition(x, g, maxW, cfg)
		cut = o.Cost(g, part)
	}
	b.ReportMetric(float64(cut), "cut")
	b.ReportMetric(float64(2*g.M())/float64(g.N()), "avgdeg")
}
