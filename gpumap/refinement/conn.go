package refinement

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// ConnTable holds, for the vertices refinement asks about, their
// connectivity to each adjacent block: pairs (block, weight) with weight >
// 0. A vertex's entries are built on first use in a slot range of an arena
// (deg(v) slots, as a vertex has at most deg(v) adjacent blocks), so the
// table needs no hashing and its memory follows the vertices refinement
// touches (the boundary and its neighbours), not n x k or all m edges.
// Moves update the built entries in O(deg) time.
type ConnTable struct {
	s    *State
	at   []span // where v's entries are, and whether they are built
	gen  uint32
	e    []entry // the arena
	used int64   // arena slots handed out

	agg aggScratch // for BestMove on vertices with many adjacent blocks
	hub int64      // vertices of higher degree are frozen: no entries, never moved
	// work counts the entries built and updated (FMConfig.Work); only the
	// sequential parts of the parallel FM write it.
	work int64
}

// entry is a vertex's connectivity w to block b. Block and weight share a
// record, so that reading a vertex's few entries touches one cache line,
// not one in an array of blocks and another in an array of weights (the
// parallel FM's searches copy the shared entries of every neighbour they
// look at: a third of their D1 misses).
type entry struct {
	w int64
	b int32
}

// span locates a vertex's entries: slots [off, off+cnt) of the arena,
// built when gen is the table's. One record, so that a move's update of a
// neighbour reads one cache line for it, not three arrays' lines.
type span struct {
	off int64
	cnt int32
	gen uint32
}

// hubDegree is the degree above which a vertex is frozen in FM: moving it
// would touch its whole neighbourhood and every neighbour's move would scan
// its long entry list, for gains that such vertices rarely have.
func hubDegree(g *graph.Graph) int64 {
	n := int64(g.N())
	if n == 0 {
		return 0
	}
	return max(64, 8*int64(len(g.Adj))/n)
}

// Frozen reports whether v is a hub or a fixed vertex (State.FixedFrom),
// which FM leaves in place.
func (c *ConnTable) Frozen(v int32) bool {
	// A vertex with built entries is not frozen. FM asks about every
	// neighbour of a move, most of them built: their record, which the
	// move's update has just read, answers without v's degree (a cache
	// miss on XAdj that took a fifth of the search loop's time).
	if c.at[v].gen == c.gen {
		return false
	}
	g := c.s.G
	return g.XAdj[v+1]-g.XAdj[v] > c.hub || c.s.FixedFrom > 0 && v >= c.s.FixedFrom
}

// NewConnTable prepares the table for the current assignment. Entries are
// built lazily, the first time a vertex is asked about, so refinement that
// only touches the boundary never pays for the interior.
func NewConnTable(s *State) *ConnTable {
	c := par.NewPrivate[ConnTable]()
	c.reset(s)
	return c
}

// reset empties the table for state s, reusing memory.
func (c *ConnTable) reset(s *State) {
	g := s.G
	c.s = s
	c.gen++
	if c.gen == 0 {
		clear(c.at[:cap(c.at)]) // beyond len too: a later graph may be larger
		c.gen = 1
	}
	// Stale records hold older generations, and new memory is zero: no
	// vertex reads as built.
	c.at = grow(c.at, g.N())
	c.used = 0
	c.hub = hubDegree(g)
}

// slots returns the start of d free arena slots; with keep they stay
// handed out, else they are scratch that the next call reuses (for frozen
// vertices, whose entries are rebuilt on every query).
func (c *ConnTable) slots(d int64, keep bool) int64 {
	start := c.used
	if need := start + d; need > int64(len(c.e)) {
		size := max(need, int64(len(c.e))+int64(len(c.e))/2, 1024)
		e := make([]entry, size)
		copy(e, c.e[:c.used])
		c.e = e
	}
	if keep {
		c.used += d
	}
	return start
}

