package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// randomState maps a random graph onto top at random, then makes it
// feasible with Rebalance.
func randomState(t *testing.T, seed uint64, top *topology.Topology, obj Objective, eps float64) *State {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	g := graph.Random(300+rng.IntN(300), 2000, 20, 3, seed)
	lmax := graph.Lmax(g.TotalVertexWeight(), top.K(), eps)
	maxW := make([]int64, top.K())
	for i := range maxW {
		maxW[i] = lmax
	}
	part := make([]int32, g.N())
	for v := range part {
		part[v] = int32(rng.IntN(top.K()))
	}
	s := NewState(g, top.K(), part, maxW, obj)
	if _, ok := Rebalance(s); !ok {
		t.Fatalf("seed %d: Rebalance could not make a random mapping feasible", seed)
	}
	return s
}

func checkState(t *testing.T, s *State, what string) {
	t.Helper()
	bw := make([]int64, s.K)
	for v, b := range s.Part {
		if b < 0 || int(b) >= s.K {
			t.Fatalf("%s: vertex %d in block %d", what, v, b)
		}
		bw[b] += s.G.VW[v]
	}
	for b := range bw {
		if bw[b] != s.BW[b] {
			t.Fatalf("%s: block %d weight %d, recorded %d", what, b, bw[b], s.BW[b])
		}
		if bw[b] > s.MaxW[b] {
			t.Fatalf("%s: block %d weighs %d > %d", what, b, bw[b], s.MaxW[b])
		}
	}
}

func objectives() map[string]func() (Objective, *topology.Topology) {
	return map[string]func() (Objective, *topology.Topology){
		"cut": func() (Objective, *topology.Topology) { top, _ := topology.Parse("8", "1"); return Cut(), top },
		"J": func() (Objective, *topology.Topology) {
			top, _ := topology.Parse("2:4:3", "1:10:100")
			return Mapping(top), top
		},
	}
}

func TestRefinersNeverWorsenAndStayFeasible(t *testing.T) {
	for name, mk := range objectives() {
		obj, top := mk()
		for seed := uint64(1); seed <= 6; seed++ {
			s := randomState(t, seed, top, obj, 0.05)
			before := s.Cost()
			gain := RunFM(s, FMConfig{Seed: seed, Alpha: 40}, before)
			after := s.Cost()
			checkState(t, s, name+" FM")
			if after != before-gain || gain < 0 {
				t.Fatalf("%s FM: cost %d -> %d, reported gain %d", name, before, after, gain)
			}
			before = after
			gain = LabelPropagation(s, 4, seed)
			after = s.Cost()
			checkState(t, s, name+" LP")
			if after != before-gain || gain < 0 {
				t.Fatalf("%s LP: cost %d -> %d, reported gain %d", name, before, after, gain)
			}
			before = after
			got := Jet(par.New(2), s, JetConfig{Seed: seed})
			checkState(t, s, name+" Jet")
			if after = s.Cost(); after != got || after > before {
				t.Fatalf("%s Jet: cost %d -> %d (reported %d)", name, before, after, got)
			}
		}
	}
}

func TestJetRebalancesAndIsDeterministic(t *testing.T) {
	top, _ := topology.Parse("2:4:3", "1:10:100")
	g := graph.RandomGeometric(4000, 11)
	lmax := graph.Lmax(g.TotalVertexWeight(), top.K(), 0.03)
	maxW := make([]int64, top.K())
	for i := range maxW {
		maxW[i] = lmax
	}
	var ref []int32
	for run := 0; run < 2; run++ {
		// Everything on a third of the PEs: heavily overloaded.
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(v % (top.K() / 3))
		}
		s := NewState(g, top.K(), part, maxW, Mapping(top))
		Jet(par.New(3), s, JetConfig{Seed: 4, Iterations: 30})
		checkState(t, s, "Jet from overload")
		if ref == nil {
			ref = append([]int32(nil), s.Part...)
		} else {
			for v := range ref {
				if ref[v] != s.Part[v] {
					t.Fatal("Jet is not deterministic")
				}
			}
		}
	}
}

func TestSwapsKeepPermutation(t *testing.T) {
	top, _ := topology.Parse("4:4:4", "1:10:100")
	g := graph.Grid(8, 8)
	rng := rand.New(rand.NewPCG(2, 2))
	perm := rng.Perm(64)
	part := make([]int32, 64)
	for v := range part {
		part[v] = int32(perm[v])
	}
	maxW := make([]int64, 64)
	for i := range maxW {
		maxW[i] = 1
	}
	s := NewState(g, 64, part, maxW, Mapping(top))
	before := s.Cost()
	gain := Swaps(s, top, SwapConfig{Rounds: 10, Seed: 1})
	if s.Cost() != before-gain || gain <= 0 {
		t.Fatalf("swaps: cost %d -> %d, gain %d", before, s.Cost(), gain)
	}
	seen := make([]bool, 64)
	for _, p := range s.Part {
		if seen[p] {
			t.Fatal("swaps broke the permutation")
		}
		seen[p] = true
	}
}

func TestHandGains(t *testing.T) {
	// Path a-b-c with weights 5 and 2 on 2:2 / 1:10; a on PE 0, b on PE 2,
	// c on PE 3. Moving b to PE 0 or 1: cost of b's edges goes from
	// 5*10 + 2*1 = 52 to 5*0 + 2*10 = 20 (PE 0) or 5*1 + 2*10 = 25 (PE 1).
	b := graph.NewBuilder(3)
	b.AddEdge(0, 1, 5)
	b.AddEdge(1, 2, 2)
	g, _ := b.Build()
	top, _ := topology.Parse("2:2", "1:10")
	s := NewState(g, 4, []int32{0, 2, 3}, []int64{5, 5, 5, 5}, Mapping(top))
	ct := NewConnTable(s)
	tgt, gain := ct.BestMove(1, 0)
	if tgt != 0 || gain != 32 {
		t.Fatalf("BestMove(b) = (%d, %d), want (0, 32)", tgt, gain)
	}
	if c := s.Cost(); c != 52 {
		t.Fatalf("cost %d, want 52", c)
	}
}
