// Package exact solves tiny mapping instances optimally by branch and
// bound: vertices are placed one by one (heaviest connections first), the
// partial cost bounds the search, and PEs in untouched sibling groups of
// equal size are treated as interchangeable, so only the first of them is
// tried. A node budget keeps the worst case bounded; the best mapping found
// so far is kept when the budget runs out.
//
// On a regular hierarchy the candidates of a vertex are the occupied PEs
// and, per level, the first PE of the first empty child of every occupied
// group: at most n(L+1) PEs, whatever the number of PEs, so four tasks on
// a flat machine of 2^31-1 PEs cost microseconds. Irregular trees (which
// come from real allocations) are scanned PE by PE.
package exact

import (
	"math"
	"slices"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// MaxVertices is the largest graph Improve and Solve attempt.
const MaxVertices = 12

// Improve replaces pe by an optimal mapping when it can prove one within
// budget search nodes; it returns whether pe is now optimal. pe must be a
// feasible mapping (its cost is the initial bound).
func Improve(g *graph.Graph, top *topology.Topology, lmax int64, pe []int32, budget int) bool {
	best, optimal := Solve(g, top, lmax, pe, budget)
	if optimal {
		copy(pe, best)
	}
	return optimal
}

// Solve maps g (at most MaxVertices vertices) onto top with at most lmax
// weight per PE. init, when not nil, is a feasible mapping whose cost
// bounds the search; otherwise a greedy placement does. It returns the
// best mapping found (the greedy one, possibly infeasible, when no
// feasible mapping was found) and whether it is proven optimal.
func Solve(g *graph.Graph, top *topology.Topology, lmax int64, init []int32, budget int) ([]int32, bool) {
	n := g.N()
	if n > MaxVertices || n == 0 {
		return init, false
	}
	s := newSearch(g, top, lmax, budget)
	if init != nil {
		s.best = append([]int32(nil), init...)
		s.bestCost = cost(g, top, init)
	} else {
		greedy, c, feasible := s.greedy()
		s.best = greedy
		if feasible {
			s.bestCost = c
		}
	}
	s.rec(0, 0)
	return s.best, s.nodes <= s.budget && s.bestCost < math.MaxInt64
}

type search struct {
	g        *graph.Graph
	top      *topology.Topology
	lmax     int64
	k        int
	order    []int32
	pe       []int32
	budget   int
	nodes    int
	best     []int32
	bestCost int64

	// Occupied PEs (regular hierarchies): distinct PEs in placement order
	// with their load and task count.
	used     []int32
	usedLoad []int64
	usedCnt  []int32
	// The regular hierarchy with levels of arity 1 dropped and adjacent
	// levels of equal distance merged: the same PEs at the same distances,
	// fewer levels to branch over (nil for trees).
	arity []int
	span  []int // span[i] = arity[0]*...*arity[i-1]
	dist  []int64

	// rem is a lower bound on the cost of the edges not yet placed: each
	// edge whose ends cannot share a PE costs at least the smallest
	// distance between two PEs; pairLB[e] is that bound per stored edge.
	rem    int64
	pairLB []int64
	cand   [][]int32 // candidate buffers, one per depth

	// Trees: dense tables per PE (k is a real allocation).
	load []int64
	cnt  []int32
}

func newSearch(g *graph.Graph, top *topology.Topology, lmax int64, budget int) *search {
	n := g.N()
	s := &search{g: g, top: top, lmax: lmax, k: top.K(), budget: budget, pe: make([]int32, n),
		order: order(g), bestCost: math.MaxInt64, cand: make([][]int32, n+1)}
	for i := range s.pe {
		s.pe[i] = -1
	}
	dmin := int64(math.MaxInt64)
	if a, regular := top.Arity(); regular {
		s.span = []int{1}
		for i, x := range a {
			d := top.Distances()[i]
			switch {
			case x == 1:
				continue // no two PEs differ first at this level
			case len(s.arity) > 0 && s.dist[len(s.dist)-1] == d:
				s.arity[len(s.arity)-1] *= x
			default:
				s.arity, s.dist, s.span = append(s.arity, x), append(s.dist, d), append(s.span, 0)
			}
			s.span[len(s.span)-1] = s.span[len(s.span)-2] * s.arity[len(s.arity)-1]
		}
		if s.arity == nil { // a single PE
			s.arity, s.dist, s.span = []int{1}, []int64{0}, []int{1, 1}
		}
		for _, d := range s.dist {
			dmin = min(dmin, d)
		}
	} else {
		s.load, s.cnt = make([]int64, s.k), make([]int32, s.k)
		for _, d := range top.Distances() {
			dmin = min(dmin, d)
		}
	}
	s.pairLB = make([]int64, len(g.Adj))
	for v := int32(0); v < int32(n); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; g.VW[u]+g.VW[v] > lmax {
				s.pairLB[e] = g.W(e) * dmin
				if u > v {
					s.rem += s.pairLB[e]
				}
			}
		}
	}
	return s
}

// distance between PEs p and q.
func (s *search) distance(p, q int32) int64 {
	if s.arity == nil {
		return s.top.Distance(int(p), int(q))
	}
	if p == q {
		return 0
	}
	for l := 0; ; l++ {
		if int(p)/s.span[l+1] == int(q)/s.span[l+1] {
			return s.dist[l]
		}
	}
}

