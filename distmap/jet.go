package distmap

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// jetBuckets is the number of loss buckets of Jet's rebalancing: a
// positive gain, zero, then one per bit of the loss (refinement's
// SelectRebalance).
const jetBuckets = 66

func jetBucket(gain int64) int {
	switch {
	case gain > 0:
		return 0
	case gain == 0:
		return 1
	}
	return 1 + bits.Len64(uint64(-gain))
}

// distJet is the Jet loop of the integrated mapper (refinement.RunJet:
// label propagation that ignores balance and moves at zero or negative
// net gain after the afterburner, weak and strong rebalancing, the best
// balanced mapping kept) on a distributed graph. Every phase is the CPU
// one's (refinement.Jet) decided for each vertex from its neighbours'
// PEs, candidacies and gains, the ghosts' from one exchange; the
// rebalancing's choices, prefixes of orders over all vertices, are cut
// with an allreduce of the candidates' weights by (PE, loss bucket) and an
// exclusive scan over the ranks (which hold the global ids in order). So
// the mapping is the one refinement.Jet computes on the whole graph with
// one thread, at any P (TestDistJet). Every method is collective.
//
// On skewed degrees, where nearly every vertex is on the boundary and
// hardly a move pays alone, label propagation on J stops where the
// one-process IM's Jet loop goes on (R-MAT 2^18 on 4:8:6: one-process
// HM 159.7M, IM 119.7M, the Jet loop on HM's mapping 113.3M).
type distJet struct {
	g      *Graph
	top    *topology.Topology
	labels []uint64
	lmax   int64
	seed   uint64
	pe     []int32 // local vertices, then ghosts
	bw     []int64 // PE loads over all ranks
	cand   []bool  // local vertices, then ghosts
	dest   []int32
	gain   []int64
	locked []bool // local vertices
	moved  []bool
	best   []int32
	bestBW []int64
	round  uint64
	// fit (balance's last rounds) moves a vertex only to a PE where it
	// fits below lmax, and only the moves that the destinations accept.
	fit  bool
	fits []int32
	r    rating
	pr   pricer
	// last holds the PEs (local vertices, then ghosts) when Cost last
	// ran, and cost2 twice J then (nil and 0 before the first Cost):
	// later Costs price only the arcs of the vertices that moved since.
	last  []int32
	cost2 int64
}

// runJet runs the Jet loop on the mapping pe (local vertices and
// ghosts) of g within lmax; pe ends as the best balanced mapping seen
// (the start, if it was balanced and nothing beat it), or, where none
// was balanced, the least overloaded. Unless over is set, a mapping that
// enters above lmax is left as it is and runJet reports false (the loads
// are global, so every rank decides alike). Collective.
func runJet(g *Graph, top *topology.Topology, pe []int32, lmax int64, cfg refinement.JetConfig, over bool) (bool, error) {
	j := &distJet{g: g, top: top, lmax: lmax, pe: pe, bw: make([]int64, top.K())}
	if err := j.loads(); err != nil {
		return false, err
	}
	if !over && slices.Max(j.bw) > lmax {
		return false, nil
	}
	n, all := g.N(), len(pe)
	j.labels, j.seed = top.Labels(), cfg.Seed
	j.cand, j.dest, j.gain = make([]bool, all), make([]int32, all), make([]int64, all)
	j.locked, j.moved = make([]bool, n), make([]bool, n)
	j.r.setRange(0, top.K())
	j.pr.use(top, j.labels)
	_, err := refinement.RunJet(j, cfg)
	return true, err
}

// loads sums the PE loads over all ranks.
func (j *distJet) loads() error {
	clear(j.bw)
	for v := range j.g.N() {
		j.bw[j.pe[v]] += j.g.VW[v]
	}
	return mpi.Allreduce(j.g.c, j.bw, mpi.Sum)
}

// refresh brings the ghosts' PEs and the loads up to date after moves.
func (j *distJet) refresh() error {
	n := j.g.N()
	gpe, err := exchange(j.g, j.pe[:n])
	if err != nil {
		return err
	}
	copy(j.pe[n:], gpe)
	return j.loads()
}

// load fills j.r with v's connectivity to the PEs; with future, every
// neighbour that is a candidate ranked before v counts at its destination
// (the afterburner).
func (j *distJet) load(v int, future bool) {
	g := j.g
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	j.r.reset(int(hi - lo))
	w := g.weights(lo, hi)
	for i, u := range g.Adj[lo:hi] {
		b := j.pe[u]
		if future && j.cand[u] && j.before(u, int32(v)) {
			b = j.dest[u]
		}
		j.r.add(int64(b), weight1(w, i))
	}
}

