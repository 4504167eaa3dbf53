package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// TestViewAgainstMap drives a searcher's view through searches of random
// sizes (some grow the table several times, later ones find it large and
// full of stale slots) and checks every lookup against a map that is
// emptied at every search; the heap of slot numbers keeps its vertices
// and keys when the table grows.
func TestViewAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vt := view{heap: pq.New(0)}
	for search := 0; search < 300; search++ {
		vt.heap.Clear()
		vt.reset()
		ref := map[int32]vslot{}
		inHeap := map[int32]int64{}
		size := 1 + rng.IntN(4000)
		if search%50 == 7 {
			size = 20000 // grows the table to 64k slots
		}
		for step := 0; step < 3*size; step++ {
			// Vertices of a neighbourhood (close numbers) and far ones.
			v := int32(rng.IntN(size))
			if rng.IntN(4) == 0 {
				v = int32(rng.IntN(1 << 30))
			}
			switch rng.IntN(4) {
			case 0:
				x := vt.add(v)
				x.blk, x.off, x.cnt = int32(rng.IntN(9)), int32(step), int32(rng.IntN(5))
				ref[v] = *x
			case 1:
				if _, ok := ref[v]; !ok {
					ref[v] = vslot{stamp: vt.stamp, v: v, blk: -1, off: -1}
				}
				gain := int64(rng.IntN(100))
				vt.heap.Push(vt.addIndex(v), gain, uint32(v))
				inHeap[v] = gain
			default:
				x := vt.find(v)
				want, ok := ref[v]
				if ok != (x != nil) || ok && *x != want {
					t.Fatalf("search %d: vertex %d in the view %v, in the map %v (%+v)", search, v, x != nil, ok, want)
				}
			}
		}
		if 2*vt.used > len(vt.slots) || vt.used != len(ref) {
			t.Fatalf("search %d: %d slots used of %d, %d vertices added", search, vt.used, len(vt.slots), len(ref))
		}
		for v, want := range ref {
			if x := vt.find(v); x == nil || *x != want {
				t.Fatalf("search %d: vertex %d lost", search, v)
			}
		}
		if vt.heap.Len() != len(inHeap) {
			t.Fatalf("search %d: %d heap entries, %d vertices pushed", search, vt.heap.Len(), len(inHeap))
		}
		for vt.heap.Len() > 0 {
			it := vt.heap.Pop()
			v := vt.slots[it.V].v
			if gain, ok := inHeap[v]; !ok || gain != it.Gain || uint32(v) != it.Tie {
				t.Fatalf("search %d: the heap pops vertex %d with gain %d, pushed %v with %d", search, v, it.Gain, ok, gain)
			}
			delete(inHeap, v)
		}
	}
	if len(vt.slots) < 1<<15 {
		t.Fatalf("the table has %d slots after a search of 20000 vertices", len(vt.slots))
	}
}

// A vertex added to the view is neither moved nor built.
func TestViewAddsUnmovedUnbuilt(t *testing.T) {
	vt := view{heap: pq.New(0)}
	vt.reset()
	x := vt.add(7)
	if x.blk >= 0 || x.off >= 0 || vt.find(7) != x {
		t.Fatalf("a new slot reads %+v", *x)
	}
	vt.reset()
	if vt.find(7) != nil {
		t.Fatal("a slot of the last search is found in the next")
	}
}
