package kway

import (
	"slices"
	"sync"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/partition"
)

// Flat splits g, a graph of at most a few hundred vertices, into
// len(maxW) children, child c weighing at most maxW[c], minimising the
// cut: recursive bisection, each bisection grown greedily from tries
// starts (pseudo-peripheral and random in turns) and refined by classic
// two-way FM passes, then lpRounds of k-way label propagation. It is the
// partitioner's method for graphs below its FlatSize (flatBisect, then
// label propagation), written for graphs this small: the gains are found
// by scanning the vertices, and every buffer is reused from one call to
// the next.
//
// These are the splits of wide machines into groups of a few vertices
// each (rgg 121k onto 4:8:64:8:6: 2,058 subgraphs of ~60 vertices into 8
// sockets) and Partition's bisections of small blocks, which spent most
// of their time in the partitioner's set-up (subgraphs, refinement state,
// connectivity tables, heaps) for every bisection. It returns nil when it
// finds no split within the limits.
func Flat(g *graph.Graph, maxW []int64, tries, lpRounds int, seed uint64) []int32 {
	s := flatPool.Get().(*flat)
	defer func() {
		s.g = nil // the pool keeps no graph alive
		flatPool.Put(s)
	}()
	s.reset(g, seed)
	part := make([]int32, g.N())
	set := s.set[:0]
	for v := range int32(g.N()) {
		set = append(set, v)
	}
	if k := len(maxW); cap(s.load) < k {
		s.load, s.conn = make([]int64, k), make([]int64, k)
	}
	s.load, s.conn = s.load[:len(maxW)], s.conn[:len(maxW)]
	clear(s.conn)
	s.rb(set, maxW, 0, max(tries, 1), lpRounds, part)
	clear(s.load)
	for v, c := range part {
		s.load[c] += g.VW[v]
	}
	for c := range maxW {
		if s.load[c] > maxW[c] {
			return nil
		}
	}
	return part
}

var flatPool = sync.Pool{New: func() any { return new(flat) }}

// flat is Flat's scratch, sized for the largest graph seen.
type flat struct {
	g    *graph.Graph
	rng  uint64
	set  []int32
	side []int8 // 0 or 1 in the current bisection
	best []int8 // the best try's sides
	// The current bisection's tries (up to flatMaxTries): their starts,
	// and their grown sides where hasSides (row t of grown).
	starts           [flatMaxTries]int32
	hasSides         [flatMaxTries]bool
	grown            []int8
	gain             []int64 // grow's gains
	deg, ext         []int64 // edges inside the set (bisect), to the other side (fm)
	cand             []int32 // fm's candidates
	lock             []bool
	skip             []bool
	front            []bool
	in               []uint32 // == inMark: in the current bisection's set
	seen             []uint32 // == seenMark: reached by the current search
	inMark, seenMark uint32
	queue            []int32
	moves            []int32
	toL              [2][]int64 // fm: edge weight to the locked vertices of side 0, 1
	load             []int64    // per child (lp) and per side (bisections)
	conn             []int64    // per child (lp)
}

func (s *flat) reset(g *graph.Graph, seed uint64) {
	n := g.N()
	s.g, s.rng = g, seed
	if cap(s.side) < n {
		s.set = make([]int32, 0, n)
		s.side, s.best = make([]int8, n), make([]int8, n)
		s.gain, s.deg, s.ext = make([]int64, n), make([]int64, n), make([]int64, n)
		s.cand = make([]int32, 0, n)
		s.lock, s.skip, s.front = make([]bool, n), make([]bool, n), make([]bool, n)
		s.in, s.seen = make([]uint32, n), make([]uint32, n)
		s.queue, s.moves = make([]int32, 0, n), make([]int32, 0, n)
	}
	s.side, s.best, s.gain, s.deg, s.ext = s.side[:n], s.best[:n], s.gain[:n], s.deg[:n], s.ext[:n]
	s.lock, s.skip, s.front = s.lock[:n], s.skip[:n], s.front[:n]
	s.in, s.seen = s.in[:n], s.seen[:n]
	if len(s.toL[0]) < n {
		s.toL = [2][]int64{make([]int64, n), make([]int64, n)}
	}
	clear(s.in)
	clear(s.seen)
	s.inMark, s.seenMark = 0, 0
}

func (s *flat) next() uint64 {
	s.rng += 0x9e3779b97f4a7c15
	return hash.Splitmix64(s.rng)
}

