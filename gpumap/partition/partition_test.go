package partition

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

func limits(total int64, k int, eps float64) []int64 {
	l := graph.Lmax(total, k, eps)
	m := make([]int64, k)
	for i := range m {
		m[i] = l
	}
	return m
}

func check(t *testing.T, g *graph.Graph, part []int32, maxW []int64) int64 {
	t.Helper()
	bw := make([]int64, len(maxW))
	for v, b := range part {
		if b < 0 || int(b) >= len(maxW) {
			t.Fatalf("vertex %d in block %d", v, b)
		}
		bw[b] += g.VW[v]
	}
	for b := range bw {
		if bw[b] > maxW[b] {
			t.Fatalf("block %d weighs %d > %d", b, bw[b], maxW[b])
		}
	}
	o := refinement.Cut()
	return o.Cost(g, part)
}

func TestGridBisectionIsStraight(t *testing.T) {
	// The best balanced bisection of a grid cuts one row of edges; natural
	// order coarsening must keep that cut available on every level.
	for _, n := range []int{16, 64, 256} {
		g := graph.Grid(n, n)
		maxW := limits(int64(n*n), 2, 0)
		part := Partition(par.New(1), g, maxW, Config{Seed: 1, Natural: true, Tries: 4})
		if cut := check(t, g, part, maxW); cut != int64(n) {
			t.Errorf("%dx%d: cut %d, want %d", n, n, cut, n)
		}
		// Random-order coarsening has to come close.
		part = Partition(par.New(1), g, maxW, Config{Seed: 1, Tries: 8, FM: refinement.FMConfig{Alpha: 60}})
		if cut := check(t, g, part, maxW); float64(cut) > 1.5*float64(n) {
			t.Errorf("%dx%d random order: cut %d, more than 50%% above %d", n, n, cut, n)
		}
	}
}

func TestCandidatesAndLocality(t *testing.T) {
	g := graph.Grid(64, 64)
	maxW := limits(4096, 4, 0.03)
	part := Partition(par.New(2), g, maxW, Config{Seed: 2, Local: true, Hierarchies: 2, Candidates: 2, PruneDiv: 8})
	if cut := check(t, g, part, maxW); cut > 140 {
		t.Errorf("4-way cut of a 64x64 grid %d, want at most 140 (optimum 128)", cut)
	}
}

func TestExactBalanceKWay(t *testing.T) {
	// 32x32 grid into 16 exact blocks of 64: the 8x8 tiling cuts 384 edges.
	g := graph.Grid(32, 32)
	for _, rec := range []bool{false, true} {
		maxW := limits(1024, 16, 0)
		part := Partition(par.New(2), g, maxW, Config{Seed: 3, Recursive: rec})
		cut := check(t, g, part, maxW)
		if cut > 384*115/100 {
			t.Errorf("recursive=%v: cut %d, more than 15%% above the tiling's 384", rec, cut)
		}
	}
}

func TestUnequalLimits(t *testing.T) {
	g := graph.Grid(20, 30)
	maxW := []int64{100, 200, 300}
	part := Partition(par.New(1), g, maxW, Config{Seed: 5})
	check(t, g, part, maxW)
}

func TestRandomGraphsFeasible(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		g := graph.Random(300+int(seed)*50, 2000, 10, 4, seed)
		for _, k := range []int{2, 3, 7, 16} {
			maxW := limits(g.TotalVertexWeight(), k, 0.05)
			part := Partition(par.New(2), g, maxW, Config{Seed: seed})
			check(t, g, part, maxW)
		}
	}
}

func TestDeterministic(t *testing.T) {
	g := graph.RandomGeometric(5000, 9)
	maxW := limits(5000, 8, 0.03)
	a := Partition(par.New(2), g, maxW, Config{Seed: 11})
	b := Partition(par.New(2), g, maxW, Config{Seed: 11})
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different partitions")
		}
	}
}

