package refinement

import "github.com/gpumap/gpumap/gpumap/internal/pq"

// Rebalance moves vertices out of overloaded blocks until every block is
// within its limit or nothing more can move. Candidates are ranked by gain
// (least loss first); a vertex goes to its best adjacent block with room,
// or, failing that, to the nearest block with room (by the objective's
// distance, then by weight). It returns the change in cost (negative when
// the cost rose) and whether the result is feasible.
func Rebalance(s *State) (int64, bool) {
	g := s.G
	n := int32(g.N())
	nb := newNbhd(s.K)
	h := pq.New(int(n))
	tgt := make([]int32, n)
	total := int64(0)
	for pass := 0; pass < 4 && s.Overloaded() > 0; pass++ {
		file := func(v int32) {
			nb.load(s, v)
			t, gain := nb.bestMove(s, v, 0) // strict limits
			if t < 0 {
				t = s.nearestWithRoom(v)
				if t < 0 {
					h.Remove(v)
					return
				}
				gain = nb.costAt(&s.Obj, s.Part[v]) - nb.costAt(&s.Obj, t)
			}
			tgt[v] = t
			h.Push(v, gain, uint32(v))
		}
		for v := int32(0); v < n; v++ {
			if p := s.Part[v]; s.BW[p] > s.MaxW[p] && g.VW[v] > 0 {
				file(v)
			}
		}
		// Once no block is overloaded every entry left would be popped and
		// skipped: on a projected level that was the whole of the blocks
		// that had been overloaded, n log n for a few moves.
		over := s.Overloaded()
		for h.Len() > 0 && over > 0 {
			it := h.Pop()
			v := it.V
			p := s.Part[v]
			if s.BW[p] <= s.MaxW[p] {
				continue
			}
			t := tgt[v]
			if s.BW[t]+g.VW[v] > s.MaxW[t] {
				file(v)
				continue
			}
			if s.BW[p]-g.VW[v] <= s.MaxW[p] {
				over-- // t had room: it stays within its limit
			}
			s.Move(v, t)
			total += it.Gain
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := g.Adj[e]; h.Contains(u) {
					file(u)
				}
			}
		}
	}
	return total, s.Overloaded() == 0
}

// nearestWithRoom is the block closest to v's block (objective distance,
// then lighter) that can take v; -1 if none.
func (s *State) nearestWithRoom(v int32) int32 {
	p := s.Part[v]
	w := s.G.VW[v]
	best := int32(-1)
	var bd, bw int64
	for b := int32(0); b < int32(s.K); b++ {
		if b == p || s.BW[b]+w > s.MaxW[b] {
			continue
		}
		d := s.Obj.D(p, b)
		if best < 0 || d < bd || d == bd && s.BW[b] < bw {
			best, bd, bw = b, d, s.BW[b]
		}
	}
	return best
}
