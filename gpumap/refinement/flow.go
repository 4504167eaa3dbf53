package refinement

import (
	"sync"
	"sync/atomic"
)

// FlowConfig tunes Flows.
type FlowConfig struct {
	// Rounds: passes over the adjacent block pairs, while one gains (0:
	// Flows does nothing).
	Rounds int
	// Alpha scales the regions: each side of a pair's region weighs up to
	// Alpha times the other block's room below its limit, measured from
	// the pair's proportional split (KaFFPa's alpha). At 1 every cut of
	// the region keeps both limits; above, Flows pierces until one does
	// (0: 1).
	Alpha float64
	// Work, when > 0, stops a call from starting another pair once its
	// counted work (edges scanned growing regions and building networks,
	// arcs scanned by the max flow) passes Work x (n + 2m).
	Work float64
	// Count, when set, accumulates the counted work in FM entries (see
	// flowUnitsPerEntry).
	Count *atomic.Int64
}

// Flows refines a partition under the edge cut by max-flow min-cut on
// pairs of adjacent blocks (Sanders and Schulz's flow-based refinement):
// for a pair A, B it grows a region around their cut by BFS into A and
// into B, each side no heavier than the other block can take (so that any
// cut of the region keeps both limits, see FlowConfig.Alpha), contracts
// the rest of A into the source and the rest of B into the sink, and
// computes a maximum flow (Dinic). Of the minimum cuts it takes the
// source side's residual reachable set or the sink side's, whichever
// keeps the limits with the better balance (where neither does, Alpha >
// 1, it pierces: see try), and applies it when it lowers the cut between
// A and B, or keeps it and improves the balance. Edges to
// third blocks stay cut wherever the vertex goes, so the change of the
// pair's cut is the change of the whole cut. FM is stuck where a better
// cut lies behind moves that each raise it; a flow sees the whole region.
// Pairs are visited heaviest connection first (PairFM's order), rounds
// repeat while one gains. It runs sequentially and draws nothing from a
// seed: the result depends on the input only. It returns the cut
// reduction; on another objective it does nothing.
func Flows(s *State, cfg FlowConfig) int64 {
	if cfg.Rounds <= 0 || !s.Obj.IsCut() || s.K < 2 {
		return 0
	}
	f := flowPool.Get().(*flows)
	defer func() {
		f.s = nil
		flowPool.Put(f)
	}()
	return f.run(s, cfg)
}

// flowUnitsPerEntry: Flows' units of work (edges and arcs scanned) per
// FM connectivity entry (FMConfig.Work), by their CPU time: 3.1-5.5 ns
// per unit on the corpus's meshes, matrices and LP models (-t 1, load
// 28), against 7-10 ns per FM entry (countedPerEntry in gpumap, at the
// 0.41-0.60x of its count measured there).
const flowUnitsPerEntry = 2

var flowPool = sync.Pool{New: func() any { return new(flows) }}

// flows is the scratch of Flows, kept from call to call.
type flows struct {
	s     *State
	cfg   FlowConfig
	work  int64
	limit int64
	// mark[v] == rstamp: v is in the current region, its node local[v];
	// seen[v] == stamp: v was looked at gathering the current pair's seeds.
	mark, seen    []uint32
	stamp, rstamp uint32
	local         []int32
	region        []int32 // the region's vertices, node i+2 (0: source, 1: sink)
	seeds         [2][]int32
	dirty         [][]int32
	net           flowNet
	sideS, side   []bool
	cand          [2][]int32 // the nodes to pierce next to the sources' reach, the sinks'
}

