package refinement

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// JetConfig tunes Jet, the data-parallel refinement loop of the GPU
// process-mapping paper (after Jet, Gilbert et al.).
type JetConfig struct {
	Iterations int     // iterations without progress before stopping (0: 12)
	Phi        float64 // a cost below Phi*best counts as progress (0: 0.999)
	WeakRounds int     // weak rebalancing rounds before a strong one (0: 2)
	Seed       uint64
	// Segment, when > 0, makes blocks [i*Segment, (i+1)*Segment)
	// independent parts: rebalancing moves a vertex only within its
	// block's segment (label propagation moves to adjacent blocks
	// anyway). GPU-HM splits every group of a machine level in one loop,
	// a segment per group.
	Segment int
}

// JetOps are the phases of the Jet loop on one level, implemented by each
// backend over its own memory (the CPU one below, the CUDA one in package
// cuda). The loop itself, Run, is shared.
type JetOps interface {
	LabelPropagation() error     // Algorithm 4, including the afterburner and locking
	Rebalance(strong bool) error // weak or strong rebalancing; clears the locks
	Cost() (int64, error)        // J of the current mapping
	Excess() (int64, error)      // total weight above Lmax
	SaveBest() error             // remember the current mapping
	RestoreBest() error          // go back to the remembered mapping
}

// RunJet is the paper's Algorithm 6: while the mapping is balanced,
// unconstrained label propagation; otherwise weak rebalancing, and strong
// rebalancing after WeakRounds weak ones. The best balanced mapping seen
// (or the least overloaded one, if none is balanced) is kept. It stops
// after Iterations iterations without progress and returns the final cost.
func RunJet(ops JetOps, cfg JetConfig) (int64, error) {
	if cfg.Iterations == 0 {
		cfg.Iterations = 12
	}
	if cfg.Phi == 0 {
		cfg.Phi = 0.999
	}
	if cfg.WeakRounds == 0 {
		cfg.WeakRounds = 2
	}
	bestCost, err := ops.Cost()
	if err != nil {
		return 0, err
	}
	bestExcess, err := ops.Excess()
	if err != nil {
		return 0, err
	}
	if err := ops.SaveBest(); err != nil {
		return 0, err
	}
	ex := bestExcess
	weak := 0
	for it := 0; it < cfg.Iterations; it++ {
		switch {
		case ex == 0:
			err = ops.LabelPropagation()
			weak = 0
		case weak < cfg.WeakRounds:
			err = ops.Rebalance(false)
			weak++
		default:
			err = ops.Rebalance(true)
			weak = 0
		}
		if err != nil {
			return 0, err
		}
		c, err := ops.Cost()
		if err != nil {
			return 0, err
		}
		if ex, err = ops.Excess(); err != nil {
			return 0, err
		}
		improved := false
		switch {
		case ex == 0 && (bestExcess > 0 || c < bestCost):
			improved = bestExcess > 0 || float64(c) < cfg.Phi*float64(bestCost)
			bestCost, bestExcess = c, 0
		case ex > 0 && bestExcess > 0 && ex < bestExcess:
			improved = true
			bestCost, bestExcess = c, ex
		default:
			continue
		}
		if err := ops.SaveBest(); err != nil {
			return 0, err
		}
		if improved {
			it = -1
		}
	}
	if err := ops.RestoreBest(); err != nil {
		return 0, err
	}
	return bestCost, nil
}

// Jet runs RunJet on the CPU: every phase is a sequence of parallel loops,
// reductions and prefix sums over vertices, deterministic for a given
// thread count. It returns the final cost.
func Jet(x *par.Exec, s *State, cfg JetConfig) int64 {
	c, _ := RunJet(newJet(x, s, cfg), cfg)
	return c
}

// CPU JetOps.
func (j *jet) LabelPropagation() error { j.labelPropagation(); return nil }
func (j *jet) Rebalance(strong bool) error {
	clear(j.locked)
	j.rebalance(strong)
	return nil
}
func (j *jet) Cost() (int64, error)   { return j.cost(), nil }
func (j *jet) Excess() (int64, error) { return j.s.Excess(), nil }
func (j *jet) SaveBest() error {
	j.best = append(j.best[:0], j.s.Part...)
	return nil
}
func (j *jet) RestoreBest() error {
	j.known = false
	clear(j.fresh)
	copy(j.s.Part, j.best)
	j.blockWeights()
	return nil
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
	best   []int32
	// Label propagation's choice of every vertex it evaluated (lpDest -1:
	// not a candidate) and whether it still holds (fresh): the choice
	// reads only the blocks of the vertex and its neighbours, so it holds
	// until one of them moves (stale; RestoreBest forgets every choice).
	fresh  []bool
	lpDest []int32
	lpGain []int64
	// c is the cost when known: label propagation and rebalancing add
	// what their moves change (their edges only) instead of a sum over
	// every edge after each iteration, a third of Jet's time on road
	// graphs.
	c     int64
	known bool
}

