package refinement

import (
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// view is a searcher's record of the vertices its current search has
// looked at: an open-addressing hash table keyed by vertex, whose slots
// belong to the search whose stamp they carry (the others are free, so a
// new search starts empty without a clear). A search looks at the
// vertices around its seed (its moves and their neighbours); the table,
// at least twice their number of 20-byte slots (up to four times just after it grows), stays in the core's
// caches (its first 1024 slots never grew on a 2^20-vertex grid or rgg).
// Before, the view was an array of
// one 20-byte record per vertex of the graph (and the heap's index 4 bytes
// per vertex): 24 MB per searcher on a 2^20-vertex graph, read and written
// at random, one per thread at -t 2 where the two cores share the
// last-level cache, and 24 bytes per vertex to zero and fault in for every
// searcher made.
// The search's heap holds slot numbers, not vertices, so that its index
// (a position per entry it may hold) is as small as the table; the table's
// growth renumbers the heap's entries.
type view struct {
	slots []vslot
	bits  uint8  // len(slots) == 1<<bits
	stamp uint32 // the current search
	used  int    // slots of the current search
	heap  *pq.Heap
}

// vslot is a vertex in a searcher's view.
type vslot struct {
	stamp uint32 // the search the slot belongs to
	v     int32
	blk   int32 // the block v moved to in this search; -1: not moved
	off   int32 // its entries are the searcher's es[off:off+cnt]; -1: not built
	cnt   int32
}

// viewMinBits is the table's initial size: 1024 slots, 20 KiB.
const viewMinBits = 10

// reset starts a new search: every slot is free. The heap must be empty.
func (t *view) reset() {
	if t.slots == nil {
		t.bits = viewMinBits
		t.slots = par.Private[vslot](1 << t.bits)
		t.heap.Reserve(len(t.slots))
	}
	t.stamp++
	if t.stamp == 0 {
		clear(t.slots)
		t.stamp = 1
	}
	t.used = 0
}

func (t *view) home(v int32) uint32 {
	return uint32(v) * 0x9e3779b9 >> (32 - t.bits)
}

// find returns v's slot, or nil when the search has not looked at v.
func (t *view) find(v int32) *vslot {
	if i := t.index(v); i >= 0 {
		return &t.slots[i]
	}
	return nil
}

// index returns the number of v's slot, or -1 when v has none.
func (t *view) index(v int32) int32 {
	mask := uint32(len(t.slots) - 1)
	for i := t.home(v); ; i = (i + 1) & mask {
		x := &t.slots[i]
		if x.stamp != t.stamp {
			return -1
		}
		if x.v == v {
			return int32(i)
		}
	}
}

// add returns v's slot, made (neither moved nor built) when v has none.
// It may move every slot: pointers and numbers from earlier calls are
// stale after it.
func (t *view) add(v int32) *vslot { return &t.slots[t.addIndex(v)] }

// addIndex is add, returning the slot's number.
func (t *view) addIndex(v int32) int32 {
	mask := uint32(len(t.slots) - 1)
	for i := t.home(v); ; i = (i + 1) & mask {
		x := &t.slots[i]
		if x.stamp != t.stamp {
			*x = vslot{stamp: t.stamp, v: v, blk: -1, off: -1}
			if t.used++; 2*t.used <= len(t.slots) {
				return int32(i)
			}
			t.grow()
			return t.index(v)
		}
		if x.v == v {
			return int32(i)
		}
	}
}

// grow doubles the table, keeping the current search's slots.
func (t *view) grow() {
	old := t.slots
	t.bits++
	t.slots = par.Private[vslot](1 << t.bits)
	mask := uint32(len(t.slots) - 1)
	for _, x := range old {
		if x.stamp != t.stamp {
			continue
		}
		i := t.home(x.v)
		for t.slots[i].stamp == t.stamp {
			i = (i + 1) & mask
		}
		t.slots[i] = x
	}
	t.heap.Relabel(len(t.slots), func(i int32) int32 { return t.index(old[i].v) })
}
