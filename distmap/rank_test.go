package distmap

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
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

// runRank0 runs the test name on np ranks (mpitest.Run), fails unless
// rank 0 printed a line that starts with prefix, and logs that line.
func runRank0(t *testing.T, np int, name, prefix string) {
	t.Helper()
	out := mpitest.Run(t, np, name)
	ok := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + `.*$`).FindString(out)
	if ok == "" {
		t.Fatalf("rank 0 did not pass:\n%s", out)
	}
	t.Log(ok)
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

// mapSeeds sums mapBoth's two J over seeds 1 to seeds (opt.Seed is
// replaced); a distributed mapping that did not coarsen or is not
// feasible fails the rank.
func mapSeeds(g *Graph, whole *graph.Graph, top *topology.Topology, opt Options, seeds uint64) (dist, oneJ int64) {
	for s := uint64(1); s <= seeds; s++ {
		opt.Seed = s
		res, j := mapBoth(g, whole, top, opt)
		if res.Levels == 0 || !res.Metrics.Feasible {
			rankFail("seed %d: %d levels, feasible %v: want a coarsened, feasible mapping", s, res.Levels, res.Metrics.Feasible)
		}
		dist += res.Metrics.J
		oneJ += j
	}
	return dist, oneJ
}

// randomVtxdist spreads n vertices over 3 ranks at two random boundaries
// (any rank may own nothing), rng's next two draws: the randomized tests
// on 3 ranks draw the same whole graph and the same vtxdist on every rank.
func randomVtxdist(rng *rand.Rand, n int) []int64 {
	vtxdist := []int64{0, int64(rng.IntN(n + 1))}
	return append(vtxdist, vtxdist[1]+int64(rng.IntN(n+1-int(vtxdist[1]))), int64(n))
}

// rankSlice is this rank's part of whole under vtxdist, made by New: the
// rows of vertices vtxdist[rank] to vtxdist[rank+1]-1 with all their
// edges (global ids), whole's vertex weights where vw (else none: all 1),
// and edge e of whole weighing ew(e) (ew nil: none, all 1).
func rankSlice(c mpi.Comm, whole *graph.Graph, vtxdist []int64, rank int, vw bool, ew func(e int64) int64) (*Graph, error) {
	lo, hi := vtxdist[rank], vtxdist[rank+1]
	xadj, adj, w := rowsOf(whole, lo, hi, ew)
	var vwgt []int64
	if vw {
		vwgt = slices.Clone(whole.VW[lo:hi])
	}
	return New(c, vtxdist, xadj, adj, vwgt, w)
}

// rowsOf is the rows of whole's vertices lo to hi-1 with all their edges,
// as New takes them, edge e weighing ew(e) (ew nil: no weights, nil).
func rowsOf(whole *graph.Graph, lo, hi int64, ew func(e int64) int64) (xadj, adj, w []int64) {
	xadj = []int64{0}
	for v := lo; v < hi; v++ {
		for e := whole.XAdj[v]; e < whole.XAdj[v+1]; e++ {
			adj = append(adj, int64(whole.Adj[e]))
			if ew != nil {
				w = append(w, ew(e))
			}
		}
		xadj = append(xadj, int64(len(adj)))
	}
	return xadj, adj, w
}
