package refinement

import (
	"math/rand/v2"

	"github.com/gpumap/gpumap/topology"
)

// SwapConfig tunes Swaps.
type SwapConfig struct {
	Rounds     int     // at most this many passes over the vertices (0: 8)
	PerBlock   int     // vertices of one candidate block tried (0: 4)
	Budget     int     // candidate PEs evaluated per vertex and pass (0: 64)
	Neighbours int     // heaviest adjacent blocks a vertex is moved toward (0: 4)
	MinImprove float64 // stop after a pass gaining less than this fraction of the cost
	Seed       uint64
}

func (c SwapConfig) withDefaults() SwapConfig {
	if c.Rounds == 0 {
		c.Rounds = 8
	}
	if c.PerBlock == 0 {
		c.PerBlock = 4
	}
	if c.Budget == 0 {
		c.Budget = 64
	}
	if c.Neighbours == 0 {
		c.Neighbours = 4
	}
	return c
}

// Swaps improves a mapping in which single moves are infeasible (one task
// per PE, or all blocks full) by exchanging pairs of equally heavy vertices
// between blocks (block b is PE b of top): u in block p and v in block q
// trade places when
//
//	G_q(u) + G_p(v) - 2 w(u,v) D(p,q) > 0,
//
// the sum of both move gains corrected for their shared edge. u is moved
// toward its heaviest adjacent blocks: for an adjacent block b at level j
// from p, the candidates are the PEs of b's level-(j-1) group (those closer
// to b than p is), at most Budget per vertex, spread evenly over the group
// from a pseudo-random start. Each candidate costs O(deg v); u's side costs
// O(deg u) per candidate, or O(L) through per-level sums for vertices of
// high degree, and vertices above the hub degree are never taken as
// candidates v (they move when their own turn comes), so a pass is
// O(m + n Budget avg-deg) even on a star. Passes repeat until one improves
// the cost by less than MinImprove of it. It returns the cost reduction.
func Swaps(s *State, top *topology.Topology, cfg SwapConfig) int64 {
	cfg = cfg.withDefaults()
	g := s.G
	n := int32(g.N())
	sw := newSwapper(s, top)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x73776170))
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	cost := s.Cost()
	total := int64(0)
	for r := 0; r < cfg.Rounds; r++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		gained := int64(0)
		for _, u := range order {
			if g.XAdj[u+1] == g.XAdj[u] {
				continue
			}
			v, gain := sw.best(u, cfg, rng.Uint64())
			if v >= 0 {
				sw.swap(u, v)
				gained += gain
			}
		}
		total += gained
		cost -= gained
		if gained <= 0 || float64(gained) < cfg.MinImprove*float64(cost) {
			break
		}
	}
	return total
}

// swapper holds the block membership lists and the per-vertex scratch of
// Swaps.
type swapper struct {
	s   *State
	top *topology.Topology
	o   *Objective
	hub int64
	// members[first[b]:first[b+1]] lists the vertices of block b; where[v]
	// is v's index there.
	first, members, where []int32
	// w(u, x) for the neighbours x of the vertex being moved.
	nbw   []int64
	stamp []uint32
	cur   uint32
	nb    *nbhd
	prof  levelProfile
	top4  []int32
}

func newSwapper(s *State, top *topology.Topology) *swapper {
	g := s.G
	n := g.N()
	sw := &swapper{s: s, top: top, o: &s.Obj, hub: hubDegree(g),
		first: make([]int32, s.K+1), members: make([]int32, n), where: make([]int32, n),
		nbw: make([]int64, n), stamp: make([]uint32, n), nb: newNbhd(s.K)}
	for _, b := range s.Part {
		sw.first[b+1]++
	}
	for b := 0; b < s.K; b++ {
		sw.first[b+1] += sw.first[b]
	}
	fill := append([]int32(nil), sw.first[:s.K]...)
	for v := int32(0); v < int32(n); v++ {
		b := s.Part[v]
		sw.members[fill[b]], sw.where[v] = v, fill[b]
		fill[b]++
	}
	return sw
}

// swap exchanges the blocks of u and v.
func (sw *swapper) swap(u, v int32) {
	s := sw.s
	p, q := s.Part[u], s.Part[v]
	iu, iv := sw.where[u], sw.where[v]
	sw.members[iu], sw.members[iv] = v, u
	sw.where[u], sw.where[v] = iv, iu
	s.Part[u], s.Part[v] = q, p
}

// level is the level of the lowest group that holds PEs a and b (0: a == b).
func (o *Objective) level(a, b int32) int {
	x := o.labels[a] ^ o.labels[b]
	if x == 0 {
		return 0
	}
	hb := uint(63)
	for x>>hb == 0 {
		hb--
	}
	for l := len(o.shifts) - 1; l > 0; l-- {
		if hb >= o.shifts[l] {
			return l + 1
		}
	}
	return 1
}