// ensure builds v's entries if they are not built yet.
// Frozen vertices are not kept up to date and are rebuilt on every query.
func (c *ConnTable) ensure(v int32) {
	if c.at[v].gen != c.gen {
		g := c.s.G
		frozen := c.Frozen(v)
		c.at[v].off = c.slots(g.XAdj[v+1]-g.XAdj[v], !frozen)
		c.work += g.XAdj[v+1] - g.XAdj[v]
		if !frozen {
			c.at[v].gen = c.gen
		}
		c.rebuild(v)
	}
}

// rebuild recomputes v's entries from its neighbourhood.
func (c *ConnTable) rebuild(v int32) {
	g, part := c.s.G, c.s.Part
	base := c.at[v].off
	n := int64(0)
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		w := g.W(e)
		if w == 0 {
			continue
		}
		b := part[g.Adj[e]]
		i := base
		for ; i < base+n && c.e[i].b != b; i++ {
		}
		if i == base+n {
			c.e[i] = entry{b: b}
			n++
		}
		c.e[i].w += w
	}
	c.at[v].cnt = int32(n)
}

// Move moves v to block to and updates the neighbours' entries.
func (c *ConnTable) Move(v, to int32) {
	s := c.s
	from := s.Part[v]
	if from == to {
		return
	}
	s.Move(v, to)
	g := s.G
	at, gen := c.at, c.gen
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	c.work += hi - lo
	for e, u := range g.Adj[lo:hi] {
		x := &at[u]
		if x.gen != gen {
			continue // not built yet (or frozen): built from scratch when needed
		}
		if w := g.W(lo + int64(e)); w != 0 {
			c.shift(x, from, to, w)
		}
	}
}

// shift updates the built entries x of a neighbour of a vertex that moved
// from block from to block to over an edge of weight w (Move, and FM's
// moveAndConsider, which reconsiders the neighbour in the same pass).
func (c *ConnTable) shift(x *span, from, to int32, w int64) {
	c.work += int64(x.cnt)
	end := shiftEntry(c.e, x.off, x.off+int64(x.cnt), from, to, w)
	x.cnt = int32(end - x.off)
}

// shiftEntry updates the entries e[base:end] of a vertex whose
// neighbour moved from block from to block to over an edge of weight wt,
// and returns the new end. One scan finds both entries: from loses wt
// (from is present: the neighbour contributed to it), to gains it. The
// list never grows before it shrinks, so it never exceeds deg slots.
func shiftEntry(e []entry, base, end int64, from, to int32, wt int64) int64 {
	// Blocks are distinct in a list: the scan stops once it has seen both.
	fi, ti := int64(-1), int64(-1)
	for i := range e[base:end] {
		if b := e[base+int64(i)].b; b == from {
			fi = base + int64(i)
			if ti >= 0 {
				break
			}
		} else if b == to {
			ti = base + int64(i)
			if fi >= 0 {
				break
			}
		}
	}
	switch {
	case ti >= 0:
		e[ti].w += wt
		if e[fi].w -= wt; e[fi].w == 0 {
			e[fi] = e[end-1]
			end--
		}
	case e[fi].w == wt:
		e[fi].b = to // the entry changes block, weight wt stays
	default:
		e[fi].w -= wt
		e[end] = entry{w: wt, b: to}
		end++
	}
	return end
}

// Conn returns v's connectivity to b.
func (c *ConnTable) Conn(v, b int32) int64 {
	c.ensure(v)
	base := c.at[v].off
	for _, x := range c.e[base : base+int64(c.at[v].cnt)] {
		if x.b == b {
			return x.w
		}
	}
	return 0
}

// Boundary reports whether v is connected to a block other than its own.
func (c *ConnTable) Boundary(v int32) bool {
	c.ensure(v)
	n := c.at[v].cnt
	if n == 0 {
		return false
	}
	return n > 1 || c.e[c.at[v].off].b != c.s.Part[v]
}

// costAt is v's objective contribution if it sat in block b.
// It is nbhd.costAt on v's entries, b's label read once.
func (c *ConnTable) costAt(v, b int32) int64 {
	o := &c.s.Obj
	base := c.at[v].off
	es := c.e[base : base+int64(c.at[v].cnt)]
	var cost int64
	if o.labels == nil {
		for _, x := range es {
			if x.b != b {
				cost += x.w
			}
		}
		return cost
	}
	labels, lb := o.labels, o.labels[b]
	for _, x := range es {
		if d := lb ^ labels[x.b]; d != 0 {
			cost += x.w * o.xorDist(d)
		}
	}
	return cost
}

