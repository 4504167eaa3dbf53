package refinement

import (
	"math/bits"
	"sort"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// JetConfig tunes Jet, the data-parallel refinement loop of the GPU
// process-mapping paper (after Jet, Gilbert et al.).
type JetConfig struct {
	Iterations int     // iterations without progress before stopping (0: 12)
	Phi        float64 // a cost below Phi*best counts as progress (0: 0.999)
	WeakRounds int     // weak rebalancing rounds before a strong one (0: 2)
	Seed       uint64
}

// Jet refines s with the paper's Algorithm 6: while the mapping is
// balanced, unconstrained label propagation on the J gain with the
// afterburner and vertex locking; otherwise weak rebalancing, and strong
// rebalancing after WeakRounds weak ones. The best balanced mapping seen
// is kept. Every phase is a sequence of parallel loops, reductions and
// prefix sums over vertices, deterministic for a given thread count. It
// returns the final cost.
func Jet(x *par.Exec, s *State, cfg JetConfig) int64 {
	if cfg.Iterations == 0 {
		cfg.Iterations = 12
	}
	if cfg.Phi == 0 {
		cfg.Phi = 0.999
	}
	if cfg.WeakRounds == 0 {
		cfg.WeakRounds = 2
	}
	j := newJet(x, s, cfg)
	n := s.G.N()
	best := append([]int32(nil), s.Part...)
	bestCost := j.cost()
	bestExcess := s.Excess()
	weak := 0
	for it := 0; it < cfg.Iterations; it++ {
		if s.Excess() == 0 {
			j.labelPropagation()
			weak = 0
		} else {
			clear(j.locked)
			if weak < cfg.WeakRounds {
				j.rebalance(false)
				weak++
			} else {
				j.rebalance(true)
				weak = 0
			}
		}
		c, ex := j.cost(), s.Excess()
		switch {
		case ex == 0 && (bestExcess > 0 || c < bestCost):
			if bestExcess > 0 || float64(c) < cfg.Phi*float64(bestCost) {
				it = -1
			}
			copy(best, s.Part)
			bestCost, bestExcess = c, 0
		case ex > 0 && bestExcess > 0 && ex < bestExcess:
			copy(best, s.Part)
			bestCost, bestExcess = c, ex
			it = -1
		}
	}
	if n > 0 {
		copy(s.Part, best)
		j.blockWeights()
	}
	return bestCost
}

type jet struct {
	x      *par.Exec
	s      *State
	cfg    JetConfig
	scr    []*nbhd // per chunk
	dest   []int32
	gain   []int64
	cand   []bool
	locked []bool
	moved  []bool
	round  uint64
}

func newJet(x *par.Exec, s *State, cfg JetConfig) *jet {
	n := s.G.N()
	j := &jet{x: x, s: s, cfg: cfg, dest: make([]int32, n), gain: make([]int64, n),
		cand: make([]bool, n), locked: make([]bool, n), moved: make([]bool, n)}
	for c := 0; c < x.Chunks(n); c++ {
		j.scr = append(j.scr, newNbhd(s.K))
	}
	return j
}

// cost is the objective, as a parallel reduction over vertices.
func (j *jet) cost() int64 {
	s := j.s
	g := s.G
	return j.x.SumInt64(g.N(), func(lo, hi int) int64 {
		var c int64
		for v := lo; v < hi; v++ {
			pv := s.Part[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if pu := s.Part[g.Adj[e]]; pu != pv {
					c += g.EW[e] * s.Obj.D(pv, pu)
				}
			}
		}
		return c
	}) / 2
}

// blockWeights recomputes the block weights: per-chunk partial sums added
// in chunk order.
func (j *jet) blockWeights() {
	s := j.s
	n := s.G.N()
	chunks := j.x.Chunks(n)
	part := make([][]int64, chunks)
	j.x.For(n, func(c, lo, hi int) {
		w := make([]int64, s.K)
		for v := lo; v < hi; v++ {
			w[s.Part[v]] += s.G.VW[v]
		}
		part[c] = w
	})
	clear(s.BW)
	for _, w := range part {
		for b, x := range w {
			s.BW[b] += x
		}
	}
}

// labelPropagation is Algorithm 4: every unlocked vertex picks its best
// adjacent block ignoring balance (first filter: gain >= 0); the
// afterburner re-evaluates each candidate assuming that candidates ranked
// before it (higher gain, then lower id) have already moved; the survivors
// (second filter: gain >= 0) move and stay locked for one iteration.
func (j *jet) labelPropagation() {
	s := j.s
	g := s.G
	n := g.N()
	j.x.For(n, func(c, lo, hi int) {
		nb := j.scr[c]
		for v := int32(lo); v < int32(hi); v++ {
			j.cand[v] = false
			if j.locked[v] {
				continue
			}
			nb.load(s, v)
			p := s.Part[v]
			base := nb.costAt(&s.Obj, p)
			best, bg := int32(-1), int64(0)
			for _, b := range nb.blocks {
				if b == p {
					continue
				}
				if gn := base - nb.costAt(&s.Obj, b); best < 0 || gn > bg || gn == bg && b < best {
					best, bg = b, gn
				}
			}
			if best >= 0 && bg >= 0 {
				j.cand[v], j.dest[v], j.gain[v] = true, best, bg
			}
		}
	})
	// Afterburner.
	j.x.For(n, func(c, lo, hi int) {
		nb := j.scr[c]
		for v := int32(lo); v < int32(hi); v++ {
			j.moved[v] = false
			if !j.cand[v] {
				continue
			}
			nb.loadFuture(s, v, j)
			p := s.Part[v]
			if nb.costAt(&s.Obj, p)-nb.costAt(&s.Obj, j.dest[v]) >= 0 {
				j.moved[v] = true
			}
		}
	})
	j.x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			j.locked[v] = j.moved[v]
			if j.moved[v] {
				s.Part[v] = j.dest[v]
			}
		}
	})
	j.blockWeights()
}

