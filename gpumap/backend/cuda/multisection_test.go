package cuda

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// GPU-HM on the device computes what it computes on the CPU backend:
// every phase (extraction, matching, contraction, the host's partition of
// the coarsest graph, projection, Jet on the flat machine, placement) is
// the same, so the mappings are identical, whatever the host's thread
// count and the size of the single-block kernels. They are feasible, the
// device sends the host at most 8n + 4 MiB after the upload (the coarsest
// graph of every split, three totals per subgraph, the Jet loop's scalars,
// the mapping), and nothing stays allocated. Graphs generated with seeds
// used nowhere else; a weighted one with 64-bit edge weights. Ultra's
// V-cycles (a matching of the graph restricted to the blocks, contracted
// on the graph itself) run on the first, with one try per split below
// the top.
func TestMultisection(t *testing.T) {
	b := open(t)
	defer b.Close()
	// 16 splits: the emulator's launches are slow.
	top, _ := topology.Parse("4:4:3", "1:10:100")
	ultra := devhm.Ultra
	ultra.TopTries, ultra.Tries = 2, 1
	for i, g := range []*graph.Graph{graph.RandomGeometric(1<<13, 0x4d2026), graph.Random(3000, 12000, 1<<33, 5, 0x4d2027), graph.RandomGeometric(1<<13, 0x4d2026)} {
		n := int64(g.N())
		cfg := devhm.Default
		if i == 2 {
			cfg = ultra
		}
		cfg.Seed = 3
		before, emuErr := driver.Emu()
		gp, tm, err := devhm.Map(b, par.New(1), g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := driver.Emu()
		s := b.Stats()
		if d2h, limit := s.Total().D2HBytes-s.Phases[PhaseUpload].D2HBytes, 8*n+4<<20; d2h > limit {
			t.Errorf("n=%d: %d bytes device-to-host, more than 8n + 4 MiB = %d", n, d2h, limit)
		}
		if emuErr == nil {
			if d2h := int64(after.D2HBytes - before.D2HBytes); d2h != s.Total().D2HBytes {
				t.Errorf("n=%d: the backend counted %d bytes to the host, the driver %d", n, s.Total().D2HBytes, d2h)
			}
			if after.LiveBytes != before.LiveBytes {
				t.Errorf("n=%d: %d bytes of device memory left allocated", n, after.LiveBytes-before.LiveBytes)
			}
		}
		team := b.team
		b.team = 256
		again, _, err := devhm.Map(b, par.New(2), g, top, 0.03, cfg)
		b.team = team
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again, gp) {
			t.Errorf("n=%d: a second run (2 host threads, 256-thread single blocks) gave another mapping", n)
		}
		cp, _, err := devhm.Map(cpu.New(0), par.New(0), g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		mg, _ := graph.Evaluate(g, top, gp, 0.03)
		mc, _ := graph.Evaluate(g, top, cp, 0.03)
		if !mg.Feasible {
			t.Errorf("n=%d: GPU-HM's mapping is infeasible (max block %d, lmax %d)", n, mg.MaxBlock, mg.Lmax)
		}
		if !slices.Equal(gp, cp) {
			t.Errorf("n=%d: GPU-HM on the device differs from the CPU backend's (J %d vs %d): a phase no longer computes what the CPU's does", n, mg.J, mc.J)
		}
		t.Logf("n=%d: J %d, %d splits, %d levels, d2h %d bytes (8n + 4 MiB = %d)\n%s", n, mg.J, tm.Splits, tm.Levels, s.Total().D2HBytes, 8*n+4<<20, s.Table())
	}
}

// On a dense graph the coarsest graphs are dense too: the whole machine's
// coarsest graph of a random graph of 20k vertices and mean degree 20
// (2,214 vertices of mean degree 157) took 0.65 of 8n + 4 MiB a try, and GPU-HM's default
// (three tries) sent the host 2.17 of the bound. The device, counting
// everything it copies to the host (the Jet loop's scalars too), stays
// within the bound, and maps as the CPU backend does.
func TestMultisectionDenseWithinBound(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	g := graph.Random(20000, 200000, 1, 1, 1)
	n := int64(g.N())
	cfg := devhm.Default
	cfg.Seed = 1
	gp, _, err := devhm.Map(b, par.New(0), g, top, 0.03, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := b.Stats()
	if d2h, limit := s.Total().D2HBytes-s.Phases[PhaseUpload].D2HBytes, 8*n+4<<20; d2h > limit {
		t.Errorf("%d bytes device-to-host, %.3f of 8n + 4 MiB = %d", d2h, float64(d2h)/float64(limit), limit)
	}
	cp, _, err := devhm.Map(cpu.New(0), par.New(0), g, top, 0.03, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gp, cp) {
		t.Errorf("GPU-HM on the device differs from the CPU backend's")
	}
	if m, _ := graph.Evaluate(g, top, gp, 0.03); !m.Feasible {
		t.Errorf("infeasible (max block %d, lmax %d)", m.MaxBlock, m.Lmax)
	}
	t.Logf("d2h %d bytes (8n + 4 MiB = %d)", s.Total().D2HBytes, 8*n+4<<20)
}

// BenchmarkMultisection maps generated graphs onto 4:8:6 with GPU-HM
// (devhm, the default configuration and ultra's tries and Jet loops) on
// the GPU (the emulator counts as one) and reports J, the host's share
// (the coarsest graphs' partitions), the whole run, and the performance
// model (est_h100_ms, launches, syncs, bytes to the host), with its table
// on stderr.
//
//	GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1 go test -run xxx -bench 'Multisection/rgg2d_2\^18/default' -benchtime 1x ./gpumap/backend/cuda
func BenchmarkMultisection(b *testing.B) {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	inputs := []struct {
		name string
		gen  func() *graph.Graph
	}{
		{"rgg2d_2^18", func() *graph.Graph { return graph.RandomGeometric(1<<18, 1) }},
		{"rgg2d_2^20", func() *graph.Graph { return graph.RandomGeometric(1<<20, 1) }},
		{"rgg2d_2^22", func() *graph.Graph { return graph.RandomGeometric(1<<22, 1) }},
		{"grid3d_2^21", func() *graph.Graph { return graph.Grid(128, 128, 128) }},
	}
	gpu, gpuErr := Open()
	if gpuErr != nil {
		b.Skipf("no GPU: %v", gpuErr)
	}
	defer gpu.Close()
	if driver.Emulated() {
		// The emulator's barriers cost real threads; the team size does
		// not change the mapping (TestMultisection) nor the model.
		gpu.team = 16
	}
	for _, in := range inputs {
		var g *graph.Graph
		for _, c := range []struct {
			name string
			cfg  devhm.Config
		}{{"default", devhm.Default}, {"ultra", devhm.Ultra}} {
			b.Run(in.name+"/"+c.name, func(b *testing.B) {
				if g == nil {
					g = in.gen()
				}
				x := par.New(0)
				for i := 0; i < b.N; i++ {
					pe, tm, err := devhm.Map(gpu, x, g, top, 0.03, c.cfg)
					if err != nil {
						b.Fatal(err)
					}
					if i == b.N-1 {
						b.StopTimer()
						m, _ := graph.Evaluate(g, top, pe, 0.03)
						s := gpu.Stats()
						t := s.Total()
						b.ReportMetric(float64(m.J), "J")
						b.ReportMetric(ms(tm.Initial), "host_ms")
						b.ReportMetric(ms(tm.Total), "total_ms")
						b.ReportMetric(ms(t.Estimate()), "est_h100_ms")
						// The device model plus the host's partitions as
						// they take alone (the pipeline's final J
						// refinement, not run here, adds its own).
						b.ReportMetric(ms(t.Estimate()+tm.InitialHost), "est_total_ms")
						b.ReportMetric(float64(t.Launches), "launches")
						b.ReportMetric(float64(t.Syncs), "syncs")
						b.ReportMetric(float64(t.D2HBytes), "d2h_bytes")
						fmt.Fprintf(os.Stderr, "%s, n=%d, %d splits, %d levels, host %.1f ms:\n%s", b.Name(), g.N(), tm.Splits, tm.Levels, ms(tm.Initial), s.Table())
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

// Restrict, Weights and Place on a graph small enough to work out by
// hand, on the CPU backend and (when one opens) the device: 0-1 (5), 0-2
// (7), 2-3 (2), 3-4 (9), 1-4 (4), vertex weights 1..5, parts [0 1 0 0 1].
func TestRestrictPlaceByHand(t *testing.T) {
	bl := graph.NewBuilder(5)
	for v := 0; v < 5; v++ {
		bl.SetVertexWeight(v, int64(v+1))
	}
	for _, e := range [][3]int64{{0, 1, 5}, {0, 2, 7}, {2, 3, 2}, {3, 4, 9}, {1, 4, 4}} {
		bl.AddEdge(int(e[0]), int(e[1]), e[2])
	}
	g, err := bl.Build()
	if err != nil {
		t.Fatal(err)
	}
	backends := []backend.Multisection{cpu.New(1)}
	if gb, err := Open(); err == nil {
		defer gb.Close()
		backends = append(backends, gb)
	} else if os.Getenv("GPUMAP_CUDA_LIB") != "" {
		t.Fatalf("GPUMAP_CUDA_LIB is set but the GPU backend does not open: %v", err)
	}
	vw := []int64{1, 2, 3, 4, 5}
	check := func(b backend.Multisection, got backend.Graph, xadj []int64, adj []int32, ew []int64, what string) {
		t.Helper()
		h, err := b.DownloadGraph(got)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.XAdj, xadj) || !slices.Equal(h.Adj, adj) || !slices.Equal(h.EdgeWeights(), ew) || !slices.Equal(h.VW, vw) {
			t.Errorf("%s, %s: xadj %v adj %v ew %v vw %v, want %v %v %v %v", b.Name(), what, h.XAdj, h.Adj, h.EdgeWeights(), h.VW, xadj, adj, ew, vw)
		}
	}
	for _, b := range backends {
		dg, _ := b.UploadGraph(g)
		part, _ := b.UploadVector([]int32{0, 1, 0, 0, 1})
		r, err := b.Restrict(dg, part)
		if err != nil {
			t.Fatal(err)
		}
		// Kept: 0-2 (7), 2-3 (2), 1-4 (4).
		check(b, r, []int64{0, 1, 2, 4, 5, 6}, []int32{2, 4, 0, 3, 2, 1}, []int64{7, 4, 7, 2, 2, 4}, "parts [0 1 0 0 1]")
		// Again on the result with parts [1 0 1 0 0]: 2-3 goes too.
		p2, _ := b.UploadVector([]int32{1, 0, 1, 0, 0})
		r2, _ := b.Restrict(r, p2)
		check(b, r2, []int64{0, 1, 2, 3, 3, 4}, []int32{2, 4, 0, 1}, []int64{7, 4, 7, 4}, "then parts [1 0 1 0 0]")
		if w, err := b.Weights(dg, part, 2); err != nil || !slices.Equal(w, []int64{8, 7}) {
			t.Errorf("%s: part weights %v (%v), want [8 7]", b.Name(), w, err)
		}
		// The part carried through the coarse map [0 1 0 2 1].
		cmap, _ := b.UploadVector([]int32{0, 1, 0, 2, 1})
		cp, _ := b.NewVector(3)
		if err := b.Place(cp, cmap, part, 0, 1); err != nil {
			t.Fatal(err)
		}
		if got, _ := b.DownloadVector(cp); !slices.Equal(got, []int32{0, 1, 0}) {
			t.Errorf("%s: coarse parts %v, want [0 1 0]", b.Name(), got)
		}
		pe, _ := b.NewVector(5)
		if err := b.Place(pe, nil, part, 10, 3); err != nil {
			t.Fatal(err)
		}
		if got, _ := b.DownloadVector(pe); !slices.Equal(got, []int32{10, 13, 10, 10, 13}) {
			t.Errorf("%s: placed %v, want [10 13 10 10 13]", b.Name(), got)
		}
		if c, err := b.Cut(dg, part, 2); err != nil || c != 5+9 {
			t.Errorf("%s: cut %d (%v), want 14", b.Name(), c, err)
		}
		b.Free(r2, p2, r, cmap, cp, pe, part, dg)
	}
}
