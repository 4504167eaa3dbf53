package kway

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
)

// fineConfig is the default preset's wide Fine splits (partition's path).
var fineConfig = partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1}

// BenchmarkFlat and BenchmarkFlatPartition split a 6x6x2 grid (72
// vertices, about a socket's group of a wide machine) into 8 children of
// at most 12: Flat against the partitioner's path for graphs this small.
func BenchmarkFlat(b *testing.B) {
	g := graph.Grid(6, 6, 2)
	maxW := []int64{12, 12, 12, 12, 12, 12, 12, 12}
	for i := range b.N {
		if Flat(g, maxW, 1, 4, uint64(i)) == nil {
			b.Fatal("no split")
		}
	}
}

// BenchmarkFlatSockets splits random geometric graphs of 60 vertices (a
// socket's group of rgg 121k onto 4:8:64:8:6) into 8 children of at most
// 8 with the default preset's 4 growing tries.
func BenchmarkFlatSockets(b *testing.B) {
	gs := make([]*graph.Graph, 64)
	for i := range gs {
		gs[i] = graph.RandomGeometric(60, uint64(i))
	}
	maxW := []int64{8, 8, 8, 8, 8, 8, 8, 8}
	for i := range b.N {
		if Flat(gs[i%len(gs)], maxW, 4, 4, uint64(i)) == nil {
			b.Fatal("no split")
		}
	}
}

func BenchmarkFlatPartition(b *testing.B) {
	g := graph.Grid(6, 6, 2)
	maxW := []int64{12, 12, 12, 12, 12, 12, 12, 12}
	x := par.New(1)
	for i := range b.N {
		c := fineConfig
		c.Seed = uint64(i)
		partition.Partition(x, g, maxW, c)
	}
}

// checkFlat fails unless Flat splits g into len(maxW) children within
// their limits, the same way twice, and returns the cut.
func checkFlat(t *testing.T, g *graph.Graph, maxW []int64, tries, lp int, seed uint64) int64 {
	t.Helper()
	part := Flat(g, maxW, tries, lp, seed)
	if part == nil {
		t.Fatalf("no split of %d vertices into %v", g.N(), maxW)
	}
	again := Flat(g, maxW, tries, lp, seed)
	for v := range part {
		if part[v] != again[v] {
			t.Fatalf("seed %d: vertex %d in child %d, then %d", seed, v, part[v], again[v])
		}
	}
	return check(t, g, maxW, part)
}

// Two 4-cliques joined by one edge, into 2 children of at most 4: the
// cliques, cut 1. A path of 16 into 4 children of 4: the segments, cut 3.
func TestFlatByHand(t *testing.T) {
	b := graph.NewBuilder(8)
	for c := range 2 {
		for u := range 4 {
			for v := u + 1; v < 4; v++ {
				b.AddEdge(4*c+u, 4*c+v, 1)
			}
		}
	}
	b.AddEdge(3, 4, 1)
	cliques, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	b = graph.NewBuilder(16)
	for v := range 15 {
		b.AddEdge(v, v+1, 1)
	}
	path, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(20) {
		if cut := checkFlat(t, cliques, []int64{4, 4}, 1, 0, seed); cut != 1 {
			t.Errorf("cliques, seed %d: cut %d, want 1", seed, cut)
		}
		if cut := checkFlat(t, path, []int64{4, 4, 4, 4}, 2, 4, seed); cut != 3 {
			t.Errorf("path, seed %d: cut %d, want 3", seed, cut)
		}
	}
}

// Random graphs with isolated vertices (the growing restarts) into
// children with no slack (unit weights: a split always exists) and, with
// vertex weights 1-3, into children with room for the heaviest vertex:
// every child within its limit, the same split for the same seed.
func TestFlatLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 300 {
		n := 2 + r.IntN(90)
		k := 2 + r.IntN(min(n-1, 15))
		weighted := i%2 == 1
		b := graph.NewBuilder(n)
		for range r.IntN(3 * n) {
			if u, v := r.IntN(n), r.IntN(n); u != v {
				b.AddEdge(u, v, int64(1+r.IntN(3)))
			}
		}
		var total, heaviest int64 = 0, 1
		if weighted {
			for v := range n {
				w := int64(1 + r.IntN(3))
				b.SetVertexWeight(v, w)
				total, heaviest = total+w, max(heaviest, w)
			}
		} else {
			total = int64(n)
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		maxW := make([]int64, k)
		for c := range maxW {
			maxW[c] = (total + int64(k) - 1) / int64(k)
			if weighted {
				maxW[c] = total/int64(k) + 2*heaviest
			}
		}
		checkFlat(t, g, maxW, 1+i%4, i%5, uint64(i))
	}
}

