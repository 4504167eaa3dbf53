package distmap

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// The room of a PE goes to the ranks that hold its vertices, on 3 ranks.
// By hand: rank 0 holds PE 0 = {0, 1, 2} and vertex 3 on PE 1, whose
// other vertices 4, 5 are on rank 1; Lmax is 4, so PE 0 has room for one
// vertex, and 3 (three edges into PE 0, one into PE 1) moves there in
// label propagation: J goes from 3 to 1. With 1/P of the room each (0)
// it could not move. (gpumap's FM does not make this move even in one
// process.) Then random graphs: refine and localFM keep
// every PE within Lmax from feasible starts, and their J matches
// graph.Evaluate's.
func TestRoomShares(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestRoomShares")
		ok := regexp.MustCompile(`(?m)^rank \d: lp J=1, (\d+) trials ok$`).FindAllStringSubmatch(out, -1)
		if len(ok) != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", len(ok), out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	part := func(whole *graph.Graph, vtxdist []int64) *Graph {
		g, err := rankSlice(c, whole, vtxdist, rank, true, whole.W)
		if err != nil {
			rankFail("%v", err)
		}
		return g
	}
	local := func(g *Graph, start []int32) []int32 {
		pe := make([]int32, g.N()+len(g.Ghost))
		for v := range g.N() {
			pe[v] = start[g.First()+int64(v)]
		}
		for i, x := range g.Ghost {
			pe[g.N()+i] = start[x]
		}
		return pe
	}
	jOf := func(g *Graph, top *topology.Topology, pe []int32) graph.Metrics {
		m, err := evaluate(g, top, pe, 0)
		if err != nil {
			rankFail("%v", err)
		}
		return m
	}
	b := graph.NewBuilder(6)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {0, 3}, {1, 3}, {2, 3}, {3, 4}, {4, 5}} {
		b.AddEdge(e[0], e[1], 1)
	}
	whole, _ := b.Build()
	two, _ := topology.Parse("2", "1")
	g := part(whole, []int64{0, 4, 6, 6})
	start := []int32{0, 0, 0, 1, 1, 1}
	lp := local(g, start)
	if err := refine(g, two, lp, 4, 2, 0, 0); err != nil {
		rankFail("%v", err)
	}
	jl := jOf(g, two, lp).J

	top, _ := topology.Parse("2:2:2", "1:10:100")
	k := top.K()
	rng := rand.New(rand.NewPCG(21, 22))
	const trials = 100
	for trial := range trials {
		n := 2 + rng.IntN(60)
		whole := randomGraph(rng, n)
		for v := range whole.VW {
			whole.VW[v] = int64(1 + rng.IntN(4))
		}
		vtxdist := randomVtxdist(rng, n)
		var total int64
		for _, x := range whole.VW {
			total += x
		}
		// 4 above Lmax: a random feasible start always exists.
		lmax := graph.Lmax(total, k, float64(rng.IntN(4))/8) + 4
		start := feasibleStart(rng, whole, k, lmax)
		g := part(whole, vtxdist)
		for step := range 2 {
			pe := local(g, start)
			var err error
			if step == 0 {
				err = refine(g, top, pe, lmax, 2, uint64(trial), 0)
			} else {
				_, err = localFM(g, localGraph(g), top, pe, lmax, refinement.FMConfig{Seed: uint64(trial)})
			}
			if err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			all, _, err := mpi.Allgatherv(c, pe[:g.N()], size)
			if err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			want, err := graph.Evaluate(whole, top, all, 0)
			if err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			if got := jOf(g, top, pe); got.J != want.J || want.MaxBlock > lmax {
				rankFail("trial %d step %d (vtxdist %v): J %d (whole graph %d), max block %d, Lmax %d", trial, step, vtxdist, got.J, want.J, want.MaxBlock, lmax)
			}
		}
	}
	fmt.Printf("rank %d: lp J=%d, %d trials ok\n", rank, jl, trials)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