func (f *flows) run(s *State, cfg FlowConfig) int64 {
	if cfg.Alpha < 1 {
		cfg.Alpha = 1
	}
	n := s.G.N()
	f.s, f.cfg, f.work = s, cfg, 0
	f.limit = -1
	if cfg.Work > 0 {
		f.limit = int64(cfg.Work * float64(n+len(s.G.Adj)))
	}
	f.mark, f.seen = growU32(f.mark, n), growU32(f.seen, n)
	f.local = grow(f.local, n)
	if cap(f.dirty) < s.K {
		f.dirty = make([][]int32, s.K)
	}
	f.dirty = f.dirty[:s.K]
	for b := range f.dirty {
		f.dirty[b] = f.dirty[b][:0]
	}
	total := int64(0)
	defer func() {
		if cfg.Count != nil {
			cfg.Count.Add(f.work / flowUnitsPerEntry)
		}
	}()
	for r := 0; r < cfg.Rounds; r++ {
		// PairFM's list of pairs (heaviest first) and of their boundaries.
		pairs, touch := (&pairFM{s: s}).pairs()
		f.work += int64(n + len(s.G.Adj))
		for b := range f.dirty {
			f.dirty[b] = f.dirty[b][:0]
		}
		gained := int64(0)
		for i, pr := range pairs {
			if f.limit >= 0 && f.work > f.limit {
				return total + gained
			}
			gained += f.pair(pr[0], pr[1], touch[i])
		}
		total += gained
		if gained <= 0 {
			break
		}
	}
	return total
}

// next starts a new stamp for seen.
func (f *flows) next() {
	if f.stamp++; f.stamp == 0 {
		clear(f.seen[:cap(f.seen)])
		f.stamp = 1
	}
}

// pair refines the cut between blocks a and b; touch lists the vertices
// of either next to the other at the round's start (the dirty lists hold
// those that may have come to touch it since). It returns the cut
// reduction.
func (f *flows) pair(a, b int32, touch []int32) int64 {
	s := f.s
	g := s.G
	f.next()
	blk := [2]int32{a, b}
	f.seeds[0], f.seeds[1] = f.seeds[0][:0], f.seeds[1][:0]
	var cutAB int64
	for _, list := range [3][]int32{touch, f.dirty[a], f.dirty[b]} {
		for _, v := range list {
			if f.seen[v] == f.stamp {
				continue
			}
			f.seen[v] = f.stamp
			side := 0
			switch s.Part[v] {
			case a:
			case b:
				side = 1
			default:
				continue
			}
			other := blk[1-side]
			var c int64
			f.work += g.XAdj[v+1] - g.XAdj[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if s.Part[g.Adj[e]] == other {
					c += g.W(e)
				}
			}
			if c > 0 {
				f.seeds[side] = append(f.seeds[side], v)
				if side == 0 {
					cutAB += c
				}
			}
		}
	}
	if cutAB == 0 {
		return 0
	}
	return f.try(a, b, cutAB)
}

// budget is the weight that side a's part of a region may have: what b
// can take, b's room below its limit, from the pair's proportional split
// scaled by alpha.
func (f *flows) budget(a, b int32, alpha float64) int64 {
	s := f.s
	if alpha == 1 {
		return max(0, s.MaxW[b]-s.BW[b])
	}
	w := float64(s.BW[a] + s.BW[b])
	target := w * float64(s.MaxW[b]) / float64(s.MaxW[a]+s.MaxW[b])
	room := max(0, float64(s.MaxW[b])-target)
	return max(0, int64(target+alpha*room)-s.BW[b])
}

// flowPierceMax bounds the piercings of one pair, and flowPierceWork
// their work: at most flowPierceWork times the network's arcs and nodes
// past the first maximum flow. A piercing that opens no augmenting path
// extends a reach; one that does searches the region again, so the count
// alone let strong (Alpha 8) spend 1,273 x (n + 2m) on one pair of R-MAT
// 2^14 onto 4:8:4 for no gain, and wiki-Vote's strong -a hm 12.7x main's
// CPU (review of stop 49; TestFlowsWorkBoundedDense).
const (
	flowPierceMax  = 256
	flowPierceWork = 16
)