// BestMove returns v's best target among its adjacent blocks whose weight
// stays within limit+slack, and the gain; target -1 when none fits. Ties go
// to the lighter block.
func (c *ConnTable) BestMove(v int32, slack int64) (target int32, gain int64) {
	c.ensure(v)
	s := c.s
	p := s.Part[v]
	w := s.G.VW[v]
	base := c.at[v].off
	end := base + int64(c.at[v].cnt)
	target = -1
	if s.Obj.IsCut() {
		return c.bestCut(v, base, end, slack)
	}
	if end-base > aggThreshold && len(s.Obj.shifts) > 1 {
		return c.bestMoveAggregated(v, slack)
	}
	cur := c.costAt(v, p)
	for i := base; i < end; i++ {
		b := c.e[i].b
		if b == p || s.BW[b]+w > s.MaxW[b]+slack {
			continue
		}
		if gn := cur - c.costAt(v, b); target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}

// bestCut is BestMove under the cut objective, for v's entries
// [base,end). One pass: the gain to b is conn(b) - conn(p), so the best
// connectivity wins, in the same order, before conn(p) is known.
func (c *ConnTable) bestCut(v int32, base, end int64, slack int64) (target int32, gain int64) {
	s := c.s
	p, w := s.Part[v], s.G.VW[v]
	target = -1
	cp, best := int64(0), int64(0)
	for _, e := range c.e[base:end] {
		b := e.b
		if b == p {
			cp = e.w
			continue
		}
		if s.BW[b]+w > s.MaxW[b]+slack {
			continue
		}
		if x := e.w; target < 0 || x > best || x == best && s.BW[b] < s.BW[target] {
			target, best = b, x
		}
	}
	if target < 0 {
		return -1, 0
	}
	return target, best - cp
}

// BuildAll builds the entries of the vertices vs (distinct; frozen and
// built ones are skipped) in parallel, at the offsets that ensure would
// give them one after the other. The entries are those ensure would build.
func (c *ConnTable) BuildAll(x *par.Exec, vs []int32) {
	g := c.s.G
	// Per chunk of vs, the slots its vertices need; then the vertices get
	// them in the order of vs, the arena grown once. On a 2^20 grid's
	// boundary the sequential hand-out took as long as the building.
	chunks := x.Chunks(len(vs))
	need := make([]int64, chunks+1)
	x.For(len(vs), func(ch, lo, hi int) {
		d := int64(0)
		for _, v := range vs[lo:hi] {
			if c.unbuilt(v) {
				d += g.XAdj[v+1] - g.XAdj[v]
			}
		}
		need[ch] = d
	})
	total := par.ExclusiveScan(x, need[:chunks])
	// Room for half as much again: the neighbours of the seeds come next.
	start := c.slots(total+total/2, false)
	x.For(len(vs), func(ch, lo, hi int) {
		off := start + need[ch]
		for _, v := range vs[lo:hi] {
			if c.unbuilt(v) {
				c.at[v].off = off
				off += g.XAdj[v+1] - g.XAdj[v]
				c.rebuild(v)
				c.at[v].gen = c.gen
			}
		}
	})
	c.used += total
	c.work += total
}

// unbuilt reports whether BuildAll builds v: not built yet, not frozen.
func (c *ConnTable) unbuilt(v int32) bool { return c.at[v].gen != c.gen && !c.Frozen(v) }

// Entries returns v's built entries (blocks and connectivities), or ok
// false when v's entries are not built. It only reads, so threads may call
// it while no one changes the table.
func (c *ConnTable) Entries(v int32) (e []entry, ok bool) {
	x := c.at[v]
	if x.gen != c.gen {
		return nil, false
	}
	return c.e[x.off : x.off+int64(x.cnt)], true
}
