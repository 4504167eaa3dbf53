package distmap_test

import (
	"fmt"
	"runtime"

	"github.com/gpumap/gpumap/distmap"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// A Go MPI program maps a ring of 8 vertices per rank, each rank owning a
// contiguous range (ParMETIS's vtxdist), onto 4:2 with distances 1:10.
// Run it under mpirun (it is compiled, not run, by go test).
func Example() {
	runtime.LockOSThread() // MPI from this thread only
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	// A private copy of the communicator that returns MPI's errors; the
	// graph keeps it until it is no longer used.
	c, err := mpi.Copy(mpi.World(), true)
	if err != nil {
		panic(err)
	}
	defer mpi.Free(c)
	_, _, _, size, rank := mpi.Inspect(c)

	const per = 8
	n := int64(per * size)
	vtxdist := make([]int64, size+1)
	for r := range vtxdist {
		vtxdist[r] = int64(r) * per
	}
	// Local offsets from 0, global neighbour ids; nil weights are all 1.
	xadj := []int64{0}
	var adjncy []int64
	for v := vtxdist[rank]; v < vtxdist[rank+1]; v++ {
		adjncy = append(adjncy, (v+n-1)%n, (v+1)%n)
		xadj = append(xadj, int64(len(adjncy)))
	}
	g, err := distmap.New(c, vtxdist, xadj, adjncy, nil, nil)
	if err != nil {
		// The same error on every rank; distmap.KindOf says what it is
		// about (distmap.KindGraph: the arrays, say).
		fmt.Println(err)
		return
	}
	top, err := topology.Parse("4:2", "1:10")
	if err != nil {
		panic(err)
	}
	// Every rank must pass the same options and machine.
	opt := distmap.DefaultOptions() // the zero Options is eps 0 and the fast preset
	opt.Seed = 1
	res, err := distmap.Map(g, top, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	// res.PE[v] is the PE of local vertex v (global vtxdist[rank]+v); the
	// metrics are of the whole mapping, the same on every rank.
	if rank == 0 {
		fmt.Println("J =", res.Metrics.J, "feasible:", res.Metrics.Feasible)
	}
}