// try grows the region, computes the flow and applies the best minimum
// cut that keeps both limits if it gains. Where neither extreme minimum
// cut keeps them (a region larger than the room, Alpha > 1), it pierces
// as FlowCutter does: the side that is too light gets one more terminal
// next to its reach (preferring a vertex that opens no augmenting path,
// then one of its own block, then the closest to the cut), the flow is
// augmented from there, and the cuts are looked at again, until one keeps
// the limits or the flow reaches the pair's cut.
func (f *flows) try(a, b int32, cutAB int64) int64 {
	s := f.s
	g := s.G
	if f.rstamp++; f.rstamp == 0 {
		clear(f.mark[:cap(f.mark)])
		f.rstamp = 1
	}
	f.region = f.region[:0]
	blk := [2]int32{a, b}
	for side := 0; side < 2; side++ {
		f.grow(blk[side], f.seeds[side], f.budget(blk[side], blk[1-side], f.cfg.Alpha))
	}
	nr := len(f.region)
	if nr == 0 {
		return 0
	}
	// The network: node 0 the source (A outside the region), 1 the sink.
	nt := &f.net
	nt.reset(nr + 2)
	for i, v := range f.region {
		nt.vw[i+2] = g.VW[v]
	}
	var inRegion int64 // the pair's cut edges with an end in the region
	wa, wb := s.BW[a], s.BW[b]
	outA := wa // A's weight outside the region
	for i, v := range f.region {
		u := int32(i + 2)
		pv := s.Part[v]
		if pv == a {
			outA -= g.VW[v]
		}
		var cs, ct int64
		f.work += g.XAdj[v+1] - g.XAdj[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			x := g.Adj[e]
			px := s.Part[x]
			w := g.W(e)
			if f.mark[x] == f.rstamp {
				if px != pv && pv == a {
					inRegion += w
				}
				if f.local[x] > u {
					nt.add(u, f.local[x], w, w)
				}
				continue
			}
			switch px {
			case a:
				cs += w
			case b:
				ct += w
			default:
				continue
			}
			if px != pv {
				inRegion += w
			}
		}
		if cs > 0 {
			nt.add(0, u, cs, 0)
		}
		if ct > 0 {
			nt.add(u, 1, ct, 0)
		}
	}
	direct := cutAB - inRegion
	nt.build()
	// A's weight after a cut must lie in [lowA, highA].
	lowA, highA := wa+wb-s.MaxW[b], s.MaxW[a]
	load := func(na int64) float64 {
		nb := wa + wb - na
		return max(float64(na)/float64(max(s.MaxW[a], 1)), float64(nb)/float64(max(s.MaxW[b], 1)))
	}
	flow := nt.maxFlow(&f.work)
	full := true
	var wa1, wa2 int64
	stop := f.work + flowPierceWork*int64(len(nt.to)+nt.n)
	for pierce := 0; ; pierce++ {
		after := flow + direct
		if after > cutAB || pierce > flowPierceMax || f.work > stop {
			return 0
		}
		if full {
			// The two extreme minimum cuts: the sources' residual reach
			// stays in A (the rest goes to B), or what reaches a sink
			// goes to B.
			f.sideS, f.cand[0] = nt.reach(f.sideS, f.cand[0][:0], false, &f.work)
			f.side, f.cand[1] = nt.reach(f.side, f.cand[1][:0], true, &f.work)
			wa1, wa2 = f.sides(outA)
			full = false
		}
		side := 0
		switch {
		case wa1 < lowA: // B too heavy even with A's largest side
		case wa2 > highA: // A too heavy even with B's largest side
			side = 1
		default:
			best, na := 0, wa1
			if load(wa2) < load(wa1) { // both keep the limits here
				best, na = 1, wa2
			}
			if after == cutAB && !(load(na) < load(wa)) {
				return 0
			}
			f.apply(a, b, best)
			return cutAB - after
		}
		u, aug := f.pierce(side, blk[side])
		if u < 0 {
			return 0
		}
		reach := &f.sideS
		if side == 1 {
			reach = &f.side
		}
		if aug {
			// Push the flow that u opens (the paths avoid the side's reach,
			// which no augmenting path crosses, so that reach stays), then
			// look at the other side's reach again.
			flow += nt.augmentFrom(u, side == 1, *reach, &f.work)
			if side == 1 {
				f.sideS, f.cand[0] = nt.reach(f.sideS, f.cand[0][:0], false, &f.work)
			} else {
				f.side, f.cand[1] = nt.reach(f.side, f.cand[1][:0], true, &f.work)
			}
		}
		// The side's reach grows by what u reaches.
		var w int64
		(*reach)[u] = true
		w, f.cand[side] = nt.extend(*reach, f.cand[side], u, side == 1, &f.work)
		w += nt.vw[u]
		switch {
		case aug:
			wa1, wa2 = f.sides(outA)
		case side == 0:
			wa1 += w
		default:
			wa2 -= w
		}
	}
}

