package distmap

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
)

// The distributed matching on 3 ranks against the one-process one: on
// grids (2D, 3D) and random graphs with random vertex weights, spread over
// the ranks at random boundaries (mid-row, one rank possibly empty), the
// clusters are pairs joined by an edge or single vertices, within the
// weight limit, labelled by their smaller global id, the ghosts hold
// their owners' labels; and wherever no edge spans more than two ranks
// the matching is exactly coarsening.Greedy's natural one on the whole
// graph (matching each rank alone paired a grid out of phase from a
// boundary inside a row on).
func TestMatchAcrossRanks(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestMatchAcrossRanks")
		ok := regexp.MustCompile(`(?m)^rank \d: (\d+) trials ok, (\d+) exact$`).FindAllStringSubmatch(out, -1)
		if len(ok) != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", len(ok), out)
		}
		if ok[0][2] == "0" {
			t.Fatalf("no trial compared with the one-process matching\n%s", out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 200
	exact := 0
	for trial := range trials {
		var whole *graph.Graph
		limit := int64(2)
		switch trial % 3 {
		case 0:
			whole = graph.Grid(2+rng.IntN(12), 2+rng.IntN(12))
		case 1:
			whole = graph.Grid(2+rng.IntN(5), 2+rng.IntN(5), 2+rng.IntN(5))
		default:
			whole = randomGraph(rng, 2+rng.IntN(60))
			for v := range whole.VW {
				whole.VW[v] = int64(1 + rng.IntN(3))
			}
			limit = int64(2 + rng.IntN(5))
		}
		n := whole.N()
		vtxdist := randomVtxdist(rng, n)
		g, err := rankSlice(c, whole, vtxdist, rank, true, whole.W)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		label, err := match(g, limit)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		all, _, err := mpi.Allgatherv(c, label[:g.N()], size)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		for i, x := range g.Ghost {
			if label[g.N()+i] != all[x] {
				rankFail("trial %d: ghost %d has label %d, its owner says %d", trial, x, label[g.N()+i], all[x])
			}
		}
		members := map[int64][]int{}
		for v, l := range all {
			members[l] = append(members[l], v)
		}
		for l, vs := range members {
			switch {
			case int64(vs[0]) != l:
				rankFail("trial %d: cluster %v labelled %d", trial, vs, l)
			case len(vs) > 2:
				rankFail("trial %d: cluster %v of more than two", trial, vs)
			case len(vs) == 2 && whole.VW[vs[0]]+whole.VW[vs[1]] > limit:
				rankFail("trial %d: pair %v weighs more than %d", trial, vs, limit)
			case len(vs) == 2 && !edge(whole, vs[0], vs[1]):
				rankFail("trial %d: pair %v is not an edge", trial, vs)
			}
		}
		// Brute force where every edge joins neighbouring ranks at most.
		near := true
		for v := range n {
			for _, u := range whole.Adj[whole.XAdj[v]:whole.XAdj[v+1]] {
				if d := owner(vtxdist, int64(v)) - owner(vtxdist, int64(u)); d > 1 || d < -1 {
					near = false
				}
			}
		}
		if !near {
			continue
		}
		want := coarsening.Greedy(whole, limit, 0, nil, true)
		for v, u := range want {
			if l := int64(min(v, int(u))); all[v] != l {
				rankFail("trial %d (n %d, vtxdist %v): vertex %d labelled %d, the one-process matching pairs it with %d", trial, n, vtxdist, v, all[v], u)
			}
		}
		exact++
	}
	fmt.Printf("rank %d: %d trials ok, %d exact\n", rank, trials, exact)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// edge reports whether g has the edge {a, b}.
func edge(g *graph.Graph, a, b int) bool {
	for _, u := range g.Adj[g.XAdj[a]:g.XAdj[a+1]] {
		if int(u) == b {
			return true
		}
	}
	return false
}
