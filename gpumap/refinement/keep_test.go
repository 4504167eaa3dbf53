package refinement

import (
	"runtime"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// searcherOf returns a searcher whose view has 1<<bits slots.
func searcherOf(bits uint8) *searcher {
	w := &searcher{heap: pq.New(0)}
	w.vs = view{slots: make([]vslot, 1<<bits), bits: bits, heap: w.heap}
	return w
}

// TestKeptScratchOutlivesCollections: while a caller holds Keep, the
// searchers and connectivity table of a finished parallel FM survive
// collections, which empty a sync.Pool (the final J pass of a large
// mapping made its searchers and tables again), and the larger items stay when
// there are more than the pool keeps; after the release the collector may
// have them.
func TestKeptScratchOutlivesCollections(t *testing.T) {
	g := graph.Grid(64, 64)
	n := g.N()
	maxW := []int64{1100, 1100, 1100, 1100}
	run := func() {
		f := newBatchFM(par.New(2), NewState(g, 4, make([]int32, n), maxW, Cut()), FMConfig{})
		f.release()
	}
	collect := func() { runtime.GC(); runtime.GC() }

	release := Keep()
	// Small searchers returned first (a split's sub-problems) must make
	// room for the large ones of a run on the whole graph.
	for range runtime.GOMAXPROCS(0) {
		searchers.put(searcherOf(4))
	}
	run()
	for range 2 {
		searchers.put(searcherOf(20))
	}
	collect()
	var got []*searcher
	for w := searchers.get(); w != nil; w = searchers.get() {
		got = append(got, w)
		if len(got) > 100 {
			t.Fatal("the kept pool does not empty")
		}
	}
	large := 0
	for _, w := range got {
		if len(w.vs.slots) >= 1<<20 {
			large++
		}
	}
	if want := min(2, runtime.GOMAXPROCS(0)); large < want {
		t.Fatalf("while kept: %d of the largest searchers survived two collections, want %d", large, want)
	}
	for _, w := range got {
		searchers.put(w)
	}
	if c := conns.get(); c == nil {
		t.Fatal("while kept: the connectivity table did not survive two collections")
	} else {
		conns.put(c)
	}

	release()
	release() // a second call does nothing
	if len(searchers.items) != 0 || len(conns.items) != 0 {
		t.Fatalf("after the release the pool still holds %d searchers and %d tables", len(searchers.items), len(conns.items))
	}
}
