package topology

import (
	"fmt"
	"math/bits"
	"sort"
)

// Topology is a machine: k PEs arranged in a tree of L levels with one
// distance per level. It is immutable and safe for concurrent use.
type Topology struct {
	k     int
	dist  []int64 // d1..dL
	arity []int   // regular hierarchies only; nil for trees
	span  []int   // regular: span[i] = a1*...*ai, span[0] = 1

	// Trees: starts[i-1] lists the first PE of every level-i group,
	// i = 1..L-1, in increasing order; labels holds one label per PE.
	starts [][]int32
	labels []uint64

	shift     []uint    // shift[i-1]: bit offset of the level-i field
	width     []uint    // width[i-1]: bits of the level-i field
	distOfBit [64]int64 // distance implied by the highest differing bit
	// levelOfBit: the level of the lowest group shared by two PEs whose
	// labels differ first in this bit (LabelLevel).
	levelOfBit [64]int8
}

// Group is one node of the machine tree: the PEs [Lo, Hi) that share a
// level-Level group. Level 0 groups are single PEs; the level-L group is
// the whole machine.
type Group struct {
	Level  int
	Lo, Hi int
}

// Size is the number of PEs in the group.
func (g Group) Size() int { return g.Hi - g.Lo }

// NewRegular builds the topology a1:...:aL with distances d1:...:dL.
func NewRegular(arity []int, dist []int64) (*Topology, error) {
	if len(arity) == 0 {
		return nil, fmt.Errorf("hierarchy is empty")
	}
	if err := checkLevels(len(arity)); err != nil {
		return nil, err
	}
	if len(arity) != len(dist) {
		return nil, fmt.Errorf("length mismatch: hierarchy %s has %d levels but distance %s has %d",
			FormatInts(arity), len(arity), FormatInts(dist), len(dist))
	}
	span := make([]int, len(arity)+1)
	span[0] = 1
	for i, a := range arity {
		if a <= 0 {
			return nil, fmt.Errorf("hierarchy %s: field %d (%d) must be positive", FormatInts(arity), i+1, a)
		}
		if int64(span[i])*int64(a) > MaxPEs {
			return nil, fmt.Errorf("hierarchy %s: k overflows at field %d: the product exceeds %d PEs", FormatInts(arity), i+1, MaxPEs)
		}
		span[i+1] = span[i] * a
	}
	for i, d := range dist {
		if d < 0 {
			return nil, fmt.Errorf("distance %s: field %d (%d) is negative", FormatInts(dist), i+1, d)
		}
	}
	t := &Topology{k: span[len(arity)], dist: append([]int64(nil), dist...),
		arity: append([]int(nil), arity...), span: span}
	maxChildren := append([]int(nil), arity...)
	t.initBits(maxChildren)
	return t, nil
}

// NewTree builds an irregular topology. groups has L-1 rows of k entries:
// groups[j][p] is the index of the level-(j+1) group (socket, node, ...)
// of PE p. Groups must be numbered 0,1,2,... in PE order, be contiguous, and
// nest (PEs sharing a level-j group share every higher group). The level-L
// group is the whole machine and is implicit. dist has L entries.
func NewTree(groups [][]int, dist []int64) (*Topology, error) {
	L := len(groups) + 1
	if err := checkLevels(L); err != nil {
		return nil, err
	}
	if len(dist) != L {
		return nil, fmt.Errorf("length mismatch: tree has %d levels but %d distances", L, len(dist))
	}
	for i, d := range dist {
		if d < 0 {
			return nil, fmt.Errorf("distance %s: field %d (%d) is negative", FormatInts(dist), i+1, d)
		}
	}
	k := 0
	if len(groups) > 0 {
		k = len(groups[0])
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("tree needs at least one level of groups; use NewRegular for a flat machine")
	}
	if k == 0 {
		return nil, fmt.Errorf("tree has no PEs")
	}
	if k > MaxPEs {
		return nil, fmt.Errorf("tree has %d PEs, more than %d", k, MaxPEs)
	}
	t := &Topology{k: k, dist: append([]int64(nil), dist...)}
	t.starts = make([][]int32, L-1)
	for j, row := range groups {
		if len(row) != k {
			return nil, fmt.Errorf("tree level %d lists %d PEs, level 1 lists %d", j+1, len(row), k)
		}
		if row[0] != 0 {
			return nil, fmt.Errorf("tree level %d: PE 0 is in group %d, want 0", j+1, row[0])
		}
		t.starts[j] = append(t.starts[j], 0)
		for p := 1; p < k; p++ {
			switch row[p] - row[p-1] {
			case 0: // same group as the previous PE
			case 1:
				t.starts[j] = append(t.starts[j], int32(p))
				if j > 0 && groups[j-1][p] == groups[j-1][p-1] {
					return nil, fmt.Errorf("tree: PEs %d and %d share a level-%d group but not their level-%d group", p-1, p, j, j+1)
				}
			default:
				return nil, fmt.Errorf("tree level %d: groups are not numbered contiguously in PE order at PE %d (%d after %d)", j+1, p, row[p], row[p-1])
			}
		}
	}
	// Children counts per level give the field widths.
	maxChildren := make([]int, L)
	var children []Group
	for i := 1; i <= L; i++ {
		t.forEachGroup(i, func(g Group) {
			children = t.AppendChildren(children[:0], g)
			maxChildren[i-1] = max(maxChildren[i-1], len(children))
		})
	}
	t.initBits(maxChildren)
	t.labels = make([]uint64, k)
	var fill func(g Group, label uint64)
	fill = func(g Group, label uint64) {
		if g.Level == 0 {
			t.labels[g.Lo] = label
			return
		}
		for c, ch := range t.Children(g) {
			fill(ch, label|uint64(c)<<t.shift[g.Level-1])
		}
	}
	fill(t.Root(), 0)
	return t, nil
}