// best returns the best swap partner of u with a positive gain (-1 if none)
// and the gain.
func (sw *swapper) best(u int32, cfg SwapConfig, salt uint64) (int32, int64) {
	s, g, o := sw.s, sw.s.G, sw.o
	p := s.Part[u]
	// u's edge weights by neighbour, and its adjacent blocks.
	sw.cur++
	if sw.cur == 0 {
		clear(sw.stamp)
		sw.cur = 1
	}
	for e := g.XAdj[u]; e < g.XAdj[u+1]; e++ {
		x := g.Adj[e]
		if sw.stamp[x] != sw.cur {
			sw.stamp[x], sw.nbw[x] = sw.cur, 0
		}
		sw.nbw[x] += g.W(e)
	}
	sw.nb.load(s, u)
	blocks := sw.heaviest(p, cfg.Neighbours)
	if len(blocks) == 0 {
		return -1, 0
	}
	hubU := int64(g.Degree(u)) > profileDegree
	if hubU {
		sw.prof.build(s, u)
	}
	costU := func(q int32) int64 {
		if hubU {
			return sw.prof.cost(q)
		}
		var c int64
		for e := g.XAdj[u]; e < g.XAdj[u+1]; e++ {
			c += g.W(e) * o.D(q, s.Part[g.Adj[e]])
		}
		return c
	}
	base := costU(p)
	per := max(cfg.Budget/len(blocks), 1)
	bestV, bestGain := int32(-1), int64(0)
	for _, b := range blocks {
		lvl := o.level(p, b)
		if lvl <= 1 {
			continue // u already shares b's socket: every PE there is as close
		}
		grp := sw.top.GroupOf(lvl-1, int(b))
		size := grp.Size()
		c := min(per, size)
		off := int(salt % uint64(size))
		salt = salt*0x9e3779b97f4a7c15 + 1
		for i := 0; i < c; i++ {
			q := int32(grp.Lo + (off+i*size/c)%size)
			if q == p {
				continue
			}
			gu := base - costU(q)
			lo, hi := sw.first[q], min(sw.first[q+1], sw.first[q]+int32(cfg.PerBlock))
			for j := lo; j < hi; j++ {
				v := sw.members[j]
				if g.VW[v] != g.VW[u] || int64(g.Degree(v)) > sw.hub {
					continue
				}
				var gv, wuv int64
				for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
					px := s.Part[g.Adj[e]]
					gv += g.W(e) * (o.D(q, px) - o.D(p, px))
				}
				if sw.stamp[v] == sw.cur {
					wuv = sw.nbw[v]
				}
				if gain := gu + gv - 2*wuv*o.D(p, q); gain > bestGain {
					bestV, bestGain = v, gain
				}
			}
		}
	}
	return bestV, bestGain
}

// heaviest returns up to m blocks adjacent to the loaded vertex outside
// p's socket, with the largest connectivity (ties: lower block), heaviest first.
func (sw *swapper) heaviest(p int32, m int) []int32 {
	h := sw.nb
	out := sw.top4[:0]
	for _, b := range h.blocks {
		if sw.o.level(p, b) <= 1 {
			continue // same socket: every PE there is as close
		}
		better := func(a, c int32) bool {
			return h.conn[a] > h.conn[c] || h.conn[a] == h.conn[c] && a < c
		}
		if len(out) < m {
			out = append(out, b)
		} else if better(b, out[m-1]) {
			out[m-1] = b
		} else {
			continue
		}
		for i := len(out) - 1; i > 0 && better(out[i], out[i-1]); i-- {
			out[i], out[i-1] = out[i-1], out[i]
		}
	}
	sw.top4 = out
	return out
}

// profileDegree: vertices of higher degree evaluate their cost at a PE
// through per-level sums (O(L) per PE) instead of their edge list.
const profileDegree = 32

// levelProfile holds a vertex's connectivity to every group of every level
// that holds a neighbour: the cost of the vertex on PE q is
// sum_l d_l (S_l(q) - S_{l-1}(q)), S_l(q) being the connectivity to q's
// level-l group (S_0 to q itself, S_L to everything).
type levelProfile struct {
	o     *Objective
	conn  []map[uint64]int64 // per level 0..L-1, keyed by label >> shift
	total int64
}

func (lp *levelProfile) build(s *State, v int32) {
	o := &s.Obj
	L := len(o.dists)
	lp.o = o
	if len(lp.conn) != L {
		lp.conn = make([]map[uint64]int64, L)
		for l := range lp.conn {
			lp.conn[l] = map[uint64]int64{}
		}
	}
	for _, m := range lp.conn {
		clear(m)
	}
	lp.total = 0
	g := s.G
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		lab := o.labels[s.Part[g.Adj[e]]]
		w := g.W(e)
		lp.total += w
		lp.conn[0][lab] += w
		for l := 1; l < L; l++ {
			lp.conn[l][lab>>o.shifts[l]] += w
		}
	}
}

func (lp *levelProfile) cost(q int32) int64 {
	o := lp.o
	lab := o.labels[q]
	L := len(o.dists)
	prev := lp.conn[0][lab]
	var c int64
	for l := 1; l <= L; l++ {
		cur := lp.total
		if l < L {
			cur = lp.conn[l][lab>>o.shifts[l]]
		}
		c += o.dists[l-1] * (cur - prev)
		prev = cur
	}
	return c
}
