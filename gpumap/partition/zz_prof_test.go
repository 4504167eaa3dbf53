package partition

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

func BenchmarkP3elt(b *testing.B) {
	g, _ := graph.ReadFile("/work/shared/graphs/3elt.graph")
	k := 32
	l := graph.Lmax(g.TotalVertexWeight(), k, 0.03)
	maxW := make([]int64, k)
	for i := range maxW {
		maxW[i] = l
	}
	for i := 0; i < b.N; i++ {
		Partition(par.New(1), g, maxW, Config{Seed: uint64(i), Tries: 4, FM: refinement.FMConfig{Alpha: 20}})
	}
}