func (s *search) rec(i int, partial int64) {
	s.nodes++
	if s.nodes > s.budget || partial+s.rem >= s.bestCost {
		return
	}
	if i == len(s.order) {
		s.bestCost = partial
		s.best = append(s.best[:0], s.pe...)
		return
	}
	v := s.order[i]
	w := s.g.VW[v]
	for _, p := range s.candidates(i) {
		if s.loadOf(p)+w > s.lmax {
			continue
		}
		add := s.added(v, p)
		s.place(v, p, 1)
		s.rec(i+1, partial+add)
		s.place(v, p, -1)
		if s.nodes > s.budget {
			return
		}
	}
}

// greedy places the vertices in search order, each on the candidate that
// adds least (lowest PE on ties) among those with room, or on the least
// loaded candidate when none has room.
func (s *search) greedy() ([]int32, int64, bool) {
	var c int64
	feasible := true
	for _, v := range s.order {
		w := s.g.VW[v]
		best, bestAdd, fits := int32(-1), int64(0), false
		for _, p := range s.candidates(0) {
			room := s.loadOf(p)+w <= s.lmax
			add := s.added(v, p)
			switch {
			case best < 0, room && !fits, room == fits && room && add < bestAdd,
				!room && !fits && s.loadOf(p) < s.loadOf(best):
				best, bestAdd, fits = p, add, room
			}
		}
		feasible = feasible && fits
		c += bestAdd
		s.place(v, best, 1)
	}
	out := append([]int32(nil), s.pe...)
	for i := len(s.order) - 1; i >= 0; i-- {
		v := s.order[i]
		s.place(v, s.pe[v], -1)
	}
	return out, c, feasible
}

// added is the cost of the edges from v to its placed neighbours if v
// goes to p.
func (s *search) added(v, p int32) int64 {
	g := s.g
	var add int64
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		if u := g.Adj[e]; s.pe[u] >= 0 {
			add += g.W(e) * s.distance(p, s.pe[u])
		}
	}
	return add
}

func (s *search) loadOf(p int32) int64 {
	if s.arity == nil {
		return s.load[p]
	}
	if i := slices.Index(s.used, p); i >= 0 {
		return s.usedLoad[i]
	}
	return 0
}

func (s *search) place(v, p int32, d int) {
	w := int64(d) * s.g.VW[v]
	if d < 0 {
		s.pe[v] = -1
	}
	for e := s.g.XAdj[v]; e < s.g.XAdj[v+1]; e++ {
		if s.pe[s.g.Adj[e]] >= 0 {
			s.rem -= int64(d) * s.pairLB[e] // the edge is placed (d > 0) or no longer (d < 0)
		}
	}
	if d > 0 {
		s.pe[v] = p
	}
	if s.arity != nil {
		i := slices.Index(s.used, p)
		if i < 0 {
			s.used, s.usedLoad, s.usedCnt = append(s.used, p), append(s.usedLoad, 0), append(s.usedCnt, 0)
			i = len(s.used) - 1
		}
		s.usedLoad[i] += w
		s.usedCnt[i] += int32(d)
		if s.usedCnt[i] == 0 { // the last one placed is the first removed
			s.used, s.usedLoad, s.usedCnt = s.used[:i], s.usedLoad[:i], s.usedCnt[:i]
		}
		return
	}
	s.load[p] += w
	s.cnt[p] += int32(d)
}

// candidates lists, in increasing order, the PEs worth trying for the next
// vertex (at depth i; the list lives in a buffer of that depth): one
// representative of every class of interchangeable PEs.
func (s *search) candidates(i int) []int32 {
	out := s.cand[i][:0]
	defer func() { s.cand[i] = out }()
	if s.arity == nil {
		for p := 0; p < s.k; p++ {
			if s.canonical(p) {
				out = append(out, int32(p))
			}
		}
		return out
	}
	out = append(out, s.used...)
	if len(s.used) == 0 {
		return append(out, 0)
	}
	for l := range s.arity {
		// For every occupied level-(l+1) group (the machine when l+1 = L),
		// the first PE of its first level-l child without tasks.
		up, step := s.span[l+1], s.span[l]
		for a, q := range s.used {
			lo := int(q) / up * up
			first := true
			for _, r := range s.used[:a] {
				if int(r)/up*up == lo {
					first = false
					break
				}
			}
			if !first {
				continue // the group was seen at an earlier occupied PE
			}
			c := 0
			for taken := true; taken && c < s.arity[l]; {
				taken = false
				for _, r := range s.used[a:] {
					if int(r)/up*up == lo && (int(r)-lo)/step == c {
						taken = true
						c++
						break
					}
				}
			}
			if c < s.arity[l] {
				out = append(out, int32(lo+c*step))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// canonical (trees): p may be used only if, at every level, its group is
// occupied or no earlier sibling group is both empty and interchangeable
// with it. Only the empty PEs of one socket are interchangeable in an
// irregular tree.
func (s *search) canonical(p int) bool {
	if s.cnt[p] > 0 {
		return true
	}
	sock := s.top.GroupOf(1, p)
	for q := sock.Lo; q < p; q++ {
		if s.cnt[q] == 0 {
			return false // an earlier empty PE of the same socket
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
