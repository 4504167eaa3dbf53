package distmap

import (
	"fmt"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// Isolated vertices between a random geometric graph's (20,000 points at
// every third id, 40,000 isolated, unit weights) make the degree CV 1 or
// more, so the skewed path maps it, and their groups make heavy coarse
// vertices. At eps 0 across 2 ranks the distributed J stays within 1.3x
// gpumap.Map's. The review measured such graphs 1.1-1.5x worse once the
// isolated vertices were grouped: groups of a whole cluster weight, and
// the Jet loop on coarse levels that entered above Lmax, trading J for
// an excess that stayed: here 3.308x, and 1.021x with groups of a
// quarter of the cluster weight and label propagation on those levels.
func TestIsolatedEpsZeroJ(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestIsolatedEpsZeroJ", "J ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	whole, err := everyThird(graph.RandomGeometric(20000, 3))
	if err != nil {
		rankFail("%v", err)
	}
	top, _ := topology.Parse("4:8:2", "1:10:100")
	g := spreadEvenly(c, size, rank, whole)
	res, oneJ := mapBoth(g, whole, top, Options{Eps: 0, Seed: 1, Threads: 1, Coarsest: 2000})
	if rank == 0 {
		if !res.Metrics.Feasible || 10*res.Metrics.J > 13*oneJ {
			rankFail("J %d is %.3fx the one-process J %d (at most 1.3x), feasible %v", res.Metrics.J, float64(res.Metrics.J)/float64(oneJ), oneJ, res.Metrics.Feasible)
		}
		fmt.Printf("J ok: %d, one-process %d\n", res.Metrics.J, oneJ)
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// everyThird is base with its vertex v at id 3v and isolated vertices
// between (unit weights), as the isolated-vertex tests spread it.
func everyThird(base *graph.Graph) (*graph.Graph, error) {
	n := 3 * int64(base.N())
	xadj := []int64{0}
	var adj []int32
	for v := range n {
		if v%3 == 0 {
			b := v / 3
			for e := base.XAdj[b]; e < base.XAdj[b+1]; e++ {
				adj = append(adj, 3*base.Adj[e])
			}
		}
		xadj = append(xadj, int64(len(adj)))
	}
	return graph.FromCSR(xadj, adj, nil, nil)
}
