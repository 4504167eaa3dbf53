package refinement

import "math/rand/v2"

// Swaps improves a mapping in which single moves are infeasible (one task
// per PE, or all blocks full) by exchanging pairs of equally heavy vertices
// between blocks: u in block p and v in block q trade places when
//
//	G_q(u) + G_p(v) - 2 w(u,v) D(p,q) > 0,
//
// the sum of both move gains corrected for their shared edge. Candidates for
// u are the vertices of the blocks u's neighbours sit in (at most
// perBlock of each). Rounds repeat until one improves the cost by less
// than minImprove of it. It returns the cost reduction.
func Swaps(s *State, rounds, perBlock int, minImprove float64, seed uint64) int64 {
	g := s.G
	n := int32(g.N())
	// members[first[b]:first[b+1]] lists the vertices of block b; where[v]
	// is v's index there.
	first := make([]int32, s.K+1)
	for _, b := range s.Part {
		first[b+1]++
	}
	for b := 0; b < s.K; b++ {
		first[b+1] += first[b]
	}
	members := make([]int32, n)
	where := make([]int32, n)
	fill := append([]int32(nil), first[:s.K]...)
	for v := int32(0); v < n; v++ {
		b := s.Part[v]
		members[fill[b]], where[v] = v, fill[b]
		fill[b]++
	}
	nbU, nbV := newNbhd(s.K), newNbhd(s.K)
	rng := rand.New(rand.NewPCG(seed, 0x73776170))
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	cost := s.Cost()
	total := int64(0)
	for r := 0; r < rounds; r++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		gained := int64(0)
		for _, u := range order {
			p := s.Part[u]
			nbU.load(s, u)
			if len(nbU.blocks) == 0 || len(nbU.blocks) == 1 && nbU.blocks[0] == p {
				continue
			}
			base := nbU.costAt(&s.Obj, p)
			bestV, bestGain := int32(-1), int64(0)
			for _, q := range nbU.blocks {
				if q == p {
					continue
				}
				gu := base - nbU.costAt(&s.Obj, q)
				lo, hi := first[q], min(first[q+1], first[q]+int32(perBlock))
				for i := lo; i < hi; i++ {
					v := members[i]
					if g.VW[v] != g.VW[u] {
						continue
					}
					nbV.load(s, v)
					gv := nbV.costAt(&s.Obj, q) - nbV.costAt(&s.Obj, p)
					// Shared edge: both gains assumed the other stayed.
					gain := gu + gv - 2*weightBetween(s, u, v)*s.Obj.D(p, q)
					if gain > bestGain {
						bestV, bestGain = v, gain
					}
				}
			}
			if bestV >= 0 {
				q := s.Part[bestV]
				iu, iv := where[u], where[bestV]
				members[iu], members[iv] = bestV, u
				where[u], where[bestV] = iv, iu
				s.Part[u], s.Part[bestV] = q, p
				gained += bestGain
			}
		}
		total += gained
		cost -= gained
		if gained <= 0 || float64(gained) < minImprove*float64(cost) {
			break
		}
	}
	return total
}

func weightBetween(s *State, u, v int32) int64 {
	g := s.G
	if g.Degree(u) > g.Degree(v) {
		u, v = v, u
	}
	for e := g.XAdj[u]; e < g.XAdj[u+1]; e++ {
		if g.Adj[e] == v {
			return g.EW[e]
		}
	}
	return 0
}
