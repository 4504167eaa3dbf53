package multisection

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// A V-cycle keeps an exactly balanced partition exactly balanced and never
// raises its cut.
func TestVCycleKeepsBalance(t *testing.T) {
	x := par.New(1)
	for trial := 0; trial < 6; trial++ {
		g := graph.RandomGeometric(2000, uint64(trial))
		k := 8
		rng := rand.New(rand.NewPCG(uint64(trial), 1))
		part := make([]int32, g.N())
		for i, v := range rng.Perm(g.N()) {
			part[v] = int32(i % k)
		}
		maxW := make([]int64, k)
		for v, p := range part {
			maxW[p] += g.VW[v]
		}
		cut := refinement.Cut()
		before := cut.Cost(g, part)
		gain := vcycle(x, g, part, maxW, uint64(trial), refinement.PairFMConfig{Rounds: 2})
		if after := cut.Cost(g, part); gain < 0 || after != before-gain {
			t.Fatalf("trial %d: cut %d -> %d, claimed gain %d", trial, before, after, gain)
		}
		w := make([]int64, k)
		for v, p := range part {
			w[p] += g.VW[v]
		}
		for b := range w {
			if w[b] != maxW[b] {
				t.Fatalf("trial %d: block %d weighs %d, want %d", trial, b, w[b], maxW[b])
			}
		}
	}
}

// The exact-balance multisection with PairFM and V-cycles returns a
// permutation, the same one for any thread count.
func TestExactMultisectionDeterministic(t *testing.T) {
	top, _ := topology.Parse("4:2:16", "1:10:100")
	g := graph.Random(top.K(), 4*top.K(), 9, 1, 3)
	var first []int32
	for _, threads := range []int{1, 2, 3} {
		pe := Map(par.New(threads), g, top, Config{Seed: 5, TopTries: 3, VCycles: 1,
			PairFM:    refinement.PairFMConfig{Rounds: 2},
			Partition: partition.Config{Recursive: true, Pair: refinement.PairFMConfig{Rounds: 1}}})
		seen := make([]bool, top.K())
		for v, p := range pe {
			if seen[p] {
				t.Fatalf("threads %d: PE %d used twice (vertex %d)", threads, p, v)
			}
			seen[p] = true
		}
		if first == nil {
			first = pe
			continue
		}
		for v := range pe {
			if pe[v] != first[v] {
				t.Fatalf("threads %d: vertex %d on PE %d, with one thread on %d", threads, v, pe[v], first[v])
			}
		}
	}
}
