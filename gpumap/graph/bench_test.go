package graph

import (
	"bytes"
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

// BenchmarkParseRGG parses a 2^18-vertex random geometric graph (1.7M
// edges, 23 MB of text); run with -cpu 1,2 to compare thread counts.
func BenchmarkParseRGG(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteMETIS(&buf, RandomGeometric(1<<18, 7)); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseMETIS(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSmall parses real graphs of 0.1-0.8 MB (../shared/graphs),
// the size of most inputs of a corpus: their reading is a fixed cost of
// every mapping, several percent of the default preset's CPU.
func BenchmarkParseSmall(b *testing.B) {
	for _, name := range []string{"3elt", "memplus", "cs4", "wing_nodal"} {
		data, err := os.ReadFile("../../../shared/graphs/" + name + ".graph")
		if err != nil {
			b.Skip("benchmark graph not available:", err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := ParseMETIS(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