// Skipping the tries that start where an earlier one started or grow the
// sides it grew (flatSkipRepeats) must leave every split as running them
// all does: random geometric graphs of socket size and random graphs,
// with 1-8 tries, unit and random vertex weights.
func TestFlatSkipsOnlyRepeats(t *testing.T) {
	defer func() { flatSkipRepeats = true }()
	r := rand.New(rand.NewPCG(26, 1))
	for i := range 400 {
		var g *graph.Graph
		if i%2 == 0 {
			g = graph.RandomGeometric(16+r.IntN(150), uint64(i))
		} else {
			n := 8 + r.IntN(100)
			b := graph.NewBuilder(n)
			for range r.IntN(4 * n) {
				if u, v := r.IntN(n), r.IntN(n); u != v {
					b.AddEdge(u, v, int64(1+r.IntN(3)))
				}
			}
			for v := range n {
				b.SetVertexWeight(v, int64(1+r.IntN(2)))
			}
			var err error
			if g, err = b.Build(); err != nil {
				t.Fatal(err)
			}
		}
		k := 2 + r.IntN(7)
		maxW := make([]int64, k)
		for c := range maxW {
			maxW[c] = g.TotalVertexWeight()/int64(k) + 2 + int64(r.IntN(3))
		}
		tries, lp, seed := 1+r.IntN(8), r.IntN(4), uint64(i)
		flatSkipRepeats = true
		skip := Flat(g, maxW, tries, lp, seed)
		flatSkipRepeats = false
		all := Flat(g, maxW, tries, lp, seed)
		if (skip == nil) != (all == nil) || !slices.Equal(skip, all) {
			t.Fatalf("graph %d (%d vertices into %d, %d tries): skipping repeats gave another split", i, g.N(), k, tries)
		}
	}
}

// flatGolden is the hash of Flat's splits in TestFlatGolden, as the scan
// of every candidate per move computed them (commit 2f624a5): speedups of
// Flat must leave every split as it was.
const flatGolden = 0x6575c08c385d3e58

// TestFlatGolden hashes Flat's splits of random geometric graphs of a
// socket's size and of random graphs with vertex weights 1-3, with 1-8
// tries and 0-4 rounds of label propagation, into 2-16 children with
// little slack, and compares the hash with flatGolden.
func TestFlatGolden(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 2))
	h := uint64(0)
	for i := range 600 {
		var g *graph.Graph
		if i%3 != 2 {
			g = graph.RandomGeometric(16+r.IntN(150), uint64(i))
		} else {
			n := 8 + r.IntN(150)
			b := graph.NewBuilder(n)
			for range r.IntN(5 * n) {
				if u, v := r.IntN(n), r.IntN(n); u != v {
					b.AddEdge(u, v, int64(1+r.IntN(3)))
				}
			}
			for v := range n {
				b.SetVertexWeight(v, int64(1+r.IntN(3)))
			}
			var err error
			if g, err = b.Build(); err != nil {
				t.Fatal(err)
			}
		}
		k := 2 + r.IntN(15)
		maxW := make([]int64, k)
		for c := range maxW {
			maxW[c] = (g.TotalVertexWeight()+int64(k)-1)/int64(k) + int64(r.IntN(3))*g.MaxVertexWeight()
		}
		part := Flat(g, maxW, 1+r.IntN(8), r.IntN(5), uint64(i))
		h = hash.Splitmix64(h ^ uint64(len(part)))
		for _, c := range part {
			h = hash.Splitmix64(h ^ uint64(c))
		}
	}
	if h != flatGolden {
		t.Fatalf("hash of the splits %#x, want %#x", h, flatGolden)
	}
}
