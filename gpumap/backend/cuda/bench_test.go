package cuda

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// BenchmarkIntegrated maps generated graphs of 2^18 to 2^24 vertices onto
// 4:8:6 with integrated mapping, on the GPU (when there is one; the
// emulator counts as one) and on every CPU core, and reports per-phase
// times: coarsen (upload included), initial (coarsest graph on the host),
// uncoarsen (refinement and the final download), and J. On the GPU it also
// reports the performance model (est_h100_ms, launches, syncs, bytes each
// way) and prints its table on stderr.
//
//	go test -run xxx -bench Integrated ./gpumap/backend/cuda
//	GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1 go test -run xxx -bench 'Integrated/rgg2d_2\^18/gpu' -benchtime 1x ./gpumap/backend/cuda
func BenchmarkIntegrated(b *testing.B) {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	inputs := []struct {
		name string
		gen  func() *graph.Graph
	}{
		{"rgg2d_2^18", func() *graph.Graph { return graph.RandomGeometric(1<<18, 1) }},
		{"rgg2d_2^20", func() *graph.Graph { return graph.RandomGeometric(1<<20, 1) }},
		{"rgg2d_2^22", func() *graph.Graph { return graph.RandomGeometric(1<<22, 1) }},
		{"grid2d_2^22", func() *graph.Graph { return graph.Grid(2048, 2048) }},
		{"grid3d_2^21", func() *graph.Graph { return graph.Grid(128, 128, 128) }},
		{"rgg2d_2^24", func() *graph.Graph { return graph.RandomGeometric(1<<24, 1) }},
	}
	gpu, gpuErr := Open()
	if gpuErr == nil {
		defer gpu.Close()
	}
	for _, in := range inputs {
		var g *graph.Graph
		for _, be := range []string{"gpu", "cpu"} {
			b.Run(fmt.Sprintf("%s/%s", in.name, be), func(b *testing.B) {
				var bk backend.Backend
				if be == "gpu" {
					if gpuErr != nil {
						b.Skipf("no GPU: %v", gpuErr)
					}
					bk = gpu
				} else {
					bk = cpu.New(0)
				}
				if g == nil {
					g = in.gen()
				}
				x := par.New(0)
				cfg := integrated.Config{Seed: 1, CoarsenC: 30, CapDiv: 8}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					pe, tm, err := integrated.Map(bk, x, g, top, 0.03, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if i == b.N-1 {
						b.StopTimer()
						m, _ := graph.Evaluate(g, top, pe, 0.03)
						b.ReportMetric(float64(m.J), "J")
						b.ReportMetric(ms(tm.Coarsen), "coarsen_ms")
						b.ReportMetric(ms(tm.Initial), "initial_ms")
						b.ReportMetric(ms(tm.Uncoarsen), "uncoarsen_ms")
						b.ReportMetric(ms(tm.Coarsen+tm.Initial+tm.Uncoarsen), "total_ms")
						if be == "gpu" {
							s := gpu.Stats()
							t := s.Total()
							b.ReportMetric(ms(t.Estimate()), "est_h100_ms")
							b.ReportMetric(float64(t.Launches), "launches")
							b.ReportMetric(float64(t.Syncs), "syncs")
							b.ReportMetric(float64(t.D2HBytes), "d2h_bytes")
							fmt.Fprintf(os.Stderr, "%s, n=%d, %d levels:\n%s", b.Name(), g.N(), tm.Levels, s.Table())
						}
						if !m.Feasible {
							b.Errorf("infeasible")
						}
						b.StartTimer()
					}
				}
			})
		}
	}
}