// rb assigns the vertices of set to the children [lo, lo+len(maxW)).
func (s *flat) rb(set []int32, maxW []int64, lo int32, tries, lpRounds int, part []int32) {
	k := len(maxW)
	if k == 1 || len(set) == 0 {
		for _, v := range set {
			part[v] = lo
		}
		return
	}
	k0 := k / 2
	var w, cap0, cap1 int64
	for _, v := range set {
		w += s.g.VW[v]
	}
	for _, c := range maxW[:k0] {
		cap0 += c
	}
	for _, c := range maxW[k0:] {
		cap1 += c
	}
	lim := partition.BisectLimits(w, cap0, cap1, k)
	// Never past the halves' capacities: BisectLimits rounds a perfect
	// split's share up, and in floating point 18*(12/18) rounds up to 13,
	// which the partitioner's k-way rebalancing repairs and Flat has not.
	lim[0], lim[1] = min(lim[0], cap0), min(lim[1], cap1)
	s.bisect(set, lim, tries)
	// Side 0 first, in set order, then side 1.
	q := s.queue[:0]
	i := 0
	for _, v := range set {
		if s.best[v] == 0 {
			set[i] = v
			i++
		} else {
			q = append(q, v)
		}
	}
	copy(set[i:], q)
	s.rb(set[:i], maxW[:k0], lo, tries, lpRounds, part)
	s.rb(set[i:], maxW[k0:], lo+int32(k0), tries, lpRounds, part)
	if k > 2 {
		s.lp(set, part, maxW, lo, lpRounds)
	}
}

// bisect leaves the best of tries bisections of set (least excess over
// lim, then least cut) in s.best.
func (s *flat) bisect(set []int32, lim [2]int64, tries int) {
	g := s.g
	s.inMark++
	for _, v := range set {
		s.in[v] = s.inMark
	}
	// Every try's growing and FM passes need each vertex's edge weight
	// inside the set: summed once here.
	var total int64
	for _, v := range set {
		total += g.VW[v]
		var deg int64
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if s.in[g.Adj[e]] == s.inMark {
				deg += g.W(e)
			}
		}
		s.deg[v] = deg
	}
	target0 := int64(float64(total) * float64(lim[0]) / float64(lim[0]+lim[1]))
	bestCut, bestExcess := int64(-1), int64(-1)
	tries = max(1, min(tries, len(set)/8))
	for t := range tries {
		start := set[s.next()%uint64(len(set))]
		if t%2 == 0 {
			start = s.peripheral(start)
		}
		// Growing and FM draw nothing at random: a try that grows the
		// sides an earlier one grew ends where that one ended, and cannot
		// win. On the sockets' splits of a wide machine (rgg 121k onto
		// 4:8:64:8:6) 30% of the tries do: the peripheral starts of a
		// small set are often one vertex, and other starts grow into the
		// same sides.
		if s.repeated(set, start, t) {
			continue
		}
		s.grow(set, start, target0, lim[0])
		if s.grownBefore(set, t) {
			continue
		}
		cut, excess := s.fm(set, lim)
		if bestCut < 0 || excess < bestExcess || excess == bestExcess && cut < bestCut {
			bestCut, bestExcess = cut, excess
			for _, v := range set {
				s.best[v] = s.side[v]
			}
		}
	}
}

// peripheral returns the last vertex reached by a breadth-first search of
// the set from the last one reached from start.
func (s *flat) peripheral(start int32) int32 {
	g := s.g
	v := start
	for range 2 {
		s.seenMark++
		q := append(s.queue[:0], v)
		s.seen[v] = s.seenMark
		for i := 0; i < len(q); i++ {
			x := q[i]
			for e := g.XAdj[x]; e < g.XAdj[x+1]; e++ {
				if u := g.Adj[e]; s.in[u] == s.inMark && s.seen[u] != s.seenMark {
					s.seen[u] = s.seenMark
					q = append(q, u)
				}
			}
		}
		v = q[len(q)-1]
		s.queue = q
	}
	return v
}

