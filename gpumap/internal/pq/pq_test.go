package pq

import (
	"math/rand/v2"
	"testing"
)

// TestHeapAgainstMap drives random pushes, key updates, removals and pops
// and checks every pop against a brute-force maximum of a reference map.
func TestHeapAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 64
	h := New(n)
	ref := map[int32]Item{}
	for step := 0; step < 20000; step++ {
		v := int32(rng.IntN(n))
		switch op := rng.IntN(4); op {
		case 0, 1:
			g, tie := int64(rng.IntN(21)-10), uint32(rng.IntN(4))
			h.Push(v, g, tie)
			ref[v] = Item{g, tie, v}
		case 2:
			h.Remove(v)
			delete(ref, v)
		case 3:
			if h.Len() == 0 {
				continue
			}
			got := h.Pop()
			var best Item
			first := true
			for _, it := range ref {
				if first || less(best, it) {
					best, first = it, false
				}
			}
			if got.Gain != best.Gain || got.Tie != best.Tie {
				t.Fatalf("step %d: pop %+v, want key (%d,%d)", step, got, best.Gain, best.Tie)
			}
			if ref[got.V] != got {
				t.Fatalf("step %d: pop %+v, reference has %+v", step, got, ref[got.V])
			}
			delete(ref, got.V)
		}
		if h.Len() != len(ref) {
			t.Fatalf("step %d: len %d, want %d", step, h.Len(), len(ref))
		}
		for u := int32(0); u < n; u++ {
			if _, ok := ref[u]; ok != h.Contains(u) {
				t.Fatalf("step %d: Contains(%d)=%v, want %v", step, u, h.Contains(u), ok)
			}
		}
	}
	h.Clear()
	if h.Len() != 0 || h.Contains(0) {
		t.Fatal("Clear left entries")
	}
	h.Reserve(2 * n)
	h.Push(2*n-1, 5, 0)
	if h.Top().V != 2*n-1 {
		t.Fatal("Reserve: vertex beyond the old size not usable")
	}
}