// before reports whether candidate u is ranked before candidate v.
func (j *jet) before(u, v int32) bool {
	return j.gain[u] > j.gain[v] || j.gain[u] == j.gain[v] && u < v
}

// loadFuture gathers v's connectivity with every neighbour ranked before v
// placed at its destination.
func (h *nbhd) loadFuture(s *State, v int32, j *jet) {
	h.cur++
	if h.cur == 0 {
		clear(h.stamp)
		h.cur = 1
	}
	h.blocks = h.blocks[:0]
	g := s.G
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		u := g.Adj[e]
		b := s.Part[u]
		if j.cand[u] && j.before(u, v) {
			b = j.dest[u]
		}
		if h.stamp[b] != h.cur {
			h.stamp[b] = h.cur
			h.conn[b] = 0
			h.blocks = append(h.blocks, b)
		}
		h.conn[b] += g.EW[e]
	}
}

// rebalance moves weight out of overloaded blocks. Every vertex of an
// overloaded block that is not too heavy (c(v) <= 1.5 (c(block) - c(V)/k))
// picks a destination with weight below sigma (the best adjacent one, else
// one drawn deterministically) and files its loss in a log2-spaced bucket;
// each block then sends away the cheapest buckets that cover its excess.
// Strong rebalancing also caps what each destination receives at its room
// below Lmax and sends the rest to blocks that still have room.
func (j *jet) rebalance(strong bool) {
	s := j.s
	g := s.G
	n := g.N()
	k := s.K
	var total int64
	for _, w := range s.BW {
		total += w
	}
	avg := total / int64(max(k, 1))
	lmax := s.MaxW[0]
	sigma := lmax - max(1, lmax/100)
	if sigma < avg {
		sigma = lmax
	}
	room := make([]bool, k)
	var roomList []int32
	for b := 0; b < k; b++ {
		if s.BW[b] < sigma {
			room[b] = true
			roomList = append(roomList, int32(b))
		}
	}
	if len(roomList) == 0 {
		return
	}
	j.round++
	bucket := make([]int8, n)
	j.x.For(n, func(c, lo, hi int) {
		nb := j.scr[c]
		for v := int32(lo); v < int32(hi); v++ {
			j.cand[v] = false
			p := s.Part[v]
			if s.BW[p] <= s.MaxW[p] || g.VW[v] == 0 || 2*g.VW[v] > 3*(s.BW[p]-avg) {
				continue
			}
			nb.load(s, v)
			base := nb.costAt(&s.Obj, p)
			best, bg := int32(-1), int64(0)
			for _, b := range nb.blocks {
				if b == p || !room[b] {
					continue
				}
				if gn := base - nb.costAt(&s.Obj, b); best < 0 || gn > bg || gn == bg && b < best {
					best, bg = b, gn
				}
			}
			if best < 0 {
				h := splitmix(uint64(v) ^ j.cfg.Seed ^ j.round*0x9e3779b97f4a7c15)
				best = roomList[h%uint64(len(roomList))]
				bg = base - nb.costAt(&s.Obj, best)
			}
			j.cand[v], j.dest[v], j.gain[v] = true, best, bg
			switch {
			case bg > 0:
				bucket[v] = 0
			case bg == 0:
				bucket[v] = 1
			default:
				bucket[v] = int8(2 + bits.Len64(uint64(-bg)) - 1)
			}
		}
	})
	// Order candidates by (block, bucket, id) with a stable counting sort
	// and move prefixes that cover each block's excess.
	var list []int32
	for v := int32(0); v < int32(n); v++ {
		if j.cand[v] {
			list = append(list, v)
		}
	}
	sort.SliceStable(list, func(a, b int) bool {
		u, v := list[a], list[b]
		if s.Part[u] != s.Part[v] {
			return s.Part[u] < s.Part[v]
		}
		return bucket[u] < bucket[v]
	})
	excess := make([]int64, k)
	for b := 0; b < k; b++ {
		excess[b] = s.BW[b] - s.MaxW[b]
	}
	var moving []int32
	for _, v := range list {
		p := s.Part[v]
		if excess[p] > 0 {
			excess[p] -= g.VW[v]
			moving = append(moving, v)
		}
	}
	if strong {
		// Destinations accept at most their room below Lmax; the rest go
		// to blocks that still have room, in order.
		left := make([]int64, k)
		for b := 0; b < k; b++ {
			left[b] = s.MaxW[b] - s.BW[b]
		}
		var overflow []int32
		for _, v := range moving {
			if d := j.dest[v]; left[d] >= g.VW[v] {
				left[d] -= g.VW[v]
			} else {
				overflow = append(overflow, v)
			}
		}
		b := 0
		for _, v := range overflow {
			for b < k && left[b] < g.VW[v] {
				b++
			}
			if b == k {
				break
			}
			j.dest[v] = int32(b)
			left[b] -= g.VW[v]
		}
	}
	for _, v := range moving {
		s.Part[v] = j.dest[v]
	}
	j.blockWeights()
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