func (t *Topology) initBits(maxChildren []int) {
	L := len(t.dist)
	t.shift = make([]uint, L)
	t.width = make([]uint, L)
	off := uint(0)
	for i := 0; i < L; i++ {
		w := uint(0)
		if maxChildren[i] > 1 {
			w = uint(bits.Len(uint(maxChildren[i] - 1)))
		}
		t.shift[i], t.width[i] = off, w
		for b := off; b < off+w; b++ {
			t.distOfBit[b] = t.dist[i]
			t.levelOfBit[b] = int8(i + 1)
		}
		off += w
	}
	if off > 64 {
		panic("topology: labels exceed 64 bits") // impossible for k < 2^31
	}
}

// K is the number of PEs.
func (t *Topology) K() int { return t.k }

// Levels is the number of hierarchy levels L.
func (t *Topology) Levels() int { return len(t.dist) }

// Distances returns d1..dL (a copy).
func (t *Topology) Distances() []int64 { return append([]int64(nil), t.dist...) }

// Arity returns a1..aL and true for a regular hierarchy, nil and false for
// an irregular tree.
func (t *Topology) Arity() ([]int, bool) {
	if t.arity == nil {
		return nil, false
	}
	return append([]int(nil), t.arity...), true
}

// MaxDistance is the largest distance between two PEs.
func (t *Topology) MaxDistance() int64 {
	m := int64(0)
	for _, d := range t.dist {
		m = max(m, d)
	}
	return m
}

// Label returns PE p's bit label. O(L) for regular hierarchies, O(1) for
// trees.
func (t *Topology) Label(p int) uint64 {
	if t.labels != nil {
		return t.labels[p]
	}
	var lab uint64
	for i, a := range t.arity {
		lab |= uint64(p%a) << t.shift[i]
		p /= a
	}
	return lab
}

// Labels returns the labels of all PEs, for callers that query many
// distances (O(k) memory, owned by the caller).
func (t *Topology) Labels() []uint64 {
	out := make([]uint64, t.k)
	for p := range out {
		out[p] = t.Label(p)
	}
	return out
}

// LabelShifts returns the bit offset of every level's field in the labels,
// level 1 first: two PEs share their level-i group exactly when their labels
// agree on all bits at or above LabelShifts()[i] (for i < L).
func (t *Topology) LabelShifts() []uint { return append([]uint(nil), t.shift...) }

// LabelDistance is the distance between the PEs with labels a and b: O(1).
func (t *Topology) LabelDistance(a, b uint64) int64 {
	x := a ^ b
	if x == 0 {
		return 0
	}
	return t.distOfBit[63-bits.LeadingZeros64(x)]
}

// Distance is the distance between PEs p and q.
func (t *Topology) Distance(p, q int) int64 {
	if p == q {
		return 0
	}
	return t.LabelDistance(t.Label(p), t.Label(q))
}

// CommonLevel is the level of the lowest group shared by p and q: 0 when
// p == q, 1 when they share a socket, ..., L when they share only the
// machine.
func (t *Topology) CommonLevel(p, q int) int {
	return t.LabelLevel(t.Label(p), t.Label(q))
}

// LabelLevel is CommonLevel of the PEs with labels a and b: O(1), where
// CommonLevel computes the labels (O(L) divisions on a regular
// hierarchy). The evaluation of a wide mapping, where most edges are cut,
// spent 2% of the CPU time of a mapping there in the labels of their ends
// (rgg 121k onto 4:8:64:8:6, 612k cut edges).
func (t *Topology) LabelLevel(a, b uint64) int {
	x := a ^ b
	if x == 0 {
		return 0
	}
	return int(t.levelOfBit[63-bits.LeadingZeros64(x)])
}

