package distmap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
)

// check's sequential passes (localSymmetric, receivedListed) against the
// lookups alone (lookupOnly) at P=1..3: random small symmetric graphs,
// their lists shuffled or not, weighted or not, each with at most one
// corruption (an arc dropped, reweighted, added or redirected), give the
// same error, byte for byte, or none.
func TestCheckFastBruteForce(t *testing.T) {
	if !mpitest.Child() {
		runRanks(t, "TestCheckFastBruteForce", 1, 2, 3)
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	graphs, failed := 0, 0
	for trial := range 400 {
		r := rand.New(rand.NewPCG(uint64(trial), 24))
		n := 1 + r.IntN(12)
		weighted := r.IntN(2) == 0
		adj := make([][][2]int64, n) // (neighbour, weight)
		for range r.IntN(3 * n) {
			u, v := r.IntN(n), r.IntN(n)
			if u == v || slices.ContainsFunc(adj[u], func(a [2]int64) bool { return a[0] == int64(v) }) {
				continue
			}
			w := int64(1)
			if weighted {
				w = 1 + r.Int64N(3)
			}
			adj[u] = append(adj[u], [2]int64{int64(v), w})
			adj[v] = append(adj[v], [2]int64{int64(u), w})
		}
		for u := range adj {
			slices.SortFunc(adj[u], func(a, b [2]int64) int { return cmp64(a[0], b[0]) })
		}
		// One corruption at a random vertex (or none).
		u := r.IntN(n)
		switch r.IntN(5) {
		case 1:
			if len(adj[u]) > 0 {
				adj[u] = slices.Delete(adj[u], 0, 1)
			}
		case 2:
			if len(adj[u]) > 0 {
				i := r.IntN(len(adj[u]))
				adj[u][i][1]++
				weighted = true
			}
		case 3:
			adj[u] = append(adj[u], [2]int64{r.Int64N(int64(n)), 1})
		case 4:
			if len(adj[u]) > 0 {
				adj[u][r.IntN(len(adj[u]))][0] = r.Int64N(int64(n))
			}
		}
		if r.IntN(2) == 0 {
			for u := range adj {
				r.Shuffle(len(adj[u]), func(i, j int) { adj[u][i], adj[u][j] = adj[u][j], adj[u][i] })
			}
		}
		vtx := make([]int64, size+1)
		for i := 1; i < size; i++ {
			vtx[i] = r.Int64N(int64(n) + 1)
		}
		vtx[size] = int64(n)
		slices.Sort(vtx)
		xadj := []int64{0}
		var adjncy, adjwgt []int64
		for v := vtx[rank]; v < vtx[rank+1]; v++ {
			for _, a := range adj[v] {
				adjncy, adjwgt = append(adjncy, a[0]), append(adjwgt, a[1])
			}
			xadj = append(xadj, int64(len(adjncy)))
		}
		if !weighted {
			adjwgt = nil
		}
		run := func(lookup bool) string {
			lookupOnly = lookup
			defer func() { lookupOnly = false }()
			_, err := New(c, vtx, xadj, slices.Clone(adjncy), nil, slices.Clone(adjwgt))
			return fmt.Sprint(err)
		}
		fast, slow := run(false), run(true)
		if fast != slow {
			rankFail("rank %d trial %d: %q, the lookups alone %q", rank, trial, fast, slow)
		}
		if slow != "<nil>" {
			failed++
		}
		graphs++
	}
	if failed < 50 || failed > graphs-50 {
		rankFail("rank %d: %d of %d graphs failed the check: too few of either", rank, failed, graphs)
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
