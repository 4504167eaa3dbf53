package distmap

import (
	"fmt"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// A random geometric graph of 3,000 vertices at every third id, 6,000
// isolated vertices between, across 2 ranks coarsened towards 300
// vertices: the coarsest graph holds at most 1,500 (before the isolated
// vertices were grouped it kept all 6,000 of them; 386 with groups of a
// whole cluster weight, 1,042 with a quarter), and the mapping is
// feasible.
func TestIsolatedCoarsen(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestIsolatedCoarsen", "coarse ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	whole, err := everyThird(graph.RandomGeometric(3000, 1))
	if err != nil {
		rankFail("%v", err)
	}
	g, err := rankSlice(c, whole, evenVtxdist(int64(whole.N()), size), rank, false, nil)
	if err != nil {
		rankFail("%v", err)
	}
	top, _ := topology.Parse("4:4:2", "1:10:100")
	res, err := Map(g, top, Options{Eps: 0.03, Seed: 1, Threads: 1, Coarsest: 300})
	if err != nil {
		rankFail("%v", err)
	}
	if res.CoarseN > 1500 || !res.Metrics.Feasible {
		rankFail("coarsest graph of %d vertices (at most 1,500), feasible %v", res.CoarseN, res.Metrics.Feasible)
	}
	if rank == 0 {
		fmt.Printf("coarse ok: %d vertices after %d levels, J %d\n", res.CoarseN, res.Levels, res.Metrics.J)
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
