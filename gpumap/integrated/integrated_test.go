package integrated_test

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// matchOnly hides the CPU backend's Cluster, as a backend without
// clustering (the CUDA one) does.
type matchOnly struct{ backend.Backend }

func mapRMAT(t *testing.T, b backend.Backend, threads int, cluster bool) ([]int32, integrated.Times) {
	t.Helper()
	g := graph.RMAT(12, 8, 31)
	top, err := topology.Parse("4:8:1", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	c := gpumap.IntegratedConfig(gpumap.Default)
	c.Seed, c.Cluster = 5, cluster
	pe, tm, err := integrated.Map(b, par.New(threads), g, top, 0.03, c)
	if err != nil {
		t.Fatal(err)
	}
	m, err := graph.Evaluate(g, top, pe, 0.03)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Feasible {
		t.Fatalf("cluster=%v, %d threads: max block %d above Lmax %d", cluster, threads, m.MaxBlock, m.Lmax)
	}
	return pe, tm
}

// TestClusterCoarsening checks IM's clustering coarsening on an R-MAT
// graph: the mapping is feasible and the same for 1, 2 and 4 threads,
// clustering takes fewer levels than matching (a cluster takes in a hub's
// leaves, a matching one of them per level), and a backend without
// clustering ignores Cluster and matches.
func TestClusterCoarsening(t *testing.T) {
	one, tmc := mapRMAT(t, cpu.New(1), 1, true)
	for _, threads := range []int{2, 4} {
		if pe, _ := mapRMAT(t, cpu.New(threads), threads, true); !slices.Equal(pe, one) {
			t.Errorf("clustering: the mapping at %d threads differs from the one at 1", threads)
		}
	}
	matched, tmm := mapRMAT(t, cpu.New(2), 2, false)
	if tmc.Levels >= tmm.Levels {
		t.Errorf("clustering coarsened in %d levels, matching in %d: want fewer", tmc.Levels, tmm.Levels)
	}
	if slices.Equal(one, matched) {
		t.Errorf("Cluster set: the mapping is the one of matching")
	}
	if pe, _ := mapRMAT(t, matchOnly{cpu.New(2)}, 2, true); !slices.Equal(pe, matched) {
		t.Errorf("a backend without clustering: Cluster changed the mapping")
	}
}
