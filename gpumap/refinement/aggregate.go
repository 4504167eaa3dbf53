package refinement

import "slices"

// aggThreshold: above this many adjacent blocks, BestMove for J evaluates
// all candidates in O(t log t + t L) through per-level sums instead of
// O(t^2) pairwise distances.
const aggThreshold = 8

type aggScratch struct {
	ent               []aggEntry
	cost, sPrev, sCur []int64
}

// aggEntry is an entry's block label and its index in the vertex's list.
// Labels are distinct (so are the blocks), so any sort gives one order.
type aggEntry struct {
	lab uint64
	i   int32
}

// sortAgg sorts the entries by label: by insertion for the short lists
// most vertices have, where sort.Slice's reflection and closure calls
// were a third of the J pass's BestMove time (vibrobox onto 4:8:2).
func sortAgg(e []aggEntry) {
	if len(e) > 24 {
		slices.SortFunc(e, func(a, b aggEntry) int {
			if a.lab < b.lab {
				return -1
			}
			return 1 // distinct labels: never equal
		})
		return
	}
	for i := 1; i < len(e); i++ {
		x := e[i]
		j := i
		for ; j > 0 && e[j-1].lab > x.lab; j-- {
			e[j] = e[j-1]
		}
		e[j] = x
	}
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
	es := c.e[base : base+int64(t)]
	a := &c.agg
	a.ent = grow(a.ent, t)
	ent := a.ent
	for i, x := range es {
		ent[i] = aggEntry{o.labels[x.b], int32(i)}
	}
	sortAgg(ent)
	a.cost, a.sPrev, a.sCur = grow(a.cost, t), grow(a.sPrev, t), grow(a.sCur, t)
	cost, sPrev, sCur := a.cost, a.sPrev, a.sCur
	var total int64
	for i, x := range es {
		total += x.w
		cost[i] = 0
		sPrev[i] = x.w
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
				key := ent[r].lab >> sh
				e := r
				var sum int64
				for ; e < t && ent[e].lab>>sh == key; e++ {
					sum += es[ent[e].i].w
				}
				for ; r < e; r++ {
					sCur[ent[r].i] = sum
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
		b := es[i].b
		if b == p || s.BW[b]+w > s.MaxW[b]+slack {
			continue
		}
		if gn := cur - cost[i]; target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}