// interior reports whether every neighbour of v is on v's PE: bestMove
// then has no PE to offer, and the scan spares the rating. On the
// finest level of rgg 2^20 at P=2 the ratings of every vertex were most
// of the Jet loop's CPU (since it refines every level, not only skewed
// degrees' few boundary-free vertices).
func (j *distJet) interior(v int) bool {
	p := j.pe[v]
	for _, u := range j.g.Adj[j.g.XAdj[v]:j.g.XAdj[v+1]] {
		if j.pe[u] != p {
			return false
		}
	}
	return true
}

// before reports whether candidate u is ranked before candidate v:
// higher gain, then lower global id.
func (j *distJet) before(u, v int32) bool {
	return j.gain[u] > j.gain[v] || j.gain[u] == j.gain[v] && j.g.global(u) < j.g.global(v)
}

// costAt is v's share of J were it on PE b (after load).
func (j *distJet) costAt(b int32) int64 { return j.pr.at(&j.r, b) }

// bestMove returns the best PE for v other than p among its neighbours'
// (those room allows, when not nil), with its gain; -1 when none.
func (j *distJet) bestMove(p int32, room []bool) (int32, int64) {
	base := j.costAt(p)
	cost := j.pr.prices(&j.r)
	best, bg := int32(-1), int64(0)
	for i, q := range j.r.keys {
		b := int32(q)
		if b == p || room != nil && !room[b] {
			continue
		}
		if gn := base - cost[i]; best < 0 || gn > bg || gn == bg && b < best {
			best, bg = b, gn
		}
	}
	return best, bg
}

// shareCandidates sends the local candidates' destinations and gains to
// the ranks that hold them as ghosts.
func (j *distJet) shareCandidates() error {
	n := j.g.N()
	d := make([]int64, n)
	for v := range n {
		d[v] = -1
		if j.cand[v] {
			d[v] = int64(j.dest[v])
		}
	}
	gd, err := exchange(j.g, d)
	if err != nil {
		return err
	}
	gg, err := exchange(j.g, j.gain[:n])
	if err != nil {
		return err
	}
	for i, x := range gd {
		u := n + i
		j.cand[u] = x >= 0
		if x >= 0 {
			j.dest[u], j.gain[u] = int32(x), gg[i]
		}
	}
	return nil
}

// LabelPropagation: every unlocked vertex picks its best neighbouring PE
// ignoring balance (kept at a gain >= 0); the afterburner prices each
// candidate with the candidates ranked before it moved, and those still
// at a gain >= 0 move and stay locked for one iteration.
func (j *distJet) LabelPropagation() error {
	n := j.g.N()
	for v := range n {
		j.cand[v] = false
		if j.locked[v] || j.interior(v) {
			continue
		}
		j.load(v, false)
		if b, gn := j.bestMove(j.pe[v], nil); b >= 0 && gn >= 0 {
			j.cand[v], j.dest[v], j.gain[v] = true, b, gn
		}
	}
	if err := j.shareCandidates(); err != nil {
		return err
	}
	for v := range n {
		j.moved[v] = false
		if j.cand[v] {
			j.load(v, true)
			j.moved[v] = j.costAt(j.pe[v])-j.costAt(j.dest[v]) >= 0
		}
	}
	for v := range n {
		j.locked[v] = j.moved[v]
		if j.moved[v] {
			j.pe[v] = j.dest[v]
		}
	}
	return j.refresh()
}

// Rebalance moves weight out of the PEs above lmax as refinement's CPU
// Jet does: every vertex of an overloaded PE that is not too heavy picks
// its best neighbouring PE with room (else one drawn from its global id)
// and the PE sends away the cheapest candidates that cover its excess
// (selectRebalance).
func (j *distJet) Rebalance(strong bool) error {
	g, n := j.g, j.g.N()
	clear(j.locked)
	avg, room, roomList := refinement.RebalanceTargets(j.bw, j.lmax, 0)
	if j.fit && len(roomList) == 0 {
		// Fitting rounds: every PE below lmax has room where
		// RebalanceTargets' dead zone left none (lmax 1: n <= K).
		roomList = roomList[:0]
		for b, x := range j.bw {
			room[b] = x < j.lmax
			if room[b] {
				roomList = append(roomList, int32(b))
			}
		}
	}
	if len(roomList) == 0 {
		return nil
	}
	j.round++
	for v := range n {
		j.cand[v] = false
		p := j.pe[v]
		if j.bw[p] <= j.lmax || g.VW[v] == 0 || 2*g.VW[v] > 3*(j.bw[p]-avg) {
			continue
		}
		j.load(v, false)
		b, gn := j.bestMove(p, room)
		if j.fit && b >= 0 && j.lmax-j.bw[b] < g.VW[v] {
			b = -1
		}
		if b < 0 {
			h := refinement.RebalanceHash(uint64(g.First()+int64(v)), j.seed, j.round)
			if j.fit {
				if b = j.cheapestFitting(roomList, g.VW[v], h); b < 0 {
					continue
				}
			} else {
				b = roomList[int(h%uint64(len(roomList)))]
			}
			gn = j.costAt(p) - j.costAt(b)
		}
		j.cand[v], j.dest[v], j.gain[v] = true, b, gn
	}
	moving, err := j.selectRebalance(strong)
	if err != nil {
		return err
	}
	for _, v := range moving {
		j.pe[v] = j.dest[v]
	}
	return j.refresh()
}

