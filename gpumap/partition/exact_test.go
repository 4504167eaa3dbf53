package partition

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Tries that differ only in their seeds share the first try's hierarchy
// (CoarsenExact) only where no choice of it came from the seed: each try
// gets the partition it gets coarsening on its own. On a road grid the
// attaching of the matching's single vertices breaks ties by the seed
// (Attach), and on a power-law graph the stalled levels' clustering does
// (Stall): sharing the first try's levels there (Coarsen, as the tries of
// graphs of 2^16+ vertices do) changes another try's partition, which
// must not happen below that size. A grid matched in natural order draws
// nothing from the seed and shares.
func TestSharedHierarchyOnlyWhereSeedFree(t *testing.T) {
	x := par.New(1)
	cases := []struct {
		name      string
		g         *graph.Graph
		cfg       Config
		wantExact bool
	}{
		{"roadgrid attach", graph.RoadGrid(60, 60), Config{Natural: true, Attach: true}, false},
		{"rmat stall", graph.RMAT(12, 8, 3), Config{Natural: true, Stall: 0.6}, false},
		{"grid", graph.Grid(48, 48), Config{Natural: true, Attach: true, Stall: 0.6}, true},
	}
	const tries = 3
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			maxW := limits(c.g.TotalVertexWeight(), 4, 0.03)
			try := func(i int) Config {
				cfg := c.cfg
				cfg.Seed = 11 + uint64(i)*0x9e3779b97f4a7c15
				return cfg
			}
			if !SharedCoarsening(c.g, maxW, try(0)) {
				t.Fatal("SharedCoarsening false")
			}
			h, exact := CoarsenExact(x, c.g, maxW, try(0), tries)
			differs := false // does try 0's hierarchy change another try?
			for i := 0; i < tries; i++ {
				alone := Partition(x, c.g, maxW, try(i))
				cfg := try(i)
				if i == 0 || exact {
					cfg.Levels = h
				}
				if got := Partition(x, c.g, maxW, cfg); !slices.Equal(got, alone) {
					t.Fatalf("try %d: the shared hierarchy gave another partition than coarsening alone", i)
				}
				if i > 0 {
					cfg.Levels = Coarsen(x, c.g, maxW, try(0), 1)
					differs = differs || !slices.Equal(Partition(x, c.g, maxW, cfg), alone)
				}
			}
			if exact != c.wantExact {
				t.Fatalf("CoarsenExact reports exact=%v, want %v", exact, c.wantExact)
			}
			if !exact && !differs {
				t.Fatal(fmt.Sprintf("no try's partition changed on try 0's hierarchy: the case does not show why %s may not share", c.name))
			}
		})
	}
}