// GroupOf returns the level-level group that contains PE p.
func (t *Topology) GroupOf(level, p int) Group {
	switch {
	case level <= 0:
		return Group{0, p, p + 1}
	case level >= t.Levels():
		return t.Root()
	}
	if t.arity != nil {
		s := t.span[level]
		lo := p / s * s
		return Group{level, lo, lo + s}
	}
	st := t.starts[level-1]
	i := sort.Search(len(st), func(i int) bool { return int(st[i]) > p }) - 1
	hi := t.k
	if i+1 < len(st) {
		hi = int(st[i+1])
	}
	return Group{level, int(st[i]), hi}
}

// Root is the whole machine.
func (t *Topology) Root() Group { return Group{t.Levels(), 0, t.k} }

// Children returns the level-(g.Level-1) groups inside g, in PE order.
// Children of a level-1 group (a socket) are its PEs.
func (t *Topology) Children(g Group) []Group {
	if g.Level <= 0 {
		return nil
	}
	return t.AppendChildren(make([]Group, 0, t.childCount(g)), g)
}

// childCount is the number of g's children (g.Level >= 1).
func (t *Topology) childCount(g Group) int {
	switch {
	case g.Level == 1:
		return g.Size()
	case t.arity != nil:
		return g.Size() / t.span[g.Level-1]
	}
	st := t.starts[g.Level-2]
	lo := sort.Search(len(st), func(i int) bool { return int(st[i]) >= g.Lo })
	hi := sort.Search(len(st), func(i int) bool { return int(st[i]) >= g.Hi })
	return hi - lo
}

// AppendChildren appends g's children (Children) to dst and returns the
// extended slice: with room in dst it allocates nothing. The wide paths'
// fillers list children into scratch of their own: two slices per
// Children call were 70% of the objects that growPEs allocated for a
// group of 32 PEs (multisection.BenchmarkGrowPEsGroups), and 9% of its
// time.
func (t *Topology) AppendChildren(dst []Group, g Group) []Group {
	if g.Level <= 0 {
		return dst
	}
	if g.Level == 1 || t.arity != nil {
		step := 1
		if t.arity != nil {
			step = t.span[g.Level-1]
		}
		for p := g.Lo; p < g.Hi; p += step {
			dst = append(dst, Group{g.Level - 1, p, min(p+step, g.Hi)})
		}
		return dst
	}
	st := t.starts[g.Level-2]
	i := sort.Search(len(st), func(i int) bool { return int(st[i]) >= g.Lo })
	for ; i < len(st) && int(st[i]) < g.Hi; i++ {
		hi := g.Hi
		if i+1 < len(st) && int(st[i+1]) < g.Hi {
			hi = int(st[i+1])
		}
		dst = append(dst, Group{g.Level - 1, int(st[i]), hi})
	}
	return dst
}

func (t *Topology) forEachGroup(level int, f func(Group)) {
	for p := 0; p < t.k; {
		g := t.GroupOf(level, p)
		f(g)
		p = g.Hi
	}
}

// String renders the topology: "4:8:6 / 1:10:100" for regular hierarchies,
// "tree(k=40, L=3) / 1:10:100" for trees.
func (t *Topology) String() string {
	if t.arity != nil {
		return FormatInts(t.arity) + " / " + FormatInts(t.dist)
	}
	return fmt.Sprintf("tree(k=%d, L=%d) / %s", t.k, t.Levels(), FormatInts(t.dist))
}

// NewNodes builds the three-level machine (core, socket, node) of an
// allocation given node by node as the sizes of its sockets: {{8, 8}, {6, 2}}
// is a node with two sockets of 8 PEs followed by one with sockets of 6 and
// 2. dist has three entries.
func NewNodes(sockets [][]int, dist []int64) (*Topology, error) {
	k := 0
	for n, sizes := range sockets {
		if len(sizes) == 0 {
			return nil, fmt.Errorf("node %d has no sockets", n)
		}
		for i, size := range sizes {
			if size <= 0 {
				return nil, fmt.Errorf("node %d, socket %d: size %d is not positive", n, i, size)
			}
			if k += size; k > MaxPEs {
				return nil, fmt.Errorf("allocation has more than %d PEs", MaxPEs)
			}
		}
	}
	socket, node := make([]int, 0, k), make([]int, 0, k)
	s := 0
	for n, sizes := range sockets {
		for _, size := range sizes {
			for j := 0; j < size; j++ {
				socket, node = append(socket, s), append(node, n)
			}
			s++
		}
	}
	return NewTree([][]int{socket, node}, dist)
}
