package cuda

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/multisection"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// BenchmarkTable2 puts the model beside the paper's Table 2 (GPU-IM on an
// RTX 4090, 4:8:64:8:6, D 1:10:100:1000:10000, eps 3%, per phase in ms):
//
//	           coarsening contraction init.part. uncontr. refine+reb misc  total
//	cop20k_A        4.351       1.010     11.116    0.046     24.359 1.193 42.076
//	europe_osm     41.020      38.694      7.244    1.523    116.598 115.469 320.550
//
// on graphs of their size and kind: cop20k_A (a 3D FEM matrix, 99,843
// vertices with edges, 1.3M edges) by a 27-point stencil on a 46x46x47
// grid (99,452 vertices, 1.24M edges), and luxembourg_osm (114,599
// vertices), a road network like europe_osm, when /work/corpus has it.
// europe_osm itself (50.9M vertices) is out of the emulator's reach. Each
// prints the model's phases in the paper's columns for both devices, the
// host's initial mapping measured (wall time on this machine).
//
//	GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1 go test -run xxx -bench Table2 -benchtime 1x ./gpumap/backend/cuda
func BenchmarkTable2(b *testing.B) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	inputs := []struct {
		name string
		gen  func() (*graph.Graph, error)
	}{
		{"cop20k_A-like", func() (*graph.Graph, error) { return stencil27(46, 46, 47), nil }},
		{"luxembourg_osm", func() (*graph.Graph, error) { return graph.ReadFile("/work/corpus/luxembourg_osm.graph") }},
	}
	gpu, err := Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			g, err := in.gen()
			if err != nil {
				b.Skip(err)
			}
			cfg := integrated.Config{Seed: 1, CoarsenC: 30, CapDiv: 8}
			// The truncation of wide machines (gpumap/pipeline.go,
			// wideFast, with three tries of the top splits; its coarse
			// splits by fast's partitioner, no Jet loop after a split into
			// PEs within lmax).
			cfg.Initial.Wide = multisection.WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3,
				GroupMin: 64, FineGroupMin: 16, CoarsenC: 8, CapDiv: 2, TopTries: 3, TopSlackDepth: 1,
				Coarse: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1},
				Split: partition.Config{Tries: 4, LPRounds: 2, FMRounds: 1,
					FM: refinement.FMConfig{Alpha: 20, SkipExplored: true}},
				SkipPEJet: true}
			for i := 0; i < b.N; i++ {
				_, tm, err := integrated.Map(gpu, par.New(0), g, top, 0.03, cfg)
				if err != nil {
					b.Fatal(err)
				}
				gpu.AddHost(HostInitial, tm.InitialHost)
				gpu.AddHost(HostOther, tm.SplitHost)
				s := gpu.Stats()
				fmt.Fprintf(os.Stderr, "%s: n=%d m=%d, %d levels\n%s%s", in.name, g.N(), g.M(), tm.Levels,
					s.Table(), paperColumns(s))
			}
		})
	}
}

// paperColumns is s in Table 2's columns, on both devices.
func paperColumns(s Stats) string {
	cols := []struct {
		name   string
		phases []Phase
	}{
		{"coarsening", []Phase{PhaseMatch}},
		{"contraction", []Phase{PhaseContract}},
		{"init.part.", []Phase{PhaseInitial}},
		{"uncontr.", []Phase{PhaseProject}},
		{"refine+reb", []Phase{PhaseRefine, PhaseRebalance}},
		{"misc", []Phase{PhaseUpload, PhaseDownload}},
	}
	out := fmt.Sprintf("%-10s", "ms")
	for _, c := range cols {
		out += fmt.Sprintf(" %11s", c.name)
	}
	out += fmt.Sprintf(" %11s\n", "total")
	for _, d := range []Device{H100, RTX4090} {
		out += fmt.Sprintf("%-10s", d.Name)
		var total time.Duration
		for _, c := range cols {
			var t time.Duration
			for _, p := range c.phases {
				t += s.Phases[p].EstimateOn(d)
			}
			if c.phases[0] == PhaseInitial {
				// The host's mapping of the top and its split of the
				// groups into PEs (wide machines): the paper's initial
				// partitioning.
				t += s.Host[HostInitial] + s.Host[HostOther]
			}
			total += t
			out += fmt.Sprintf(" %11.3f", ms(t))
		}
		out += fmt.Sprintf(" %11.3f\n", ms(total))
	}
	return out
}

// stencil27 is the 27-point stencil on an x*y*z grid (unit weights).
func stencil27(x, y, z int) *graph.Graph {
	id := func(i, j, k int) int { return (k*y+j)*x + i }
	bl := graph.NewBuilder(x * y * z)
	for k := 0; k < z; k++ {
		for j := 0; j < y; j++ {
			for i := 0; i < x; i++ {
				for dk := 0; dk <= 1; dk++ {
					for dj := -1; dj <= 1; dj++ {
						for di := -1; di <= 1; di++ {
							if dk == 0 && (dj < 0 || dj == 0 && di <= 0) {
								continue // each pair once
							}
							a, c, e := i+di, j+dj, k+dk
							if a >= 0 && a < x && c >= 0 && c < y && e < z {
								bl.AddEdge(id(i, j, k), id(a, c, e), 1)
							}
						}
					}
				}
			}
		}
	}
	g, err := bl.Build()
	if err != nil {
		panic(err)
	}
	return g
}
