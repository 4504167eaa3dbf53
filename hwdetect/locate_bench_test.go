package hwdetect

import "testing"

// BenchmarkLocate: what every gpumap_reorder pays on every rank to find
// where its process runs (the topology is loaded once, the binding read
// every time).
func BenchmarkLocate(b *testing.B) {
	Locate("bench") // the first call loads the topology
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Locate("bench")
	}
}
