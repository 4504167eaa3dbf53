package kway

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

var testConfig = Config{C: 16, LPRounds: 2, FMRounds: -1, Bisect: partition.Config{Tries: 4},
	Pair: refinement.PairFMConfig{Rounds: 1, Alpha: 30}}

// check fails unless part puts every vertex of g into one of the blocks
// of maxW, each within its limit, and returns the cut.
func check(t *testing.T, g *graph.Graph, maxW []int64, part []int32) int64 {
	t.Helper()
	if len(part) != g.N() {
		t.Fatalf("%d entries for %d vertices", len(part), g.N())
	}
	load := make([]int64, len(maxW))
	for v, b := range part {
		if b < 0 || int(b) >= len(maxW) {
			t.Fatalf("vertex %d in block %d of %d", v, b, len(maxW))
		}
		load[b] += g.VW[v]
	}
	for b, l := range load {
		if l > maxW[b] {
			t.Errorf("block %d weighs %d, limit %d", b, l, maxW[b])
		}
	}
	var cut int64
	for v := range g.N() {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if part[v] != part[g.Adj[e]] {
				cut += g.W(e)
			}
		}
	}
	return cut / 2
}

// A path of 16 unit vertices into 4 blocks of at most 4: the only
// partitions that cut 3 edges are the 4 segments, and every block must
// be full.
func TestPathByHand(t *testing.T) {
	b := graph.NewBuilder(16)
	for v := range 15 {
		b.AddEdge(v, v+1, 1)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	maxW := []int64{4, 4, 4, 4}
	part := Partition(par.New(1), g, maxW, testConfig)
	if cut := check(t, g, maxW, part); cut != 3 {
		t.Errorf("cut %d, want 3: %v", cut, part)
	}
}

// Small graphs into many blocks, as on wide machines (a few dozen
// vertices per block, k not a power of two, uneven limits, vertex
// weights): every block within its limit, and the same partition for any
// thread count.
func TestFeasibleSameForAnyThreadCount(t *testing.T) {
	for _, c := range []struct {
		name  string
		g     *graph.Graph
		k     int
		slack float64
	}{
		{"rgg 3000 into 64", graph.RandomGeometric(3000, 5), 64, 1.1},
		{"grid 40x40 into 50", graph.Grid(40, 40), 50, 1.03},
		{"weighted into 24", graph.Random(1500, 6000, 3, 4, 9), 24, 1.1},
	} {
		total := c.g.TotalVertexWeight()
		maxW := make([]int64, c.k)
		for b := range maxW {
			// Every third block takes half as much again.
			share := float64(total) / float64(c.k) * c.slack
			if b%3 == 0 {
				share *= 1.5
			}
			maxW[b] = int64(share) + c.g.MaxVertexWeight()
		}
		var ref []int32
		for _, threads := range []int{1, 2, 3} {
			cfg := testConfig
			cfg.Seed = 7
			part := Partition(par.New(threads), c.g, maxW, cfg)
			check(t, c.g, maxW, part)
			if ref == nil {
				ref = part
			} else if !slices.Equal(ref, part) {
				t.Errorf("%s: threads=%d gives another partition than threads=1", c.name, threads)
			}
		}
	}
}
