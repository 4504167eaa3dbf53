package distmap

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
)

// firstRound on 3 ranks against run: on grids and random graphs spread
// over the ranks at random boundaries (one rank possibly empty), with
// small cluster limits (few moves: the round pauses) and large ones, a
// paused first round, finished and followed by more rounds, gives the
// labels that run gives without a pause, and a pause promises truly that
// the round leaves more than a quarter of the vertices as clusters.
func TestFirstRoundPause(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestFirstRoundPause")
		ok := regexp.MustCompile(`(?m)^rank \d: (\d+) trials ok, (\d+) paused$`).FindAllStringSubmatch(out, -1)
		if len(ok) != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", len(ok), out)
		}
		if ok[0][2] == "0" || ok[0][2] == ok[0][1] {
			t.Fatalf("the trials should pause in some and not in others\n%s", out)
		}
		return
	}
	defer rankRecover()
	c, _, rank := rankComm(t)
	rng := rand.New(rand.NewPCG(7, 8))
	const trials = 120
	paused := 0
	for trial := range trials {
		var whole *graph.Graph
		switch trial % 2 {
		case 0:
			whole = graph.Grid(2+rng.IntN(40), 2+rng.IntN(40))
		default:
			whole = randomGraph(rng, 2+rng.IntN(200))
		}
		limit := int64(1 + rng.IntN(8))
		n := whole.N()
		vtxdist := randomVtxdist(rng, n)
		g, err := rankSlice(c, whole, vtxdist, rank, true, nil)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		block := []int{0, 16}[rng.IntN(2)]
		seed := rng.Uint64()
		a, err := newClustering(g, limit, seed, 0, 1, block)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		p, err := a.firstRound()
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		b, err := newClustering(g, limit, seed, 0, 1, block)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		if err := b.run(1); err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		if p {
			paused++
			nc, err := countLabels(g, b.label)
			if err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			if 4*nc <= int64(n) {
				rankFail("trial %d: paused, but one round leaves %d clusters of %d vertices", trial, nc, n)
			}
			if err := a.run(1); err != nil {
				rankFail("trial %d: %v", trial, err)
			}
		}
		for round := range 3 {
			if !slices.Equal(a.label, b.label) {
				rankFail("trial %d (paused %v): labels after round %d differ: %v and %v", trial, p, round+1, a.label, b.label)
			}
			if err := a.run(1); err != nil {
				rankFail("trial %d: %v", trial, err)
			}
			if err := b.run(1); err != nil {
				rankFail("trial %d: %v", trial, err)
			}
		}
	}
	fmt.Printf("rank %d: %d trials ok, %d paused\n", rank, trials, paused)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
