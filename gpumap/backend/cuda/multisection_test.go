package cuda

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// GPU-HM on the device computes what it computes on the CPU backend:
// every phase (extraction, matching, contraction, the host's partition of
// the coarsest graph, projection, Jet on the flat machine, placement) is
// the same, so the mappings are identical; and they are feasible.
func TestMultisectionEqualsCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	for _, g := range []*graph.Graph{graph.RandomGeometric(1<<15, 9), graph.Random(1<<13, 1<<15, 9, 5, 7)} {
		cfg := devhm.Config{Seed: 3}
		x := par.New(0)
		gp, tm, err := devhm.Map(b, x, g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cp, _, err := devhm.Map(cpu.New(0), x, g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		mg, _ := graph.Evaluate(g, top, gp, 0.03)
		mc, _ := graph.Evaluate(g, top, cp, 0.03)
		if !mg.Feasible {
			t.Errorf("n=%d: GPU-HM's mapping is infeasible (max block %d, lmax %d)", g.N(), mg.MaxBlock, mg.Lmax)
		}
		if !slices.Equal(gp, cp) {
			t.Errorf("n=%d: GPU-HM on the device differs from the CPU backend's (J %d vs %d)", g.N(), mg.J, mc.J)
		}
		t.Logf("n=%d: J %d (CPU backend %d), %d splits, %d levels\n%s", g.N(), mg.J, mc.J, tm.Splits, tm.Levels, b.Report())
	}
}