// cheapestFitting returns the cheapest PE of list where weight w fits
// below lmax, ties broken by hash h (the first in list's fitting PEs
// from the one h picks); -1 where none fits.
func (j *distJet) cheapestFitting(list []int32, w int64, h uint64) int32 {
	j.fits = j.fits[:0]
	for _, b := range list {
		if j.lmax-j.bw[b] >= w {
			j.fits = append(j.fits, b)
		}
	}
	best, bc := int32(-1), int64(0)
	for i := range j.fits {
		q := j.fits[(i+int(h%uint64(len(j.fits))))%len(j.fits)]
		if c := j.costAt(q); best < 0 || c < bc {
			best, bc = q, c
		}
	}
	return best
}

// prefixCut finds, for every PE p, the bucket where the running sum of
// w[p][.] first passes limit[p] (strictly, or reaches it with reach):
// cut[p], and the weight of the buckets before it; cut[p] = jetBuckets
// when it never does, -1 when limit[p] is passed (or reached) before any
// weight.
func prefixCut(w, limit []int64, reach bool) (cut []int, before []int64) {
	k := len(limit)
	cut, before = make([]int, k), make([]int64, k)
	past := func(s, l int64) bool { return s > l || reach && s >= l }
	for p := range k {
		cut[p] = jetBuckets
		var s int64
		if past(0, limit[p]) {
			cut[p] = -1
			continue
		}
		for b := range jetBuckets {
			if x := w[p*jetBuckets+b]; past(s+x, limit[p]) {
				cut[p], before[p] = b, s
				break
			} else {
				s += x
			}
		}
		if cut[p] == jetBuckets {
			before[p] = s
		}
	}
	return cut, before
}

