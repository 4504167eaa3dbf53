package refinement

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// star builds a star: vertex 0 joined to 1..n-1 with the given weights.
func star(n int, weight func(i int) int64) *graph.Graph {
	b := graph.NewBuilder(n)
	for i := 1; i < n; i++ {
		b.AddEdge(0, i, weight(i))
	}
	g, _ := b.Build()
	return g
}

func permState(g *graph.Graph, top *topology.Topology, seed uint64) *State {
	k := top.K()
	rng := rand.New(rand.NewPCG(seed, 7))
	part := make([]int32, g.N())
	for v, p := range rng.Perm(k)[:g.N()] {
		part[v] = int32(p)
	}
	maxW := make([]int64, k)
	for i := range maxW {
		maxW[i] = 1
	}
	return NewState(g, k, part, maxW, Mapping(top))
}

func checkPermutation(t *testing.T, part []int32, k int) {
	t.Helper()
	seen := make([]bool, k)
	for v, p := range part {
		if p < 0 || int(p) >= k || seen[p] {
			t.Fatalf("vertex %d: PE %d repeated or out of range", v, p)
		}
		seen[p] = true
	}
}

// On a weighted star the optimum is known in closed form: with the centre
// on any PE (all are alike on a regular machine), the heaviest leaves take
// the nearest PEs. Swaps must reach it from random permutations (every
// improving leaf-leaf exchange is among its candidates), keep a
// permutation, and report its gain exactly.
func TestSwapsStarOptimum(t *testing.T) {
	for _, h := range []string{"4:4:4", "2:8:4", "8:8"} {
		d := "1:10:100"
		if len(h) == 3 {
			d = "1:10"
		}
		top, _ := topology.Parse(h, d)
		k := top.K()
		for seed := uint64(0); seed < 6; seed++ {
			rng := rand.New(rand.NewPCG(seed, 3))
			ws := make([]int64, k)
			g := star(k, func(i int) int64 { ws[i] = 1 + rng.Int64N(50); return ws[i] })
			leaves := append([]int64(nil), ws[1:]...)
			sort.Slice(leaves, func(i, j int) bool { return leaves[i] > leaves[j] })
			dists := make([]int64, 0, k-1)
			for q := 1; q < k; q++ {
				dists = append(dists, top.Distance(0, q))
			}
			sort.Slice(dists, func(i, j int) bool { return dists[i] < dists[j] })
			opt := int64(0)
			for i := range leaves {
				opt += leaves[i] * dists[i]
			}
			s := permState(g, top, seed)
			before := s.Cost()
			gain := Swaps(s, top, SwapConfig{Rounds: 50, Seed: seed})
			checkPermutation(t, s.Part, k)
			if got := s.Cost(); got != before-gain || got != opt {
				t.Fatalf("%s seed %d: J %d -> %d (claimed gain %d), optimum %d", h, seed, before, got, gain, opt)
			}
		}
	}
}

// A star whose centre is a hub (degree above the hub limit) must still be
// refined: the centre is never a candidate partner, but the leaves move.
func TestSwapsHubStar(t *testing.T) {
	top, _ := topology.Parse("16:16:4", "1:10:100")
	g := star(top.K(), func(i int) int64 { return 1 + int64(i%7) })
	s := permState(g, top, 1)
	before := s.Cost()
	gain := Swaps(s, top, SwapConfig{Seed: 1})
	checkPermutation(t, s.Part, top.K())
	if gain <= 0 || s.Cost() != before-gain {
		t.Fatalf("J %d -> %d, gain %d", before, s.Cost(), gain)
	}
}

// BenchmarkSwapsStar65536 is issue 8's D5: one rank talking to all others
// on 256:256. The pass used to be O(P^2) (141 s); it is now linear.
func BenchmarkSwapsStar65536(b *testing.B) {
	top, _ := topology.Parse("256:256", "1:10")
	g := star(top.K(), func(int) int64 { return 1 })
	for i := 0; i < b.N; i++ {
		s := permState(g, top, uint64(i))
		Swaps(s, top, SwapConfig{MinImprove: 1e-4, Seed: 1})
	}
}
