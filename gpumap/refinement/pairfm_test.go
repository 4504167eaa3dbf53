package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Two triangles {0,1,2} and {3,4,5} joined by one edge, split across the
// wrong way at exact balance (3 and 3): single moves are infeasible, and
// PairFM must find the two exchanges that leave only the bridge cut.
func TestPairFMHandCase(t *testing.T) {
	b := graph.NewBuilder(6)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}, {2, 3}} {
		b.AddEdge(e[0], e[1], 1)
	}
	g, _ := b.Build()
	part := []int32{0, 0, 1, 1, 1, 0} // cut 4: 0-2, 1-2, 3-5, 4-5
	s := NewState(g, 2, part, []int64{3, 3}, Cut())
	before := s.Cost()
	gain := PairFM(s, PairFMConfig{Seed: 1})
	if s.Cost() != 1 || before-gain != 1 {
		t.Fatalf("cut %d -> %d (gain %d), want 1", before, s.Cost(), gain)
	}
	if s.BW[0] != 3 || s.BW[1] != 3 {
		t.Fatalf("balance broken: %v", s.BW)
	}
}

// On random graphs with random vertex weights and limits that start out
// tight, PairFM never breaks a limit, never raises the cost, and reports
// its gain exactly; for the cut and for J alike.
func TestPairFMInvariants(t *testing.T) {
	top, _ := topology.Parse("2:3:2", "1:10:100")
	k := top.K()
	for trial := 0; trial < 20; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		g := graph.Random(200, 900, 7, 1+int64(trial%3), uint64(trial))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(k))
		}
		bw := make([]int64, k)
		for v, p := range part {
			bw[p] += g.VW[v]
		}
		maxW := append([]int64(nil), bw...) // every block exactly full
		for _, obj := range []Objective{Cut(), Mapping(top)} {
			s := NewState(g, k, append([]int32(nil), part...), maxW, obj)
			before := s.Cost()
			gain := PairFM(s, PairFMConfig{Seed: uint64(trial)})
			if gain < 0 || s.Cost() != before-gain {
				t.Fatalf("trial %d: cost %d -> %d, claimed gain %d", trial, before, s.Cost(), gain)
			}
			w := make([]int64, k)
			for v, p := range s.Part {
				w[p] += g.VW[v]
			}
			for b := range w {
				if w[b] != s.BW[b] || w[b] > maxW[b] {
					t.Fatalf("trial %d: block %d weighs %d (tracked %d), limit %d", trial, b, w[b], s.BW[b], maxW[b])
				}
			}
		}
	}
}
