package gpumap

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// BenchmarkMapStar65536 is issue 8's D5 as the command runs it
// (gpumap map -g star65536.graph -h 256:256 -d 1:10 -e 0 -t 1): one rank
// that talks to all 65,535 others. Swap refinement used to be O(P^2) there
// (141 s); the whole mapping must stay well under 2 s.
func BenchmarkMapStar65536(b *testing.B) {
	const n = 1 << 16
	bld := graph.NewBuilder(n)
	for i := 1; i < n; i++ {
		bld.AddEdge(0, i, 1)
	}
	g, _ := bld.Build()
	top, _ := topology.Parse("256:256", "1:10")
	opt := DefaultOptions()
	opt.Eps, opt.Threads, opt.Backend = 0, 1, CPU
	for i := 0; i < b.N; i++ {
		res, err := Map(g, top, opt)
		if err != nil || !res.OneToOne || !res.Metrics.Feasible {
			b.Fatalf("map: %v", err)
		}
	}
}
