package refinement

import "math/rand/v2"

// LabelPropagation runs size-constrained label propagation: boundary
// vertices are visited in a seeded random order and moved to the adjacent
// block of best positive gain that has room; zero-gain moves are taken
// when they leave the source lighter than the target becomes. Only
// vertices next to a move are visited again in the following round. It
// stops after rounds rounds or when a round moves fewer than n/1000
// vertices, and returns the cost reduction.
func LabelPropagation(s *State, rounds int, seed uint64) int64 {
	g := s.G
	n := int32(g.N())
	nb := newNbhd(s.K)
	rng := rand.New(rand.NewPCG(seed, 0x6c70))
	var active []int32
	for v := int32(0); v < n; v++ {
		if s.IsBoundary(v) {
			active = append(active, v)
		}
	}
	queued := make([]uint32, n) // round+1 in which v is already queued
	var next []int32
	total := int64(0)
	for r := 0; r < rounds && len(active) > 0; r++ {
		rng.Shuffle(len(active), func(i, j int) { active[i], active[j] = active[j], active[i] })
		moved := 0
		next = next[:0]
		stamp := uint32(r + 2)
		for _, v := range active {
			nb.load(s, v)
			t, gain := nb.bestMove(s, v, 0)
			if t < 0 {
				continue
			}
			p := s.Part[v]
			if gain > 0 || gain == 0 && s.BW[t]+g.VW[v] < s.BW[p] {
				s.Move(v, t)
				total += gain
				moved++
				for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
					if u := g.Adj[e]; queued[u] != stamp {
						queued[u] = stamp
						next = append(next, u)
					}
				}
			}
		}
		if moved <= int(n)/1000 {
			break
		}
		active, next = next, active
	}
	return total
}
