package gpumap

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// TestEvalGPUHM compares GPU-HM's J with the CPU default preset's onto
// 4:8:2 and 4:8:6 (D 1:10:100, eps 3%): the pipeline's GPU-HM (final J
// refinement included) run on the CPU backend, whose mappings are the
// device's byte for byte (TestMultisection in the cuda package), so no
// emulator is needed. A measurement, not a check: it runs only when
// GPUMAP_HM_EVAL lists graphs (names in ../shared/graphs, or rgg18s9,
// rgg16s1, grid3d (64^3), grid3d32, grid2d (256^2), gridXxYxZ, or a path with a
// slash); GPUMAP_HM_STRONG=1 adds ultra (-c strong), =only runs ultra
// alone. Every mapping must be feasible.
//
//	GPUMAP_HM_EVAL=rgg18s9,grid3d,fe_sphere,bcsstk33 GPUMAP_HM_STRONG=1 go test ./gpumap -run TestEvalGPUHM -v -timeout 60m
func TestEvalGPUHM(t *testing.T) {
	list := os.Getenv("GPUMAP_HM_EVAL")
	if list == "" {
		t.Skip("GPUMAP_HM_EVAL not set")
	}
	presets := []Preset{Default}
	switch os.Getenv("GPUMAP_HM_STRONG") {
	case "":
	case "only":
		presets = []Preset{Strong}
	default:
		presets = append(presets, Strong)
	}
	// GPUMAP_HM_ULTRA (name=value,...) changes ultra's configuration for
	// this run: a measurement knob for fitting devhm.Ultra.
	if spec := os.Getenv("GPUMAP_HM_ULTRA"); spec != "" {
		saved := devhm.Ultra
		defer func() { devhm.Ultra = saved }()
		for _, kv := range strings.Split(spec, ",") {
			name, val, _ := strings.Cut(kv, "=")
			v, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("GPUMAP_HM_ULTRA: %q: %v", kv, err)
			}
			switch name {
			case "TopCoarsest":
				devhm.Ultra.TopCoarsest = v
			case "CoarsenC":
				devhm.Ultra.CoarsenC = v
			case "TopTries":
				devhm.Ultra.TopTries = v
			case "Tries":
				devhm.Ultra.Tries = v
			case "Iterations":
				devhm.Ultra.Jet.Iterations = v
			case "CoarseIterations":
				devhm.Ultra.CoarseIterations = v
			case "VCycles":
				devhm.Ultra.VCycles = v
			case "RefineLP":
				devhm.Ultra.Refine.LPRounds = v
			case "RefineFM":
				devhm.Ultra.Refine.FMRounds = v
			case "RefinePair":
				devhm.Ultra.Refine.Pair.Rounds = v
			case "InitialTries":
				devhm.Ultra.Initial.Tries = v
			default:
				t.Fatalf("GPUMAP_HM_ULTRA: unknown field %q", name)
			}
		}
		t.Logf("ultra: %+v", devhm.Ultra)
	}
	logs := map[Preset]float64{}
	cnt := 0
	for _, name := range strings.Split(list, ",") {
		var g *graph.Graph
		switch name {
		case "rgg18s9":
			g = graph.RandomGeometric(1<<18, 9)
		case "rgg16s1":
			g = graph.RandomGeometric(1<<16, 1)
		case "grid3d":
			g = graph.Grid(64, 64, 64)
		case "grid3d32":
			g = graph.Grid(32, 32, 32)
		case "grid2d":
			g = graph.Grid(256, 256)
		default:
			var x, y, z int
			if n, _ := fmt.Sscanf(name, "grid%dx%dx%d", &x, &y, &z); n == 3 {
				g = graph.Grid(x, y, z)
				break
			}
			path := "../../shared/graphs/" + name + ".graph"
			if strings.Contains(name, "/") { // a path of its own
				path = name
			}
			var err error
			if g, err = graph.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		for _, h := range []string{"4:8:2", "4:8:6"} {
			top, _ := topology.Parse(h, "1:10:100")
			opt := Options{Preset: Default, Eps: 0.03, Backend: CPU}
			start := time.Now()
			res, err := Map(g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			line := fmt.Sprintf("%s %s: CPU default J %d %v (%v)", name, h, res.Metrics.J, res.Metrics.CutPerLevel, time.Since(start).Round(time.Millisecond))
			for _, pr := range presets {
				o := opt
				o.Preset = pr
				p := newPipeline(par.New(0), g, top, o, &tracker{})
				p.backend = cpu.New(0)
				start = time.Now()
				pe := p.gpuMultisection()
				d := time.Since(start)
				m, _ := graph.Evaluate(g, top, pe, 0.03)
				if !m.Feasible {
					t.Errorf("%s %s %v: infeasible", name, h, pr)
				}
				r := float64(m.J) / float64(res.Metrics.J)
				logs[pr] += math.Log(r)
				line += fmt.Sprintf(" | GPU-HM %v J %d %.4f %v (%v)", pr, m.J, r, m.CutPerLevel, d.Round(time.Millisecond))
			}
			cnt++
			t.Log(line)
		}
	}
	for _, pr := range presets {
		t.Logf("geometric mean of J / CPU default's, GPU-HM %v: %.4f over %d", pr, math.Exp(logs[pr]/float64(cnt)), cnt)
	}
}