func newJet(x *par.Exec, s *State, cfg JetConfig) *jet {
	n := s.G.N()
	j := &jet{x: x, s: s, cfg: cfg, dest: make([]int32, n), gain: make([]int64, n),
		cand: make([]bool, n), locked: make([]bool, n), moved: make([]bool, n),
		fresh: make([]bool, n), lpDest: make([]int32, n), lpGain: make([]int64, n)}
	for c := 0; c < x.Chunks(n); c++ {
		j.scr = append(j.scr, newNbhd(s.K))
	}
	return j
}

// cost is the objective, as a parallel reduction over vertices.
func (j *jet) cost() int64 {
	if j.known {
		return j.c
	}
	s := j.s
	g := s.G
	j.c, j.known = j.x.SumInt64(g.N(), func(lo, hi int) int64 {
		var c int64
		for v := lo; v < hi; v++ {
			pv := s.Part[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if pu := s.Part[g.Adj[e]]; pu != pv {
					c += g.W(e) * s.Obj.D(pv, pu)
				}
			}
		}
		return c
	})/2, true
	return j.c
}

// moveCost is the change of the cost when the vertices marked in j.moved
// go to j.dest (before they do).
func (j *jet) moveCost() int64 {
	return j.x.SumInt64(j.s.G.N(), func(lo, hi int) int64 {
		var d int64
		for v := int32(lo); v < int32(hi); v++ {
			if j.moved[v] {
				d += j.moveDelta(v)
			}
		}
		return d
	})
}

// moveDelta is moved vertex v's share of moveCost: the change over its
// edges, an edge between two moved vertices counted at its lower end.
func (j *jet) moveDelta(v int32) int64 {
	s := j.s
	g := s.G
	var d int64
	pv, qv := s.Part[v], j.dest[v]
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		u := g.Adj[e]
		pu, qu := s.Part[u], s.Part[u]
		if j.moved[u] {
			if u < v {
				continue
			}
			qu = j.dest[u]
		}
		d += g.W(e) * (s.Obj.D(qv, qu) - s.Obj.D(pv, pu))
	}
	return d
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
//
// A vertex that neither moved nor saw a neighbour move since an earlier
// label propagation evaluated it keeps that choice (j.fresh) without
// loading its neighbourhood again: the choice ignores balance, so it is
// what the evaluation would give.
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
			if j.fresh[v] {
				if d := j.lpDest[v]; d >= 0 {
					j.cand[v], j.dest[v], j.gain[v] = true, d, j.lpGain[v]
				}
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
			j.fresh[v], j.lpDest[v], j.lpGain[v] = true, -1, 0
			if best >= 0 && bg >= 0 {
				j.cand[v], j.dest[v], j.gain[v] = true, best, bg
				j.lpDest[v], j.lpGain[v] = best, bg
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
	if j.known {
		j.c += j.moveCost()
	}
	j.x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			j.locked[v] = j.moved[v]
			if j.moved[v] {
				s.Part[v] = j.dest[v]
			}
		}
	})
	for v, m := range j.moved {
		if m {
			j.stale(int32(v))
		}
	}
	j.blockWeights()
}

// stale forgets the label propagation choices that a move of v changes:
// v's and its neighbours'. It runs sequentially over the moved vertices
// (a neighbour may be in another thread's range); they are few after the
// first iterations, when most choices are kept.
func (j *jet) stale(v int32) {
	g := j.s.G
	j.fresh[v] = false
	for _, u := range g.Adj[g.XAdj[v]:g.XAdj[v+1]] {
		j.fresh[u] = false
	}
}

// before reports whether candidate u is ranked before candidate v.
func (j *jet) before(u, v int32) bool {
	return j.gain[u] > j.gain[v] || j.gain[u] == j.gain[v] && u < v
}

