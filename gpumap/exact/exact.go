// Package exact solves tiny mapping instances optimally by branch and
// bound: vertices are placed one by one (heaviest connections first), the
// partial cost bounds the search, and PEs in untouched sibling groups of
// equal size are treated as interchangeable, so only the first of them is
// tried. A node budget keeps the worst case bounded; the caller's mapping
// is kept when the budget runs out.
package exact

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// MaxVertices is the largest graph Improve attempts.
const MaxVertices = 12

// Improve replaces pe by an optimal mapping when it can prove one within
// budget search nodes; it returns whether pe is now optimal. pe must be a
// feasible mapping (its cost is the initial bound).
func Improve(g *graph.Graph, top *topology.Topology, lmax int64, pe []int32, budget int) bool {
	n := g.N()
	if n > MaxVertices || n == 0 {
		return false
	}
	k := top.K()
	_, regular := top.Arity()
	s := &search{g: g, top: top, lmax: lmax, k: k, budget: budget, regular: regular,
		pe: make([]int32, n), load: make([]int64, k), cnt: make([]int32, k), best: append([]int32(nil), pe...)}
	s.bestCost = cost(g, top, pe)
	s.order = order(g)
	s.pos = make([]int, n)
	for i, v := range s.order {
		s.pos[v] = i
	}
	for i := range s.pe {
		s.pe[i] = -1
	}
	// Occupancy per group and level, for the symmetry rule.
	L := top.Levels()
	s.occ = make([][]int32, L)
	for l := 1; l < L; l++ {
		s.occ[l] = make([]int32, k)
	}
	s.rec(0, 0)
	if s.nodes > s.budget {
		return false
	}
	copy(pe, s.best)
	return true
}

type search struct {
	g        *graph.Graph
	top      *topology.Topology
	lmax     int64
	k        int
	order    []int32
	pos      []int
	pe       []int32
	load     []int64
	cnt      []int32   // tasks per PE
	occ      [][]int32 // occ[l][first PE of a level-l group] = tasks inside
	regular  bool      // sibling groups of equal size are interchangeable
	best     []int32
	bestCost int64
	nodes    int
	budget   int
}

func (s *search) rec(i int, partial int64) {
	s.nodes++
	if s.nodes > s.budget || partial >= s.bestCost {
		return
	}
	g := s.g
	if i == len(s.order) {
		s.bestCost = partial
		copy(s.best, s.pe)
		return
	}
	v := s.order[i]
	for p := 0; p < s.k; p++ {
		if s.load[p]+g.VW[v] > s.lmax || !s.canonical(p) {
			continue
		}
		add := int64(0)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; s.pe[u] >= 0 {
				add += g.W(e) * s.top.Distance(p, int(s.pe[u]))
			}
		}
		s.place(v, p, 1)
		s.rec(i+1, partial+add)
		s.place(v, p, -1)
		if s.nodes > s.budget {
			return
		}
	}
}

func (s *search) place(v int32, p int, d int) {
	if d > 0 {
		s.pe[v] = int32(p)
	} else {
		s.pe[v] = -1
	}
	s.load[p] += int64(d) * s.g.VW[v]
	s.cnt[p] += int32(d)
	for l := 1; l < s.top.Levels(); l++ {
		s.occ[l][s.top.GroupOf(l, p).Lo] += int32(d)
	}
}

// canonical: p may be used only if, at every level, its group is occupied
// or no earlier sibling group is both empty and interchangeable with it.
// Empty PEs of one socket are always interchangeable; empty sibling groups
// of a regular hierarchy are too (irregular trees only use the PE rule).
func (s *search) canonical(p int) bool {
	top := s.top
	L := top.Levels()
	for l := L - 1; l >= 0; l-- {
		if l > 0 && !s.regular {
			continue
		}
		grp := top.GroupOf(l, p)
		if l == 0 && s.cnt[p] > 0 || l > 0 && s.occ[l][grp.Lo] > 0 {
			continue
		}
		for _, sib := range top.Children(top.GroupOf(l+1, p)) {
			if sib.Lo == grp.Lo {
				break
			}
			empty := s.cnt[sib.Lo] == 0
			if l > 0 {
				empty = s.occ[l][sib.Lo] == 0
			}
			if empty {
				return false // an earlier interchangeable group is still empty
			}
		}
	}
	return true
}

// order places vertices by a breadth-first sweep from the heaviest vertex,
// taking the most strongly connected next, so partial costs grow early.
func order(g *graph.Graph) []int32 {
	n := g.N()
	conn := make([]int64, n)
	placed := make([]bool, n)
	out := make([]int32, 0, n)
	for len(out) < n {
		best := int32(-1)
		for v := int32(0); v < int32(n); v++ {
			if placed[v] {
				continue
			}
			if best < 0 || conn[v] > conn[best] || conn[v] == conn[best] && g.Degree(v) > g.Degree(best) {
				best = v
			}
		}
		placed[best] = true
		out = append(out, best)
		for e := g.XAdj[best]; e < g.XAdj[best+1]; e++ {
			conn[g.Adj[e]] += g.W(e)
		}
	}
	return out
}

func cost(g *graph.Graph, top *topology.Topology, pe []int32) int64 {
	var c int64
	for v := 0; v < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := int(g.Adj[e]); u > v {
				c += g.W(e) * top.Distance(int(pe[v]), int(pe[u]))
			}
		}
	}
	return c
}
