package gpumap

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// TestEvalIMHost measures what GPU-IM's host phase (the multisection of
// the coarsest graph, the host part of est_total_ms) costs and buys: the
// default preset's IM on the CPU backend, whose mappings are the device's
// (the cuda package's tests, emulated driver), beside cheaper settings of
// that phase, seeds 0-2, onto 4:8:6 (D 1:10:100, eps 3%). A measurement,
// not a check: it runs only when GPUMAP_IM_EVAL lists graphs (rgg20:
// graph.RandomGeometric(2^20, 1); grid20: the 128x128x64 grid; or METIS
// files) and GPUMAP_IM_VARIANTS the settings (base; cN: CoarsenC N;
// triesN: N growing tries per flat bisection; miF: FlatMinImprove F;
// "+" joins them).
//
//	GPUMAP_IM_EVAL=rgg20,grid20 GPUMAP_IM_VARIANTS=base,c20,tries6 go test ./gpumap -run TestEvalIMHost -v -timeout 60m
func TestEvalIMHost(t *testing.T) {
	list := os.Getenv("GPUMAP_IM_EVAL")
	if list == "" {
		t.Skip("GPUMAP_IM_EVAL not set")
	}
	variants := strings.Split(os.Getenv("GPUMAP_IM_VARIANTS"), ",")
	top, _ := topology.Parse("4:8:6", "1:10:100")
	for _, name := range strings.Split(list, ",") {
		var g *graph.Graph
		switch name {
		case "rgg20":
			g = graph.RandomGeometric(1<<20, 1)
		case "grid20":
			g = graph.Grid(128, 128, 64)
		default:
			var err error
			if g, err = graph.ReadFile(name); err != nil {
				t.Fatal(err)
			}
		}
		for _, v := range variants {
			var logJ float64
			var host time.Duration
			for seed := uint64(0); seed < 3; seed++ {
				cfg := IntegratedConfig(Default)
				cfg.Seed = seed
				for _, s := range strings.Split(v, "+") {
					var err error
					switch {
					case s == "base" || s == "":
					case strings.HasPrefix(s, "tries"):
						cfg.Initial.Partition.Tries, err = strconv.Atoi(s[5:])
					case strings.HasPrefix(s, "mi"):
						cfg.Initial.Partition.FlatMinImprove, err = strconv.ParseFloat(s[2:], 64)
					case strings.HasPrefix(s, "c"):
						cfg.CoarsenC, err = strconv.Atoi(s[1:])
					default:
						t.Fatalf("unknown setting %q", s)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				pe, tm, err := integrated.Map(cpu.New(0), par.New(0), g, top, 0.03, cfg)
				if err != nil {
					t.Fatal(err)
				}
				m, _ := graph.Evaluate(g, top, pe, 0.03)
				if !m.Feasible {
					t.Errorf("%s %s seed %d: infeasible", name, v, seed)
				}
				t.Logf("%s %s seed %d: J %d, %d levels, host initial %.1f ms alone", name, v, seed, m.J, tm.Levels, ms(tm.InitialHost))
				logJ += math.Log(float64(m.J))
				host += tm.InitialHost
			}
			t.Logf("%s %s: J geometric mean %.0f, host initial %.1f ms alone over 3 seeds", name, v, math.Exp(logJ/3), ms(host))
		}
	}
}