// loadFuture gathers v's connectivity with every neighbour ranked before v
// placed at its destination.
func (h *nbhd) loadFuture(s *State, v int32, j *jet) {
	h.reset()
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
		h.conn[b] += g.W(e)
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
	avg, room, roomList := RebalanceTargets(s.BW, s.MaxW[0], j.cfg.Segment)
	if len(roomList) == 0 {
		return
	}
	j.round++
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
				lo, hi := SegmentRoom(roomList, p, j.cfg.Segment)
				if lo == hi {
					continue // no room in p's segment
				}
				best = roomList[lo+int(RebalanceHash(uint64(v), j.cfg.Seed, j.round)%uint64(hi-lo))]
				bg = base - nb.costAt(&s.Obj, best)
			}
			j.cand[v], j.dest[v], j.gain[v] = true, best, bg
		}
	})
	j.blockWeightsAfter(SelectRebalance(s.Part, g.VW, s.BW, s.MaxW, j.cand, j.dest, j.gain, strong, j.cfg.Segment))
}

// SegmentRoom returns the range [lo, hi) of the sorted roomList that lies
// in block p's segment of seg blocks (seg <= 0: the whole list).
func SegmentRoom(roomList []int32, p int32, seg int) (lo, hi int) {
	if seg <= 0 {
		return 0, len(roomList)
	}
	first := p / int32(seg) * int32(seg)
	lo = sort.Search(len(roomList), func(i int) bool { return roomList[i] >= first })
	hi = sort.Search(len(roomList), func(i int) bool { return roomList[i] >= first+int32(seg) })
	return lo, hi
}

// RebalanceTargets returns the average block weight and the blocks that
// may receive vertices: those below sigma = Lmax - max(1, Lmax/100) (the
// dead zone of the paper), or below Lmax when the zone would exclude the
// average. With seg > 0 (JetConfig.Segment) the average that decides is
// that of the block's segment: a heavy segment still has room.
func RebalanceTargets(bw []int64, lmax int64, seg int) (avg int64, room []bool, roomList []int32) {
	k := len(bw)
	var total int64
	for _, w := range bw {
		total += w
	}
	avg = total / int64(max(k, 1))
	dead := lmax - max(1, lmax/100)
	sigma := func(avg int64) int64 {
		if dead < avg {
			return lmax
		}
		return dead
	}
	room = make([]bool, k)
	if seg <= 0 || seg >= k {
		seg = max(k, 1)
	}
	for f := 0; f < k; f += seg {
		e := min(f+seg, k)
		sa := avg
		if seg < k {
			var t int64
			for _, w := range bw[f:e] {
				t += w
			}
			sa = t / int64(e-f)
		}
		sg := sigma(sa)
		for b := f; b < e; b++ {
			if bw[b] < sg {
				room[b] = true
				roomList = append(roomList, int32(b))
			}
		}
	}
	return avg, room, roomList
}

// RebalanceSeed is the hash seed of rebalancing round r; a vertex without
// an adjacent block that has room goes to roomList[Splitmix64(v ^ seed) %
// len(roomList)] on every backend.
func RebalanceSeed(seed, round uint64) uint64 { return seed ^ round*0x9e3779b97f4a7c15 }

// RebalanceHash is the draw of vertex v in rebalancing round r:
// Splitmix64(v ^ RebalanceSeed(seed, r)) (the distributed Jet of
// distmap draws what the CPU one draws for the vertex's global id).
func RebalanceHash(v, seed, round uint64) uint64 {
	return hash.Splitmix64(v ^ RebalanceSeed(seed, round))
}

// blockWeightsAfter applies the moves and recomputes the block weights.
func (j *jet) blockWeightsAfter(moving []int32) {
	if j.known {
		clear(j.moved) // label propagation's marks
		for _, v := range moving {
			j.moved[v] = true
		}
		j.c += j.x.SumInt64(len(moving), func(lo, hi int) int64 {
			var d int64
			for _, v := range moving[lo:hi] {
				d += j.moveDelta(v)
			}
			return d
		})
	}
	for _, v := range moving {
		j.s.Part[v] = j.dest[v]
		j.stale(v)
	}
	j.blockWeights()
}

