package refinement

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// State is a graph with an assignment of its vertices to K blocks.
type State struct {
	G    *graph.Graph
	K    int
	Part []int32 // block of every vertex
	BW   []int64 // block weights, kept in sync with Part by Move
	MaxW []int64 // block weight limits
	Obj  Objective
	// FixedFrom > 0: the vertices FixedFrom.. never move in FM (a
	// distributed mapper's ghosts, whose blocks their owners decide).
	FixedFrom int32
}

// NewState builds a State and computes the block weights.
func NewState(g *graph.Graph, k int, part []int32, maxW []int64, obj Objective) *State {
	s := &State{G: g, K: k, Part: part, BW: par.Private[int64](k), MaxW: maxW, Obj: obj}
	for v, b := range part {
		s.BW[b] += g.VW[v]
	}
	return s
}

// Move moves v to block b.
func (s *State) Move(v int32, b int32) {
	w := s.G.VW[v]
	s.BW[s.Part[v]] -= w
	s.BW[b] += w
	s.Part[v] = b
}

// Overloaded counts the blocks above their limit.
func (s *State) Overloaded() int {
	c := 0
	for b, w := range s.BW {
		if w > s.MaxW[b] {
			c++
		}
	}
	return c
}

// Excess is the total weight above the limits.
func (s *State) Excess() int64 {
	var e int64
	for b, w := range s.BW {
		if w > s.MaxW[b] {
			e += w - s.MaxW[b]
		}
	}
	return e
}

// Cost is the objective of the current assignment.
func (s *State) Cost() int64 { return s.Obj.Cost(s.G, s.Part) }

// IsBoundary reports whether v has a neighbour in another block.
func (s *State) IsBoundary(v int32) bool {
	g, p := s.G, s.Part[v]
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		if s.Part[g.Adj[e]] != p {
			return true
		}
	}
	return false
}

// nbhd gathers the connectivity of one vertex to its adjacent blocks.
type nbhd struct {
	conn   []int64  // conn[b] valid for b in blocks
	stamp  []uint32 // stamp[b] == cur marks b as present
	cur    uint32
	blocks []int32
}

func newNbhd(k int) *nbhd {
	// Every worker of a parallel loop has one: line-private (par.Private).
	h := par.NewPrivate[nbhd]()
	h.conn, h.stamp = par.Private[int64](k), par.Private[uint32](k)
	return h
}

// reset empties the block set; stamps are recycled until they wrap.
func (h *nbhd) reset() {
	h.cur++
	if h.cur == 0 {
		clear(h.stamp)
		h.cur = 1
	}
	h.blocks = h.blocks[:0]
}

// load fills the connectivity of v (its own block included when v has a
// neighbour there).
func (h *nbhd) load(s *State, v int32) {
	h.reset()
	g := s.G
	// Locals and a range over v's row: the fields were reloaded and the
	// row's bounds checked on every edge of this hot loop (Jet's label
	// propagation and rebalancing call it for every candidate).
	lo := g.XAdj[v]
	part, stamp, conn, cur, blocks := s.Part, h.stamp, h.conn, h.cur, h.blocks
	for i, u := range g.Adj[lo:g.XAdj[v+1]] {
		b := part[u]
		if stamp[b] != cur {
			stamp[b] = cur
			conn[b] = 0
			blocks = append(blocks, b)
		}
		conn[b] += g.W(lo + int64(i))
	}
	h.blocks = blocks
}

// connTo is v's connectivity to block b (after load).
func (h *nbhd) connTo(b int32) int64 {
	if h.stamp[b] != h.cur {
		return 0
	}
	return h.conn[b]
}

// costAt is the objective contribution of v if it sat in block b. It is
// the sum of conn[x] * o.D(b, x) with b's label read once, not once per
// block (Jet's best moves call it for every pair of adjacent blocks).
func (h *nbhd) costAt(o *Objective, b int32) int64 {
	var c int64
	conn := h.conn
	if o.labels == nil {
		for _, x := range h.blocks {
			if x != b {
				c += conn[x]
			}
		}
		return c
	}
	labels, lb := o.labels, o.labels[b]
	for _, x := range h.blocks {
		// x == b and blocks of equal labels are 0 apart: D adds nothing.
		if d := lb ^ labels[x]; d != 0 {
			c += conn[x] * o.xorDist(d)
		}
	}
	return c
}

// bestMove returns v's best target among its adjacent blocks whose weight
// stays within limit+slack, with its gain; target -1 when none fits. p is
// v's block. Ties go to the lighter block.
func (h *nbhd) bestMove(s *State, v int32, slack int64) (target int32, gain int64) {
	p := s.Part[v]
	w := s.G.VW[v]
	target = -1
	o := &s.Obj
	if o.IsCut() {
		cp := h.connTo(p)
		for _, b := range h.blocks {
			if b == p || s.BW[b]+w > s.MaxW[b]+slack {
				continue
			}
			gn := h.conn[b] - cp
			if target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
				target, gain = b, gn
			}
		}
		return target, gain
	}
	base := h.costAt(o, p)
	for _, b := range h.blocks {
		if b == p || s.BW[b]+w > s.MaxW[b]+slack {
			continue
		}
		gn := base - h.costAt(o, b)
		if target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}
