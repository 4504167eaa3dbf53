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

// swapHeap is the heap with sifts by pairwise swaps, whose order among
// equal keys the refiners' tie-breaking (and so every mapping) follows.
type swapHeap struct {
	items []Item
	pos   []int32
}

func (h *swapHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i].V] = int32(i)
	h.pos[h.items[j].V] = int32(j)
}

func (h *swapHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h.items[p], h.items[i]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *swapHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && less(h.items[l], h.items[r]) {
			c = r
		}
		if !less(h.items[i], h.items[c]) {
			return
		}
		h.swap(i, c)
		i = c
	}
}

func (h *swapHeap) push(v int32, gain int64, tie uint32) {
	if i := h.pos[v]; i >= 0 {
		old := h.items[i]
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

func (h *swapHeap) remove(v int32) {
	i := int(h.pos[v])
	if i < 0 {
		return
	}
	last := len(h.items) - 1
	h.swap(i, last)
	h.items = h.items[:last]
	h.pos[v] = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

// TestHeapTiesAsSwaps: with few distinct keys (many entries tie), every
// pop returns the vertex that the swap-based heap returns, and the arrays
// agree entry by entry.
func TestHeapTiesAsSwaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200
	h := New(n)
	ref := &swapHeap{pos: make([]int32, n)}
	for i := range ref.pos {
		ref.pos[i] = -1
	}
	for step := 0; step < 200000; step++ {
		v := int32(rng.IntN(n))
		switch rng.IntN(5) {
		case 0, 1, 2:
			g := int64(rng.IntN(3))
			h.Push(v, g, 0)
			ref.push(v, g, 0)
		case 3:
			h.Remove(v)
			ref.remove(v)
		case 4:
			if h.Len() == 0 {
				continue
			}
			want := ref.items[0]
			ref.remove(want.V)
			if got := h.Pop(); got != want {
				t.Fatalf("step %d: pop %+v, swaps pop %+v", step, got, want)
			}
		}
		if len(h.items) != len(ref.items) {
			t.Fatalf("step %d: %d entries, swaps %d", step, len(h.items), len(ref.items))
		}
		for i := range h.items {
			if h.items[i] != ref.items[i] || h.pos[h.items[i].V] != int32(i) {
				t.Fatalf("step %d: entry %d is %+v, swaps %+v", step, i, h.items[i], ref.items[i])
			}
		}
	}
}

// BenchmarkHeap: an FM search's pattern, pushes and key updates of
// neighbours between pops, on a heap of a few hundred entries.
func BenchmarkHeap(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 1 << 12
	ops := make([]Item, 1<<16)
	for i := range ops {
		ops[i] = Item{int64(rng.IntN(64)), rng.Uint32(), int32(rng.IntN(n))}
	}
	h := New(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op := ops[i&(len(ops)-1)]
		if i%4 == 3 && h.Len() > 0 {
			h.Pop()
			continue
		}
		if h.Len() > 400 {
			h.Remove(op.V)
			continue
		}
		h.Push(op.V, op.Gain, op.Tie)
	}
}