// grow puts the vertices of set on side 1, then grows side 0 from start,
// taking the vertex that gains most (edges to side 0 minus edges to side
// 1) among those next to it, until it holds target0 (never past max0):
// the partitioner's greedy growing (partition's grower).
func (s *flat) grow(set []int32, start int32, target0, max0 int64) {
	g := s.g
	for _, v := range set {
		s.side[v], s.skip[v], s.front[v] = 1, false, false
		s.gain[v] = -s.deg[v]
	}
	// The front: vertices of side 1 next to side 0 (taken ones and those
	// too heavy are dropped as the scan meets them).
	front := append(s.cand[:0], start)
	s.front[start] = true
	var w0 int64
	for w0 < target0 {
		v := int32(-1)
		for i := 0; i < len(front); i++ {
			u := front[i]
			if s.side[u] == 0 || s.skip[u] {
				front[i] = front[len(front)-1]
				front = front[:len(front)-1]
				i--
				continue
			}
			if v < 0 || s.gain[u] > s.gain[v] || s.gain[u] == s.gain[v] && u < v {
				v = u
			}
		}
		if v < 0 {
			// Nothing next to side 0 (a disconnected set): start again
			// from the first vertex left.
			for _, u := range set {
				if s.side[u] == 1 && !s.skip[u] {
					v = u
					break
				}
			}
			if v < 0 {
				break
			}
			s.front[v] = true
			front = append(front, v)
		}
		w := g.VW[v]
		if w0+w > max0 {
			s.skip[v] = true
			continue
		}
		if w0+w-target0 > target0-w0 {
			break // taking v would land farther from the target
		}
		s.side[v] = 0
		w0 += w
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; s.in[u] == s.inMark && s.side[u] == 1 {
				s.gain[u] += 2 * g.W(e)
				if !s.front[u] {
					s.front[u] = true
					front = append(front, u)
				}
			}
		}
	}
	s.cand = front
}

// fm refines the bisection of set by classic FM passes (every boundary
// vertex may move once per pass, the best-gain move that the limits allow,
// negative gains included; a pass ends after flatAlpha moves without a
// new best and rolls back to its best prefix by excess over lim, then
// cut) while a pass improves it, at most flatFMPasses. It returns the cut
// and the excess.
func (s *flat) fm(set []int32, lim [2]int64) (int64, int64) {
	g := s.g
	var load [2]int64
	var cut int64
	for _, v := range set {
		load[s.side[v]] += g.VW[v]
	}
	excess := func() int64 { return max(load[0]-lim[0], 0) + max(load[1]-lim[1], 0) }
	for pass := 0; pass < flatFMPasses; pass++ {
		// ext: edges to the other side; the gain is ext minus the edges to
		// the own side. The candidates are the boundary (ext > 0).
		cut = 0
		cand := s.cand[:0]
		for _, v := range set {
			var ext int64
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := g.Adj[e]; s.in[u] == s.inMark && s.side[u] != s.side[v] {
					ext += g.W(e)
				}
			}
			s.ext[v], s.lock[v] = ext, false
			s.toL[0][v], s.toL[1][v] = 0, 0
			s.front[v] = ext > 0 // front: in cand
			if ext > 0 {
				cand = append(cand, v)
			}
			cut += ext
		}
		cut /= 2
		startCut, startExcess := cut, excess()
		bestCut, bestExcess, best := cut, startExcess, 0
		s.moves = s.moves[:0]
		// fixed bounds the cut that the rest of the pass can reach: the cut
		// edges between locked vertices (which move no more), plus for
		// every unlocked vertex the lighter of its edge weights to the
		// locked vertices of either side (toL; one of them is cut wherever
		// it ends). Once it is no lower than the best cut at no excess,
		// the pass could only reach moves that it rolls back, and it stops
		// there; the next pass starts from the sides and loads alone, so
		// every split stays as it was. On rgg 121k onto 4:8:64:8:6 the
		// passes make 32% fewer moves.
		var fixed int64
		for len(s.moves)-best <= flatAlpha {
			if bestExcess == 0 && fixed >= bestCut {
				break
			}
			v, vGain := int32(-1), int64(0)
			for i := 0; i < len(cand); i++ {
				u := cand[i]
				if s.lock[u] || s.ext[u] == 0 {
					s.front[u] = false
					cand[i] = cand[len(cand)-1]
					cand = cand[:len(cand)-1]
					i--
					continue
				}
				from := s.side[u]
				if load[1-from]+g.VW[u] > lim[1-from] && load[from] <= lim[from] {
					continue
				}
				if gain := 2*s.ext[u] - s.deg[u]; v < 0 || gain > vGain {
					v, vGain = u, gain
				}
			}
			if v < 0 {
				break
			}
			from := s.side[v]
			s.side[v], s.lock[v] = 1-from, true
			load[from] -= g.VW[v]
			load[1-from] += g.VW[v]
			cut -= vGain
			s.ext[v] = s.deg[v] - s.ext[v]
			to := 1 - from
			fixed -= min(s.toL[0][v], s.toL[1][v])
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := g.Adj[e]; s.in[u] == s.inMark {
					w := g.W(e)
					if s.lock[u] {
						if s.side[u] != to {
							fixed += w
						}
					} else {
						old := min(s.toL[0][u], s.toL[1][u])
						s.toL[to][u] += w
						fixed += min(s.toL[0][u], s.toL[1][u]) - old
					}
					if s.side[u] == from {
						s.ext[u] += w
						if !s.lock[u] && !s.front[u] {
							s.front[u] = true
							cand = append(cand, u)
						}
					} else {
						s.ext[u] -= w
					}
				}
			}
			s.moves = append(s.moves, v)
			if ex := excess(); ex < bestExcess || ex == bestExcess && cut < bestCut {
				bestCut, bestExcess, best = cut, ex, len(s.moves)
			}
		}
		s.cand = cand
		for _, v := range s.moves[best:] {
			from := s.side[v]
			s.side[v] = 1 - from
			load[from] -= g.VW[v]
			load[1-from] += g.VW[v]
		}
		cut = bestCut
		if bestExcess == startExcess && bestCut == startCut {
			break
		}
	}
	return cut, excess()
}

