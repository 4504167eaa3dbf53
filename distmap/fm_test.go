package distmap

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// The distributed FM on 3 ranks against brute force: on random graphs
// spread unevenly over the ranks (one rank may own nothing), with a
// random feasible start, the fall localFM reports equals the fall of J
// computed from the whole graph (graph.Evaluate on every rank's copy),
// no PE passes Lmax, the ghosts hold their owners' PEs, and a second run
// from the same start gives the same mapping.
func TestLocalFM(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestLocalFM")
		ok := regexp.MustCompile(`(?m)^rank \d: (\d+) trials ok, (\d+) with a fall$`).FindAllStringSubmatch(out, -1)
		if len(ok) != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", len(ok), out)
		}
		if ok[0][2] == "0" {
			t.Fatalf("no trial improved J: the test tests nothing\n%s", out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("2:2:2", "1:10:100")
	k := top.K()
	// Every rank draws the same whole graph and keeps its part.
	rng := rand.New(rand.NewPCG(11, 12))
	const trials = 150
	falls := 0
	for trial := range trials {
		n := 2 + rng.IntN(40)
		whole := randomGraph(rng, n)
		vtxdist := randomVtxdist(rng, n)
		lmax := graph.Lmax(int64(n), k, float64(rng.IntN(4))/4)
		start := feasibleStart(rng, whole, k, lmax)
		lo := vtxdist[rank]
		g, err := rankSlice(c, whole, vtxdist, rank, false, whole.W)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		if g.size != size {
			rankFail("size")
		}
		local := func() []int32 {
			pe := make([]int32, g.N()+len(g.Ghost))
			for v := range g.N() {
				pe[v] = start[lo+int64(v)]
			}
			for i, x := range g.Ghost {
				pe[g.N()+i] = start[x]
			}
			return pe
		}
		cfg := refinement.FMConfig{Seed: uint64(trial)}
		pe := local()
		lg := localGraph(g)
		fall, err := localFM(g, lg, top, pe, lmax, cfg)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		again := local()
		if _, err := localFM(g, lg, top, again, lmax, cfg); err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		if !slices.Equal(pe, again) {
			rankFail("trial %d: two runs differ", trial)
		}
		all, _, err := mpi.Allgatherv(c, pe[:g.N()], size)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		for i, x := range g.Ghost {
			if pe[g.N()+i] != all[x] {
				rankFail("trial %d: ghost %d has PE %d, its owner says %d", trial, x, pe[g.N()+i], all[x])
			}
		}
		before, err1 := graph.Evaluate(whole, top, start, 0)
		after, err2 := graph.Evaluate(whole, top, all, 0)
		if err1 != nil || err2 != nil {
			rankFail("trial %d: %v %v", trial, err1, err2)
		}
		if fall != before.J-after.J {
			rankFail("trial %d (n %d, vtxdist %v): localFM reports a fall of %d, J went from %d to %d", trial, n, vtxdist, fall, before.J, after.J)
		}
		if after.MaxBlock > lmax {
			rankFail("trial %d: a PE weighs %d > Lmax %d", trial, after.MaxBlock, lmax)
		}
		if fall > 0 {
			falls++
		}
	}
	fmt.Printf("rank %d: %d trials ok, %d with a fall\n", rank, trials, falls)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// randomGraph returns a random connected-ish graph on n vertices with
// edge weights 1..4 (the same for the same rng state).
func randomGraph(rng *rand.Rand, n int) *graph.Graph {
	type e struct{ a, b int }
	seen := map[e]int64{}
	for v := 1; v < n; v++ {
		seen[e{rng.IntN(v), v}] = int64(1 + rng.IntN(4))
	}
	for range rng.IntN(2 * n) {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			seen[e{min(a, b), max(a, b)}] = int64(1 + rng.IntN(4))
		}
	}
	nb := make([][]int32, n)
	wt := make([][]int64, n)
	keys := make([]e, 0, len(seen))
	for x := range seen {
		keys = append(keys, x)
	}
	slices.SortFunc(keys, func(x, y e) int {
		if x.a != y.a {
			return x.a - y.a
		}
		return x.b - y.b
	})
	for _, x := range keys {
		nb[x.a] = append(nb[x.a], int32(x.b))
		wt[x.a] = append(wt[x.a], seen[x])
		nb[x.b] = append(nb[x.b], int32(x.a))
		wt[x.b] = append(wt[x.b], seen[x])
	}
	xadj := []int64{0}
	var adj []int32
	var w []int64
	for v := range n {
		adj = append(adj, nb[v]...)
		w = append(w, wt[v]...)
		xadj = append(xadj, int64(len(adj)))
	}
	g, err := graph.FromCSR(xadj, adj, nil, w)
	if err != nil {
		panic(err)
	}
	return g
}

// feasibleStart places the vertices in a random order, each on a random PE
// with room below lmax.
func feasibleStart(rng *rand.Rand, g *graph.Graph, k int, lmax int64) []int32 {
	part := make([]int32, g.N())
	load := make([]int64, k)
	for v := range part {
		for {
			p := rng.IntN(k)
			if load[p]+g.VW[v] <= lmax {
				part[v] = int32(p)
				load[p] += g.VW[v]
				break
			}
		}
	}
	return part
}
