package devhm_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// On the CPU backend (what the device computes, TestMultisection in
// package cuda): feasible mappings, with vertex weights too, the same at
// 1 and 2 threads, every PE used on a graph with many vertices per PE,
// and an irregular machine refused with ErrIrregular; ultra's V-cycles
// too.
func TestMapFeasibleAndReproducible(t *testing.T) {
	top, _ := topology.Parse("2:3:2", "1:10:100")
	for i, g := range []*graph.Graph{graph.RandomGeometric(3000, 0x5eed), graph.Random(2000, 8000, 7, 9, 0x5eed), graph.Grid(24, 20, 10), graph.Random(2000, 8000, 7, 9, 0x5eed)} {
		cfg := devhm.Default
		if i >= 2 {
			cfg = devhm.Ultra
		}
		cfg.Seed = 5
		pe, _, err := devhm.Map(cpu.New(1), par.New(1), g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := graph.Evaluate(g, top, pe, 0.03)
		if err != nil || !m.Feasible {
			t.Errorf("n=%d: infeasible (%v): max block %d, lmax %d", g.N(), err, m.MaxBlock, m.Lmax)
		}
		used := map[int32]bool{}
		for _, p := range pe {
			used[p] = true
		}
		if len(used) != top.K() {
			t.Errorf("n=%d: %d of %d PEs used", g.N(), len(used), top.K())
		}
		again, _, _ := devhm.Map(cpu.New(2), par.New(2), g, top, 0.03, cfg)
		if !slices.Equal(again, pe) {
			t.Errorf("n=%d: 2 threads mapped differently from 1", g.N())
		}
	}
	tree, _ := topology.NewTree([][]int{{0, 0, 1, 1, 1}}, []int64{1, 10})
	if _, _, err := devhm.Map(cpu.New(1), par.New(1), graph.Grid(10, 10), tree, 0.03, devhm.Default); !errors.Is(err, devhm.ErrIrregular) {
		t.Errorf("irregular machine: %v, want ErrIrregular", err)
	}
}
