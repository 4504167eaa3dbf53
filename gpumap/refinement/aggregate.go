package refinement

import "sort"

// aggThreshold: above this many adjacent blocks, BestMove for J evaluates
// all candidates in O(t log t + t L) through per-level sums instead of
// O(t^2) pairwise distances.
const aggThreshold = 8

type aggScratch struct {
	idx               []int
	lab               []uint64
	cost, sPrev, sCur []int64
}

// bestMoveAggregated computes cost(b) = sum_l d_l (S_l(b) - S_{l-1}(b)) for
// every adjacent block b, where S_l(b) is v's connectivity to b's level-l
// group (S_0(b) = conn(v,b), S_L = all of v's connectivity). Sorting the
// entries by label makes every level-l group a contiguous run.
func (c *ConnTable) bestMoveAggregated(v int32, slack int64) (target int32, gain int64) {
	s := c.s
	o := &s.Obj
	p := s.Part[v]
	w := s.G.VW[v]
	base := c.at[v].off
	t := int(c.at[v].cnt)
	conn := c.w[base : base+int64(t)]
	a := &c.agg
	a.idx, a.lab = a.idx[:0], a.lab[:0]
	for i := 0; i < t; i++ {
		a.idx = append(a.idx, i)
		a.lab = append(a.lab, o.labels[c.blk[base+int64(i)]])
	}
	sort.Slice(a.idx, func(x, y int) bool { return a.lab[a.idx[x]] < a.lab[a.idx[y]] })
	a.cost, a.sPrev, a.sCur = grow(a.cost, t), grow(a.sPrev, t), grow(a.sCur, t)
	cost, sPrev, sCur := a.cost, a.sPrev, a.sCur
	var total int64
	for i := 0; i < t; i++ {
		total += conn[i]
		cost[i] = 0
		sPrev[i] = conn[i]
	}
	L := len(o.dists)
	for l := 1; l <= L; l++ {
		if l == L {
			for i := range sCur {
				sCur[i] = total
			}
		} else {
			sh := o.shifts[l] // a level-l group shares every field above l
			for r := 0; r < t; {
				key := a.lab[a.idx[r]] >> sh
				e := r
				var sum int64
				for ; e < t && a.lab[a.idx[e]]>>sh == key; e++ {
					sum += conn[a.idx[e]]
				}
				for ; r < e; r++ {
					sCur[a.idx[r]] = sum
				}
			}
		}
		d := o.dists[l-1]
		for i := 0; i < t; i++ {
			cost[i] += d * (sCur[i] - sPrev[i])
		}
		sPrev, sCur = sCur, sPrev
	}
	cur := c.costAt(v, p)
	target = -1
	for i := 0; i < t; i++ {
		b := c.blk[base+int64(i)]
		if b == p || s.BW[b]+w > s.MaxW[b]+slack {
			continue
		}
		if gn := cur - cost[i]; target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}
