package refinement

import (
	"runtime"
	"sync"
)

// The parallel FM's searchers (small now: see view), connectivity tables
// (a record of 16 bytes per vertex, an arena of 16 bytes per slot) and
// stamps (16 bytes per vertex) go back to a pool when a run ends, for the
// next run. A sync.Pool drops what it holds at every other collection, and
// a large mapping collects often (mapGCPercent 25 in package gpumap): the
// final J pass of a 2^20-vertex grid found the pool empty and made its
// searchers again, then 24 MB each to zero and fault in (35-90 ms of its
// 200 ms, more at -t 2, where a fault of one thread interrupts the other's
// core to flush its TLB). While a caller holds Keep, the pool holds on to
// its contents.

// kept is a pool that holds its items while keepers > 0 (Keep) and lets
// the collector have them otherwise, as a sync.Pool does.
type kept[T any] struct {
	mu    sync.Mutex
	items []*T
	pool  sync.Pool
	size  func(*T) int // the memory an item holds, in any unit
}

var keep struct {
	mu      sync.Mutex
	keepers int
}

func keeping() bool {
	keep.mu.Lock()
	defer keep.mu.Unlock()
	return keep.keepers > 0
}

func (k *kept[T]) get() *T {
	k.mu.Lock()
	if n := len(k.items); n > 0 {
		x := k.items[n-1]
		k.items[n-1] = nil
		k.items = k.items[:n-1]
		k.mu.Unlock()
		return x
	}
	k.mu.Unlock()
	x, _ := k.pool.Get().(*T)
	return x
}

// put returns x to the pool. While kept, the pool holds at most
// GOMAXPROCS items of a kind (the threads of one run), the largest by
// size: more come from runs side by side (the tries of a split), and the
// largest are those of the whole graph, which its final J pass needs.
func (k *kept[T]) put(x *T) {
	if keeping() {
		k.mu.Lock()
		if len(k.items) < runtime.GOMAXPROCS(0) {
			k.items = append(k.items, x)
			k.mu.Unlock()
			return
		}
		small := 0
		for i, y := range k.items {
			if k.size(y) < k.size(k.items[small]) {
				small = i
			}
		}
		if k.size(x) > k.size(k.items[small]) {
			k.items[small], x = x, k.items[small]
		}
		k.mu.Unlock()
	}
	k.pool.Put(x)
}

func (k *kept[T]) drop() {
	k.mu.Lock()
	clear(k.items)
	k.items = k.items[:0]
	k.mu.Unlock()
}

var (
	searchers = kept[searcher]{size: func(w *searcher) int { return len(w.vs.slots) }}
	conns     = kept[ConnTable]{size: func(c *ConnTable) int { return cap(c.e) }}
	stamps    = kept[marks]{size: func(m *marks) int { return cap(m.lock) }}
)

// Keep makes the parallel FM keep its scratch memory between runs, until
// the returned function is called (by every caller of Keep, once): for a
// mapping, whose runs follow one another on graphs of similar sizes. The
// results do not depend on it.
func Keep() (release func()) {
	keep.mu.Lock()
	keep.keepers++
	keep.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			keep.mu.Lock()
			keep.keepers--
			last := keep.keepers == 0
			keep.mu.Unlock()
			if last {
				searchers.drop()
				conns.drop()
				stamps.drop()
			}
		})
	}
}