// selectRebalance is refinement.SelectRebalance over all ranks: the
// candidates of every PE sorted by (loss bucket, global id) are taken
// while its excess is positive; with strong, each destination accepts the
// moves in (bucket, id) order while they fit below lmax, and the rest, in
// id order, fill the room left in all PEs by position. Every choice is a
// prefix of such an order: the buckets before the one where it ends are
// summed over the ranks (one allreduce), that bucket is cut within the
// ranks in id order (an exclusive scan of each rank's weight in it). It
// returns the local vertices to move (dest updated).
func (j *distJet) selectRebalance(strong bool) ([]int32, error) {
	g, n, k := j.g, j.g.N(), len(j.bw)
	c := g.c
	// pass takes, of the local vertices vs (in id order) in (key, id)
	// order, those whose running sum over all ranks (before them, or
	// with them: incl) stays below limit; key(v) is (PE, bucket), or -1
	// to skip v. Over the candidates alone, not every vertex: three
	// loops over all of NW's level 1 at each rebalancing were a third
	// of its Jet loop (P=2, profile).
	pass := func(vs []int32, key func(v int) (int32, int), limit []int64, incl bool, take func(v int)) error {
		w := make([]int64, k*jetBuckets)
		for _, v := range vs {
			if p, b := key(int(v)); p >= 0 {
				w[int(p)*jetBuckets+b] += g.VW[v]
			}
		}
		if err := mpi.Allreduce(c, w, mpi.Sum); err != nil {
			return err
		}
		// Exclusive: the first element past the limit before it is the
		// last taken; inclusive: the first past it with it is refused.
		cut, before := prefixCut(w, limit, !incl)
		mine := make([]int64, k)
		for _, v := range vs {
			if p, b := key(int(v)); p >= 0 && b == cut[p] {
				mine[p] += g.VW[v]
			}
		}
		ex, err := mpi.Scan(c, mine, mpi.Sum, true)
		if err != nil {
			return err
		}
		run := make([]int64, k)
		for _, x := range vs {
			v := int(x)
			p, b := key(v)
			switch {
			case p < 0 || b > cut[p]:
			case b < cut[p]:
				take(v)
			default:
				s := before[p] + ex[p] + run[p]
				run[p] += g.VW[v]
				if !incl && s < limit[p] || incl && s+g.VW[v] <= limit[p] {
					take(v)
				}
			}
		}
		return nil
	}
	excess := make([]int64, k)
	for p, x := range j.bw {
		excess[p] = x - j.lmax
	}
	var cands, moving []int32
	for v := range n {
		if j.cand[v] {
			cands = append(cands, int32(v))
		}
	}
	isMoving := make([]bool, n)
	err := pass(cands, func(v int) (int32, int) {
		if !j.cand[v] {
			return -1, 0
		}
		return j.pe[v], jetBucket(j.gain[v])
	}, excess, false, func(v int) { moving = append(moving, int32(v)); isMoving[v] = true })
	if err != nil || !strong {
		return moving, err
	}
	left := make([]int64, k)
	for p, x := range j.bw {
		left[p] = j.lmax - x
	}
	accepted := make([]int64, k)
	ok := make([]bool, n)
	err = pass(moving, func(v int) (int32, int) {
		if !isMoving[v] {
			return -1, 0
		}
		return j.dest[v], jetBucket(j.gain[v])
	}, left, true, func(v int) { ok[v] = true; accepted[j.dest[v]] += g.VW[v] })
	if err != nil {
		return nil, err
	}
	if j.fit {
		kept := moving[:0]
		for _, v := range moving {
			if ok[v] {
				kept = append(kept, v)
			}
		}
		return kept, nil
	}
	if err := mpi.Allreduce(c, accepted, mpi.Sum); err != nil {
		return nil, err
	}
	var over int64
	for _, v := range moving {
		if !ok[v] {
			over += g.VW[v]
		}
	}
	pos, err := mpi.Scan(c, []int64{over}, mpi.Sum, true)
	if err != nil {
		return nil, err
	}
	room := make([]int64, k+1) // room[p]: the room of the PEs before p
	for p := range k {
		room[p+1] = room[p] + max(left[p]-accepted[p], 0)
	}
	// moving is in id order: the overflow's positions follow it.
	at := pos[0]
	for _, v := range moving {
		if ok[v] {
			continue
		}
		if at < room[k] {
			// the PE whose share [room[p], room[p+1]) holds the position
			j.dest[v] = int32(sort.Search(k, func(p int) bool { return room[p+1] > at }))
		}
		at += g.VW[v]
	}
	return moving, nil
}

// Cost is J over all ranks.
// Cost is J over all ranks. The first call scans every arc; each later
// one adds the change of the arcs whose ends moved since the last: an
// arc with one end moved is priced from that end and counted for both
// directions, one with both ends moved from each end once (weights and
// distances are symmetric). Scanning every arc at every iteration was
// about 40% of the finest level's Jet loop on rgg 2^20 at P=2 (profile),
// since the Jet loop refines every level; the sums are exact, so the
// mappings are the same.
func (j *distJet) Cost() (int64, error) {
	g := j.g
	dist := func(p, q int32) int64 {
		if p == q {
			return 0
		}
		return j.top.LabelDistance(j.labels[p], j.labels[q])
	}
	var s int64
	if j.last == nil {
		for v := range g.N() {
			p := j.pe[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				s += g.W(e) * dist(p, j.pe[g.Adj[e]])
			}
		}
		j.last = slices.Clone(j.pe)
	} else {
		for v := range g.N() {
			p, o := j.pe[v], j.last[v]
			if p == o {
				continue
			}
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				u := g.Adj[e]
				d := g.W(e) * (dist(p, j.pe[u]) - dist(o, j.last[u]))
				if j.pe[u] == j.last[u] {
					d *= 2
				}
				s += d
			}
		}
		copy(j.last, j.pe)
	}
	sum, err := sumAll(g.c, s)
	if err != nil {
		return 0, err
	}
	j.cost2 += sum[0]
	return j.cost2 / 2, nil
}

// Excess is the weight above lmax summed over the PEs.
func (j *distJet) Excess() (int64, error) {
	var e int64
	for _, x := range j.bw {
		e += max(0, x-j.lmax)
	}
	return e, nil
}

func (j *distJet) SaveBest() error {
	j.best = append(j.best[:0], j.pe...)
	j.bestBW = append(j.bestBW[:0], j.bw...)
	return nil
}

func (j *distJet) RestoreBest() error {
	copy(j.pe, j.best)
	copy(j.bw, j.bestBW)
	return nil
}