// sides is A's weight under the two extreme minimum cuts (see try), outA
// its weight outside the region.
func (f *flows) sides(outA int64) (wa1, wa2 int64) {
	g := f.s.G
	wa1, wa2 = outA, outA
	for i, v := range f.region {
		if f.sideS[i+2] {
			wa1 += g.VW[v]
		}
		if !f.side[i+2] {
			wa2 += g.VW[v]
		}
	}
	return wa1, wa2
}

// pierce makes one more region vertex a terminal of side (0: a source,
// 1: a sink): one next to the side's reach (its candidates), preferring a
// vertex out of the other side's reach (no augmenting path), then one of
// block own, then the first candidate found (the closest to the sources
// or sinks). It returns the node, -1 if there is none, and whether it
// opens an augmenting path.
func (f *flows) pierce(side int, own int32) (int32, bool) {
	nt := &f.net
	reach, other := f.sideS, f.side
	if side == 1 {
		reach, other = f.side, f.sideS
	}
	cand := f.cand[side]
	best, bestScore := int32(-1), -1
	k := 0
	for _, u := range cand {
		if reach[u] || nt.kind[u] != 0 {
			continue // dropped from the list
		}
		cand[k] = u
		k++
		if bestScore == 3 {
			continue
		}
		score := 0
		if !other[u] {
			score += 2
		}
		if f.s.Part[f.region[u-2]] == own {
			score++
		}
		if score > bestScore {
			best, bestScore = u, score
		}
	}
	f.work += int64(len(cand))
	f.cand[side] = cand[:k]
	if best < 0 {
		return -1, false
	}
	nt.setKind(best, side == 1)
	return best, bestScore < 2
}

// apply moves the region's vertices to the sides of cut c: 0, the
// sources' reach in A and the rest in B; 1, the sinks' reach in B and the
// rest in A.
func (f *flows) apply(a, b int32, c int) {
	s := f.s
	g := s.G
	for i, v := range f.region {
		toA := f.sideS[i+2]
		if c == 1 {
			toA = !f.side[i+2]
		}
		to := b
		if toA {
			to = a
		}
		if s.Part[v] == to {
			continue
		}
		s.Move(v, to)
		f.dirty[to] = append(f.dirty[to], v)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			f.dirty[s.Part[u]] = append(f.dirty[s.Part[u]], u)
		}
	}
}

// grow adds to the region the vertices of block own reached by BFS from
// seeds through own, each while the side's weight stays within budget.
// Vertices that FM may not move (FixedFrom) stay out.
func (f *flows) grow(own int32, seeds []int32, budget int64) {
	s := f.s
	g := s.G
	start := len(f.region)
	var w int64
	add := func(v int32) {
		if f.mark[v] == f.rstamp || s.FixedFrom > 0 && v >= s.FixedFrom || w+g.VW[v] > budget {
			return
		}
		f.mark[v] = f.rstamp
		f.local[v] = int32(len(f.region) + 2)
		f.region = append(f.region, v)
		w += g.VW[v]
	}
	for _, v := range seeds {
		add(v)
	}
	for i := start; i < len(f.region) && w < budget; i++ {
		v := f.region[i]
		f.work += g.XAdj[v+1] - g.XAdj[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; s.Part[u] == own {
				add(u)
			}
		}
	}
}

// flowNet is a flow network in CSR form with paired residual arcs and
// sets of sources and sinks (node 0 a source, node 1 a sink).
type flowNet struct {
	n                  int
	eu, ev             []int32 // the arcs added, in pairs (2i: u->v, 2i+1: v->u)
	ec                 []int64
	head               []int32 // node u's arcs are head[u]..head[u+1]
	to, rev            []int32
	cap                []int64 // residual capacities
	pos                []int32
	kind               []int8  // 1: a source, 2: a sink, 0: neither
	vw                 []int64 // the nodes' vertex weights (0 for the source and sink)
	srcs, snks         []int32 // the sources, the sinks
	level, iter, queue []int32
	path               []int32
}

