package distmap

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// At eps 0 the distributed levels end feasible where the one-process
// mapper does (issue 24): label propagation and FM kept a coarsest
// mapping above Lmax on every level (before balance, each of these
// graphs ended above Lmax at P=2).
func TestBalanceEpsZero(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 2, "TestBalanceEpsZero")
		if n := len(regexp.MustCompile(`(?m)^ok `).FindAllString(out, -1)); n != 4 {
			t.Fatalf("%d of 4 graphs passed:\n%s", n, out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	for _, tc := range []struct {
		name  string
		whole *graph.Graph
	}{
		{"rgg", graph.RandomGeometric(6000, 5)},
		{"grid", graph.Grid(70, 80)},
		{"weighted", graph.Random(5000, 20000, 3, 9, 7)},
		// Lmax 1 (n <= k), coarsened to one vertex: the rebalancing's
		// targets left no PE with room there (the review; heaviest PE 3).
		{"lmax1", graph.Grid(3, 1)},
	} {
		g := spreadEvenly(c, size, rank, tc.whole)
		coarsest := int64(300)
		if tc.whole.N() < 10 {
			coarsest = 1
		}
		res, err := Map(g, top, Options{Eps: 0, Seed: 1, Threads: 1, Coarsest: coarsest})
		if err != nil {
			rankFail("%s: %v", tc.name, err)
		}
		if res.Levels == 0 || !res.Metrics.Feasible {
			rankFail("%s: %d levels, heaviest PE %d, Lmax %d: want a coarsened, feasible mapping", tc.name, res.Levels, res.Metrics.MaxBlock, res.Metrics.Lmax)
		}
		if rank == 0 {
			fmt.Printf("ok %s J=%d max=%d lmax=%d\n", tc.name, res.Metrics.J, res.Metrics.MaxBlock, res.Metrics.Lmax)
		}
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
