package graph

import (
	"os"
	"testing"
)

func BenchmarkParseMETIS(b *testing.B) {
	data, err := os.ReadFile("../../../shared/graphs/gen_grid2d_512.graph")
	if err != nil {
		b.Skip("benchmark graph not available:", err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := ParseMETIS(data); err != nil {
			b.Fatal(err)
		}
	}
}
