package cuda

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// GPUMAP_BENCH_PAGEABLE=1 makes the test binary's other benchmarks
// (BenchmarkIntegrated, BenchmarkMultisection) upload without locking, so
// that a device run compares whole mappings both ways.
func init() {
	if os.Getenv("GPUMAP_BENCH_PAGEABLE") == "1" {
		pinUploads = false
	}
}

// BenchmarkUpload uploads generated graphs to the device with and without
// page-locking them first (pinUploads) and reports the wall time of
// UploadGraph (check, allocation, copies, edge_sources) and, from the
// profile, of locking, copying and unlocking. The model prices pinned
// and pageable copies; only a real device shows what locking costs.
//
//	go test -run xxx -bench Upload -benchtime 3x ./gpumap/backend/cuda
func BenchmarkUpload(b *testing.B) {
	gpu, err := Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	defer func(v bool) { pinUploads = v }(pinUploads)
	for _, size := range []int{20, 22} {
		var g *graph.Graph
		for _, pin := range []bool{true, false} {
			b.Run(fmt.Sprintf("rgg2d_2^%d/pinned=%v", size, pin), func(b *testing.B) {
				if g == nil {
					g = graph.RandomGeometric(1<<size, 1)
				}
				pinUploads = pin
				gpu.SetProfile(true)
				defer gpu.SetProfile(false)
				var total time.Duration
				steps := map[string]time.Duration{}
				for i := 0; i < b.N; i++ {
					start := time.Now()
					dg, err := gpu.UploadGraph(g)
					if err == nil {
						err = gpu.sync()
					}
					total += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					for _, k := range gpu.prof.kernels { // this upload's (reset by UploadGraph)
						steps[k.Name] += k.Wall
					}
					gpu.Free(dg)
				}
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
				b.ReportMetric(ms(total), "upload_ms")
				for _, s := range []string{"host_register", "copy_h2d", "host_unregister"} {
					b.ReportMetric(ms(steps[s]), s+"_ms")
				}
			})
		}
	}
}
