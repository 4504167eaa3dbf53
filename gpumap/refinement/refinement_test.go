package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// bruteBest evaluates every adjacent block by recomputing the whole cost.
func bruteBest(s *State, v int32, slack int64) (int32, int64) {
	p := s.Part[v]
	before := s.Cost()
	seen := map[int32]bool{}
	target, gain := int32(-1), int64(0)
	g := s.G
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		b := s.Part[g.Adj[e]]
		if b == p || seen[b] || g.W(e) == 0 {
			continue
		}
		seen[b] = true
		if s.BW[b]+g.VW[v] > s.MaxW[b]+slack {
			continue
		}
		s.Part[v] = b
		gn := before - s.Cost()
		s.Part[v] = p
		if target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}

func TestConnTableAgainstRecomputation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	top, _ := topology.Parse("3:4:5", "1:7:40")
	for trial := 0; trial < 8; trial++ {
		g := graph.Random(120, 1500, 9, 3, uint64(trial))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(top.K()))
		}
		maxW := make([]int64, top.K())
		for i := range maxW {
			maxW[i] = 1 << 40
		}
		for _, obj := range []Objective{Cut(), Mapping(top)} {
			s := NewState(g, top.K(), append([]int32(nil), part...), maxW, obj)
			ct := NewConnTable(s)
			for step := 0; step < 300; step++ {
				v := int32(rng.IntN(g.N()))
				if ct.Frozen(v) {
					continue
				}
				tg, gn := ct.BestMove(v, 0)
				bt, bg := bruteBest(s, v, 0)
				if gn != bg || (tg < 0) != (bt < 0) {
					t.Fatalf("trial %d step %d v=%d: BestMove (%d,%d), brute force (%d,%d)", trial, step, v, tg, gn, bt, bg)
				}
				if tg >= 0 { // the target must realise the gain
					before := s.Cost()
					p := s.Part[v]
					s.Part[v] = tg
					real := before - s.Cost()
					s.Part[v] = p
					if real != gn {
						t.Fatalf("BestMove target %d gains %d, claimed %d", tg, real, gn)
					}
				}
				ct.Move(v, int32(rng.IntN(top.K())))
			}
			// The table must equal a fresh one.
			fresh := NewConnTable(s)
			for v := int32(0); v < int32(g.N()); v++ {
				if ct.Frozen(v) {
					continue
				}
				for b := int32(0); b < int32(top.K()); b++ {
					if ct.Conn(v, b) != fresh.Conn(v, b) {
						t.Fatalf("stale entry v=%d b=%d", v, b)
					}
				}
			}
		}
	}
}
