package distmap

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// skewedWhole is asked with the degree CV of the vertices with an edge:
// a 3D grid of 64,000 vertices with 100,000 isolated ones after it
// (164,000 > 2^17: not mapped whole for its size) has CV 1.25 over all
// vertices but 0.1 over the linked ones, and keeps the levels.
func TestIsolatedNotSkewed(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestIsolatedNotSkewed", "isolated ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:8:6", "1:10:100")
	grid := graph.Grid(40, 40, 40)
	const isolated = 100000
	xadj := slices.Clone(grid.XAdj)
	for range isolated {
		xadj = append(xadj, xadj[len(xadj)-1])
	}
	vw := append(slices.Clone(grid.VW), make([]int64, isolated)...)
	for i := grid.N(); i < len(vw); i++ {
		vw[i] = 1
	}
	whole, err := graph.FromCSR(xadj, slices.Clone(grid.Adj), vw, nil)
	if err != nil {
		rankFail("%v", err)
	}
	g := spreadEvenly(c, size, rank, whole)
	res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: 1})
	if err != nil {
		rankFail("%v", err)
	}
	if res.Levels == 0 {
		rankFail("mapped whole (%d levels, coarsest %d of %d vertices): the isolated vertices made it skewed", res.Levels, res.CoarseN, whole.N())
	}
	if rank == 0 {
		fmt.Println("isolated ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
