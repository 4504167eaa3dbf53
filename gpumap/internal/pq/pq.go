// Package pq is an addressable max-heap of vertices keyed by (gain, tie),
// shared by the refiners and the graph-growing bisection.
package pq

import "github.com/gpumap/gpumap/gpumap/internal/par"

// Heap is an addressable max-heap of vertices keyed by (gain, tie).
type Heap struct {
	items []Item
	pos   []int32 // pos[v] = index in items, -1 when absent
}

// Item is an entry: vertex V with key (Gain, Tie).
type Item struct {
	Gain int64
	Tie  uint32
	V    int32
}

// New returns a heap for vertices 0..n-1. The heap and its first items
// are line-private (par.Private): every worker of a parallel FM pushes and
// pops its own.
func New(n int) *Heap {
	h := par.NewPrivate[Heap]()
	h.items, h.pos = par.Private[Item](0), make([]int32, n)
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

// Len is the number of entries.
func (h *Heap) Len() int { return len(h.items) }

// Reserve makes room for vertices 0..n-1 (the heap must be empty).
func (h *Heap) Reserve(n int) {
	if cap(h.pos) < n {
		h.pos = make([]int32, n)
		for i := range h.pos {
			h.pos[i] = -1
		}
		return
	}
	old := len(h.pos)
	h.pos = h.pos[:n]
	for i := old; i < n; i++ {
		h.pos[i] = -1
	}
}

// Relabel renames every entry v to label(v), from 0..n-1 now: the keys
// and the order stay.
func (h *Heap) Relabel(n int, label func(v int32) int32) {
	h.pos = h.pos[:0]
	h.Reserve(n)
	for i := range h.items {
		v := label(h.items[i].V)
		h.items[i].V = v
		h.pos[v] = int32(i)
	}
}

// Contains reports whether v is in the heap.
func (h *Heap) Contains(v int32) bool { return h.pos[v] >= 0 }

// Clear empties the heap.
func (h *Heap) Clear() {
	for _, it := range h.items {
		h.pos[it.V] = -1
	}
	h.items = h.items[:0]
}

func less(a, b Item) bool { // a ranks below b
	return a.Gain < b.Gain || a.Gain == b.Gain && a.Tie < b.Tie
}

// Push inserts v or updates its key.
func (h *Heap) Push(v int32, gain int64, tie uint32) {
	if i := h.pos[v]; i >= 0 {
		old := h.items[i]
		if old.Gain == gain && old.Tie == tie {
			return // unchanged: the sift would not move it
		}
		h.items[i].Gain, h.items[i].Tie = gain, tie
		if less(old, h.items[i]) {
			h.up(int(i))
		} else {
			h.down(int(i))
		}
		return
	}
	h.items = append(h.items, Item{gain, tie, v})
	h.pos[v] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

// Top is the largest entry.
func (h *Heap) Top() Item { return h.items[0] }

// Pop removes and returns the largest entry. It is Remove of the root:
// the last entry takes the root's place and sifts down (it cannot rise
// from the root, so Remove's up would only rewrite it where it is).
func (h *Heap) Pop() Item {
	it := h.items[0]
	last := len(h.items) - 1
	h.pos[it.V] = -1
	if last > 0 {
		h.items[0] = h.items[last]
		h.items = h.items[:last]
		h.down(0)
	} else {
		h.items = h.items[:0]
	}
	return it
}

// Remove drops v if present.
func (h *Heap) Remove(v int32) {
	i := int(h.pos[v])
	if i < 0 {
		return
	}
	last := len(h.items) - 1
	h.pos[v] = -1
	if i < last {
		h.items[i] = h.items[last]
		h.pos[h.items[i].V] = int32(i)
	}
	h.items = h.items[:last]
	if i < last && !h.down(i) {
		h.up(i) // an entry that sank cannot also rise
	}
}

// up and down move an entry along a path by shifting the entries it
// passes into its place and writing it once at the end: the positions
// a chain of swaps reaches, with one position write per level instead of
// two, so equal keys leave the heap in the same order as with swaps.
func (h *Heap) up(i int) {
	items, pos := h.items, h.pos
	it := items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !less(items[p], it) {
			break
		}
		items[i] = items[p]
		pos[items[i].V] = int32(i)
		i = p
	}
	items[i] = it
	pos[it.V] = int32(i)
}

// down reports whether the entry moved.
func (h *Heap) down(i int) bool {
	items, pos := h.items, h.pos
	n := len(items)
	it := items[i]
	i0 := i
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && less(items[l], items[r]) {
			c = r
		}
		if !less(it, items[c]) {
			break
		}
		items[i] = items[c]
		pos[items[i].V] = int32(i)
		i = c
	}
	items[i] = it
	pos[it.V] = int32(i)
	return i != i0
}
