package coarsening

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Where CoarsenSeeded reports no choice from the seed, every other seed
// builds the same levels; random-order matching always draws from it.
func TestCoarsenSeededLevelsSameForAnySeed(t *testing.T) {
	x := par.New(1)
	for _, c := range []struct {
		name string
		g    *graph.Graph
		cfg  Config
	}{
		{"grid", graph.Grid(64, 64), Config{Natural: true, Attach: true, Stall: 0.6}},
		{"roadgrid", graph.RoadGrid(60, 60), Config{Natural: true, Attach: true}},
		{"roadgrid noattach", graph.RoadGrid(60, 60), Config{Natural: true}},
		{"rgg", graph.RandomGeometric(6000, 2), Config{Natural: true, Attach: true}},
		{"rmat", graph.RMAT(12, 8, 3), Config{Natural: true, Stall: 0.6}},
		{"rmat attach", graph.RMAT(12, 8, 3), Config{Natural: true, Attach: true}},
	} {
		cfg := c.cfg
		cfg.StopSize, cfg.MaxWeight = 120, max(c.g.TotalVertexWeight()/40, 1)
		cfg.Seed = 1
		ref, seeded := CoarsenSeeded(x, c.g, cfg)
		t.Logf("%s: %d levels, seeded %v", c.name, len(ref), seeded)
		if seeded {
			continue
		}
		for s := uint64(2); s < 6; s++ {
			cfg.Seed = s
			levels := Coarsen(x, c.g, cfg)
			same := len(levels) == len(ref)
			for i := 0; same && i < len(ref); i++ {
				same = slices.Equal(levels[i].CMap, ref[i].CMap)
			}
			if !same {
				t.Fatalf("%s: not seeded, but seed %d builds other levels", c.name, s)
			}
		}
	}
	cfg := Config{StopSize: 120, MaxWeight: 64, Seed: 1}
	if _, seeded := CoarsenSeeded(x, graph.Grid(32, 32), cfg); !seeded {
		t.Fatal("random-order matching not reported seeded")
	}
}
