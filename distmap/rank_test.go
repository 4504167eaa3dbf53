package distmap

import (
	"fmt"
	"regexp"
	"runtime"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// The ranks of an mpitest test (mpitest.Child) share this set-up: MPI on
// the test's own thread, a private copy of MPI_COMM_WORLD that returns
// errors, and a failure that every rank sees (FAIL on the output, then
// MPI_Abort, so no rank waits in a collective for one that failed).

// rankComm initializes MPI and returns the copy, its size and this rank.
// Defer rankRecover before it.
func rankComm(t *testing.T) (c mpi.Comm, size, rank int) {
	runtime.LockOSThread()
	if err := mpi.Init(); err != nil {
		t.Fatal(err)
	}
	c, err := mpi.Copy(mpi.World(), true)
	if err != nil {
		rankFail("%v", err)
	}
	_, _, _, size, rank = mpi.Inspect(c)
	return c, size, rank
}

// rankFail prints FAIL and the message and aborts every rank.
func rankFail(format string, a ...any) {
	fmt.Printf("FAIL: "+format+"\n", a...)
	mpi.Abort(mpi.World(), 1)
}

// rankRecover turns a panic of the rank into rankFail (deferred).
func rankRecover() {
	if r := recover(); r != nil {
		rankFail("panic: %v", r)
	}
}

// runRanks runs the test name at each rank count of ps (mpitest.Run) and
// fails unless every rank printed "rank r: ok".
func runRanks(t *testing.T, name string, ps ...int) {
	t.Helper()
	ok := regexp.MustCompile(`(?m)^rank \d: ok$`)
	for _, p := range ps {
		out := mpitest.Run(t, p, name)
		if n := len(ok.FindAllString(out, -1)); n != p {
			t.Fatalf("P=%d: %d of %d ranks passed:\n%s", p, n, p, out)
		}
	}
}

// mapBoth maps g across the ranks with opt, and whole, the same graph, in
// one process with gpumap's default preset at opt's eps and seed on one
// thread: the tests of the distributed J compare the two. An error fails
// the rank.
func mapBoth(g *Graph, whole *graph.Graph, top *topology.Topology, opt Options) (dist *Result, oneJ int64) {
	dist, err := Map(g, top, opt)
	if err != nil {
		rankFail("%v", err)
	}
	o := gpumap.DefaultOptions()
	o.Eps, o.Seed, o.Threads = opt.Eps, opt.Seed, 1
	one, err := gpumap.Map(whole, top, o)
	if err != nil {
		rankFail("%v", err)
	}
	return dist, one.Metrics.J
}