// flatFMPasses bounds fm's passes, as partition.FlatRounds bounds the
// flat bisections' FM rounds; flatAlpha is the flat bisections' least FM
// alpha (partition's flatBisect: max(Alpha, n/4, 60)), which on graphs this
// small lets a pass run through the whole boundary (3 passes and alpha 16
// instead: J +0.05% to +0.13% on three of DEVELOPERS.md's wide instances,
// seeds 0-2 summed).
const flatFMPasses, flatAlpha = 10, 60

// lp runs up to rounds of label propagation of the vertices of set over
// the children [lo, lo+len(maxW)): each vertex, in set order, moves to
// the child it has the most edges to inside set when that is more than to
// its own and the child has room, or as many when the move balances them
// (the partitioner's label propagation).
func (s *flat) lp(set []int32, part []int32, maxW []int64, lo int32, rounds int) {
	g := s.g
	k := int32(len(maxW))
	if rounds <= 0 || k < 2 {
		return
	}
	s.inMark++
	for _, v := range set {
		s.in[v] = s.inMark
	}
	load, conn := s.load[lo:lo+k], s.conn[lo:lo+k]
	clear(load)
	for _, v := range set {
		load[part[v]-lo] += g.VW[v]
	}
	for range rounds {
		moved := false
		for _, v := range set {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := g.Adj[e]; s.in[u] == s.inMark {
					conn[part[u]-lo] += g.W(e)
				}
			}
			own, w := part[v]-lo, g.VW[v]
			best := int32(-1)
			for c := range k {
				if c != own && conn[c] > 0 && load[c]+w <= maxW[c] &&
					(best < 0 || conn[c] > conn[best] || conn[c] == conn[best] && load[c] < load[best]) {
					best = c
				}
			}
			// Zero-gain moves that balance the children are taken too.
			ok := best >= 0 && (conn[best] > conn[own] || conn[best] == conn[own] && load[best]+w < load[own])
			clear(conn)
			if ok {
				part[v] = best + lo
				load[own] -= g.VW[v]
				load[best] += g.VW[v]
				moved = true
			}
		}
		if !moved {
			break
		}
	}
}

// flatMaxTries: tries past it are never skipped (the default runs 4).
const flatMaxTries = 8

// flatSkipRepeats lets bisect skip the tries that repeat an earlier one
// (off only in the test that checks that skipping changes nothing).
var flatSkipRepeats = true

// repeated reports whether try t starts from the start of an earlier try
// of this bisection (which grew the same sides); it records try t's start.
func (s *flat) repeated(set []int32, start int32, t int) bool {
	if t >= len(s.starts) {
		return false
	}
	s.starts[t], s.hasSides[t] = start, false
	return flatSkipRepeats && slices.Contains(s.starts[:t], start)
}

// grownBefore reports whether an earlier try of this bisection grew the
// sides that try t grew (s.side on set); it records try t's sides, row t
// of s.grown.
func (s *flat) grownBefore(set []int32, t int) bool {
	if t >= len(s.starts) {
		return false
	}
	n := len(s.side)
	if len(s.grown) < len(s.starts)*n {
		s.grown = make([]int8, len(s.starts)*n)
	}
	cur := s.grown[t*n : (t+1)*n]
	for _, v := range set {
		cur[v] = s.side[v]
	}
	s.hasSides[t] = true
	if !flatSkipRepeats {
		return false
	}
	for u := range t {
		if !s.hasSides[u] {
			continue // skipped before growing: row u is another set's
		}
		prev := s.grown[u*n : (u+1)*n]
		same := true
		for _, v := range set {
			if prev[v] != cur[v] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}