func BenchmarkPartitionRGG(b *testing.B) {
	g := graph.RandomGeometric(1<<15, 1)
	maxW := limits(1<<15, 8, 0.03)
	x := par.New(1)
	for i := 0; i < b.N; i++ {
		part := Partition(x, g, maxW, Config{Seed: uint64(i)})
		o := refinement.Cut()
		b.ReportMetric(float64(o.Cost(g, part)), "cut")
	}
}

// A hierarchy shared by tries that differ only in their seeds gives every
// try the partition it computes on its own, and is dropped level by level
// once every user has passed.
func TestSharedCoarseningGivesTheSamePartitions(t *testing.T) {
	g := graph.RandomGeometric(6000, 5)
	maxW := limits(g.TotalVertexWeight(), 6, 0.03)
	cfg := Config{Tries: 4, LPRounds: 2, FMRounds: 2, Local: true, FM: refinement.FMConfig{Alpha: 30}}
	if !SharedCoarsening(g, maxW, cfg) {
		t.Fatal("natural-order coarsening not shareable")
	}
	if c := cfg; SharedCoarsening(g, maxW, func() Config { c.Local = false; return c }()) {
		t.Fatal("random-order coarsening depends on the seed, yet it is shareable")
	}
	const users = 3
	h := Coarsen(par.New(2), g, maxW, cfg, users)
	if len(h.levels) < 2 {
		t.Fatalf("%d levels", len(h.levels))
	}
	for u := 0; u < users; u++ {
		c := cfg
		c.Seed = uint64(u) * 77
		alone := Partition(par.New(1), g, maxW, c)
		c.Levels = h
		shared := Partition(par.New(2), g, maxW, c)
		for v := range alone {
			if alone[v] != shared[v] {
				t.Fatalf("seed %d: vertex %d in block %d with the shared hierarchy, %d alone", c.Seed, v, shared[v], alone[v])
			}
		}
		if u < users-1 && h.levels[0].Graph == nil {
			t.Fatalf("level 0 dropped after %d of %d users", u+1, users)
		}
	}
	for i, l := range h.levels {
		if l.Graph != nil || l.CMap != nil {
			t.Fatalf("level %d kept after every user passed", i)
		}
	}
}

// Issue 25: a flat bisection's FM rounds stop by their measured gain
// (FlatMinImprove) instead of running while they gain anything. With a
// fraction of 1 every round gains less than it, so each try stops after
// its first round: the partitions of a flat bisection (and of the coarsest
// graph of a multilevel one) are those of one round per try, and they
// differ from those of FlatRounds rounds on these graphs.
func TestFlatBisectionStopsByGain(t *testing.T) {
	for _, c := range []struct {
		g    *graph.Graph
		seed uint64
	}{{graph.RandomGeometric(150, 7), 1}, {graph.PowerLaw(140, 3, 4), 7}, {graph.PowerLaw(3000, 4, 1), 7}} {
		g := c.g
		maxW := limits(g.TotalVertexWeight(), 2, 0.03)
		cfg := Config{Seed: c.seed, Tries: 4, FM: refinement.FMConfig{Alpha: 30}}
		run := func(minImprove float64, rounds int) []int32 {
			defer func(r int) { FlatRounds = r }(FlatRounds)
			FlatRounds = rounds
			c := cfg
			c.FlatMinImprove = minImprove
			return Partition(par.New(1), g, maxW, c)
		}
		stopped, one, all := run(1, FlatRounds), run(0, 1), run(0, FlatRounds)
		check(t, g, stopped, maxW)
		if !slices.Equal(stopped, one) {
			t.Errorf("n=%d: FlatMinImprove 1 did not stop every try after one FM round", g.N())
		}
		if slices.Equal(one, all) {
			t.Errorf("n=%d: one FM round per try gives the partition of %d: the graph tells nothing apart", g.N(), FlatRounds)
		}
	}
}