// rebalanceOrder lists the candidates in (block, bucket, id) order: a
// stable sort of the id-ordered list by (block, bucket), on keys computed
// once (sort.SliceStable's reflective swaps and repeated bucket
// computations took a tenth of IM's CPU on social graphs).
func rebalanceOrder(part []int32, cand []bool, bucket func(v int32) int) []int32 {
	// A counting sort by key part*nb + bucket, placing the candidates in
	// id order: stable, and linear (the comparison sort of (block, bucket,
	// id) keys was half of Jet's rebalancing on road graphs).
	const nb = 2 + 64 // buckets: gain > 0, gain 0, and one per bit length of a loss
	// Counted first: the appends' regrowth (growslice) was the largest
	// allocator of the default preset's profile on the corpus's fit half.
	c := 0
	for _, x := range cand {
		if x {
			c++
		}
	}
	vs, keys := make([]int32, 0, c), make([]int32, 0, c)
	maxKey := int32(-1)
	for v := range cand {
		if cand[v] {
			key := part[v]*nb + int32(bucket(int32(v)))
			vs, keys = append(vs, int32(v)), append(keys, key)
			maxKey = max(maxKey, key)
		}
	}
	if int(maxKey) > 4*len(vs)+1024 {
		// Many blocks (wide machines), few candidates: the counters
		// would outnumber them. Keys are distinct with the id.
		order := make([]int, len(vs))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if keys[a] != keys[b] {
				return int(keys[a]) - int(keys[b])
			}
			return int(vs[a]) - int(vs[b])
		})
		list := make([]int32, len(vs))
		for i, j := range order {
			list[i] = vs[j]
		}
		return list
	}
	start := make([]int32, maxKey+2)
	for _, key := range keys {
		start[key+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	list := make([]int32, len(vs))
	for i, v := range vs {
		list[start[keys[i]]] = v
		start[keys[i]]++
	}
	return list
}

// SelectRebalance picks, for every overloaded block, the cheapest
// candidates that cover its excess: candidates sorted by (block, loss
// bucket, id), losses in log2-spaced buckets (positive gains first, then
// zero, then losses of growing magnitude); a block takes candidates while
// its excess is positive. With strong, every destination then accepts the
// moves that target it in (bucket, id) order while they fit below its
// limit; the rest overflow and, in id order, fill the room left in all
// blocks: the overflowing vertex at weight position P (of the overflow)
// goes to the block whose share [R_b, R_b+1) of the room contains P
// (to its destination when P is past all room). It returns the vertices
// to move (dest may be updated). Every choice is a prefix of an order
// or a position in one, so the GPU backend computes the same moves with
// bucket counts, prefix sums and a search by id (kernels reb_*). With seg
// > 0 (JetConfig.Segment), an overflowing vertex whose share falls in
// another segment keeps its destination.
func SelectRebalance(part []int32, vw, bw, maxW []int64, cand []bool, dest []int32, gain []int64, strong bool, seg int) []int32 {
	k := len(bw)
	bucket := func(v int32) int {
		switch g := gain[v]; {
		case g > 0:
			return 0
		case g == 0:
			return 1
		default:
			return 2 + bits.Len64(uint64(-g)) - 1
		}
	}
	list := rebalanceOrder(part, cand, bucket)
	excess := make([]int64, k)
	for b := 0; b < k; b++ {
		excess[b] = bw[b] - maxW[b]
	}
	var moving []int32
	for _, v := range list {
		if p := part[v]; excess[p] > 0 {
			excess[p] -= vw[v]
			moving = append(moving, v)
		}
	}
	if strong {
		left := make([]int64, k)
		for b := 0; b < k; b++ {
			left[b] = maxW[b] - bw[b]
		}
		byDest := slices.Clone(moving)
		sort.Slice(byDest, func(a, b int) bool {
			u, v := byDest[a], byDest[b]
			if dest[u] != dest[v] {
				return dest[u] < dest[v]
			}
			if bu, bv := bucket(u), bucket(v); bu != bv {
				return bu < bv
			}
			return u < v
		})
		accepted := make([]int64, k)
		full := make([]bool, k)
		var overflow []int32
		for _, v := range byDest {
			if d := dest[v]; !full[d] && accepted[d]+vw[v] <= left[d] {
				accepted[d] += vw[v]
			} else {
				full[d] = true
				overflow = append(overflow, v)
			}
		}
		slices.Sort(overflow)
		room := make([]int64, k+1) // room[b]: the room of the blocks before b
		for b := 0; b < k; b++ {
			room[b+1] = room[b] + max(left[b]-accepted[b], 0)
		}
		var pos int64
		for _, v := range overflow {
			if pos < room[k] {
				// the largest b with room[b] <= pos: its share holds pos
				b := sort.Search(k, func(b int) bool { return room[b+1] > pos })
				if seg <= 0 || b/seg == int(dest[v])/seg {
					dest[v] = int32(b)
				}
			}
			pos += vw[v]
		}
	}
	return moving
}