func (nt *flowNet) reset(n int) {
	nt.n = n
	nt.eu, nt.ev, nt.ec = nt.eu[:0], nt.ev[:0], nt.ec[:0]
	nt.kind = grow(nt.kind, n)
	clear(nt.kind)
	nt.vw = grow(nt.vw, n)
	clear(nt.vw)
	nt.srcs, nt.snks = nt.srcs[:0], nt.snks[:0]
	nt.setKind(0, false)
	nt.setKind(1, true)
}

// setKind makes u a source (sink: a sink).
func (nt *flowNet) setKind(u int32, sink bool) {
	if sink {
		nt.kind[u] = 2
		nt.snks = append(nt.snks, u)
	} else {
		nt.kind[u] = 1
		nt.srcs = append(nt.srcs, u)
	}
}

// add adds an edge u->v of capacity c and v->u of capacity rc.
func (nt *flowNet) add(u, v int32, c, rc int64) {
	nt.eu = append(nt.eu, u, v)
	nt.ev = append(nt.ev, v, u)
	nt.ec = append(nt.ec, c, rc)
}

// build lays the arcs out by tail.
func (nt *flowNet) build() {
	n, m := nt.n, len(nt.eu)
	nt.head = grow(nt.head, n+1)
	clear(nt.head)
	for _, u := range nt.eu {
		nt.head[u+1]++
	}
	for i := 0; i < n; i++ {
		nt.head[i+1] += nt.head[i]
	}
	nt.to, nt.rev, nt.pos = grow(nt.to, m), grow(nt.rev, m), grow(nt.pos, m)
	nt.cap = grow(nt.cap, m)
	fill := grow(nt.iter, n)
	copy(fill, nt.head[:n])
	for e, u := range nt.eu {
		p := fill[u]
		fill[u]++
		nt.pos[e] = p
		nt.to[p] = nt.ev[e]
		nt.cap[p] = nt.ec[e]
	}
	for e := 0; e < m; e += 2 {
		p, q := nt.pos[e], nt.pos[e+1]
		nt.rev[p], nt.rev[q] = q, p
	}
	nt.iter = fill
}

// maxFlow augments the current flow to a maximum one from the sources to
// the sinks (Dinic's algorithm) and returns the flow it added; work
// counts the arcs scanned.
func (nt *flowNet) maxFlow(work *int64) int64 {
	n := nt.n
	nt.level = grow(nt.level, n)
	nt.iter = grow(nt.iter, n)
	var flow int64
	for nt.bfs(work) {
		copy(nt.iter, nt.head[:n])
		for _, r := range nt.srcs {
			for {
				f := nt.augment(r, work)
				if f == 0 {
					break
				}
				flow += f
			}
		}
	}
	return flow
}

// bfs sets the levels from the sources in the residual network and
// reports whether a sink is reached.
func (nt *flowNet) bfs(work *int64) bool {
	lv := nt.level
	for i := range lv {
		lv[i] = -1
	}
	q := nt.queue[:0]
	for _, r := range nt.srcs {
		lv[r] = 0
		q = append(q, r)
	}
	found := false
	for i := 0; i < len(q); i++ {
		u := q[i]
		if nt.kind[u] == 2 {
			found = true
			continue
		}
		*work += int64(nt.head[u+1] - nt.head[u])
		for p := nt.head[u]; p < nt.head[u+1]; p++ {
			if v := nt.to[p]; nt.cap[p] > 0 && lv[v] < 0 {
				lv[v] = lv[u] + 1
				q = append(q, v)
			}
		}
	}
	nt.queue = q
	return found
}

// augment finds one path of the level graph from source r to a sink
// (advancing the arc iterators past dead ends) and pushes its bottleneck;
// 0 when none is left.
func (nt *flowNet) augment(r int32, work *int64) int64 {
	path := nt.path[:0]
	u := r
	for {
		if nt.kind[u] == 2 {
			f := int64(-1)
			for _, p := range path {
				if f < 0 || nt.cap[p] < f {
					f = nt.cap[p]
				}
			}
			for _, p := range path {
				nt.cap[p] -= f
				nt.cap[nt.rev[p]] += f
			}
			nt.path = path
			return f
		}
		end := nt.head[u+1]
		p := nt.iter[u]
		for ; p < end; p++ {
			*work++
			if v := nt.to[p]; nt.cap[p] > 0 && nt.level[v] == nt.level[u]+1 {
				break
			}
		}
		nt.iter[u] = p
		if p < end {
			path = append(path, p)
			u = nt.to[p]
			continue
		}
		// A dead end: retreat.
		if u == r {
			nt.path = path
			return 0
		}
		nt.level[u] = -1
		last := path[len(path)-1]
		path = path[:len(path)-1]
		u = nt.to[nt.rev[last]]
		nt.iter[u]++
	}
}

// augmentFrom pushes flow from the new terminal r (back: into the new
// sink r) along shortest residual paths that avoid the nodes in mark (its
// own side's reach), until none is left, and returns the flow it added.
func (nt *flowNet) augmentFrom(r int32, back bool, mark []bool, work *int64) int64 {
	n := nt.n
	nt.level = grow(nt.level, n) // the BFS's visited marks
	nt.iter = grow(nt.iter, n)   // the arc that reached a node
	target := int8(2)
	if back {
		target = 1
	}
	var flow int64
	for {
		for i := range nt.level[:n] {
			nt.level[i] = 0
		}
		nt.level[r] = 1
		q := append(nt.queue[:0], r)
		hit := int32(-1)
		for i := 0; i < len(q) && hit < 0; i++ {
			u := q[i]
			*work += int64(nt.head[u+1] - nt.head[u])
			for p := nt.head[u]; p < nt.head[u+1]; p++ {
				v := nt.to[p]
				if mark[v] || nt.level[v] != 0 {
					continue
				}
				c := nt.cap[p]
				if back {
					c = nt.cap[nt.rev[p]]
				}
				if c <= 0 {
					continue
				}
				nt.level[v], nt.iter[v] = 1, p
				if nt.kind[v] == target {
					hit = v
					break
				}
				q = append(q, v)
			}
		}
		nt.queue = q
		if hit < 0 {
			return flow
		}
		f := int64(-1)
		for x := hit; x != r; x = nt.to[nt.rev[nt.iter[x]]] {
			a := nt.iter[x]
			if back {
				a = nt.rev[a]
			}
			if f < 0 || nt.cap[a] < f {
				f = nt.cap[a]
			}
		}
		for x := hit; x != r; x = nt.to[nt.rev[nt.iter[x]]] {
			a := nt.iter[x]
			if back {
				a = nt.rev[a]
			}
			nt.cap[a] -= f
			nt.cap[nt.rev[a]] += f
		}
		flow += f
	}
}

// reach marks the nodes reachable from the sources in the residual
// network (back: the nodes from which a sink is reachable) and appends to
// cand the nodes next to them across a saturated arc (the candidates to
// pierce).
func (nt *flowNet) reach(mark []bool, cand []int32, back bool, work *int64) ([]bool, []int32) {
	if cap(mark) < nt.n {
		mark = make([]bool, nt.n)
	}
	mark = mark[:nt.n]
	clear(mark)
	roots := nt.srcs
	if back {
		roots = nt.snks
	}
	for _, r := range roots {
		mark[r] = true
	}
	for _, r := range roots {
		_, cand = nt.extend(mark, cand, r, back, work)
	}
	return mark, cand
}

// extend marks what node r (marked) reaches in the residual network (back:
// what reaches r), appends the candidates to cand (see reach), and returns
// the vertex weight of the nodes it marked.
func (nt *flowNet) extend(mark []bool, cand []int32, r int32, back bool, work *int64) (int64, []int32) {
	q := append(nt.queue[:0], r)
	var w int64
	for i := 0; i < len(q); i++ {
		u := q[i]
		*work += int64(nt.head[u+1] - nt.head[u])
		for p := nt.head[u]; p < nt.head[u+1]; p++ {
			v := nt.to[p]
			if mark[v] {
				continue
			}
			c := nt.cap[p]
			if back {
				c = nt.cap[nt.rev[p]]
			}
			if c > 0 {
				mark[v] = true
				q = append(q, v)
				w += nt.vw[v]
			} else if nt.kind[v] == 0 {
				cand = append(cand, v)
			}
		}
	}
	nt.queue = q
	return w, cand
}
