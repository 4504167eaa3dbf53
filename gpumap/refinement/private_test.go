package refinement

import (
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// TestWorkerScratchIsLinePrivate: the scratch that each worker of a
// parallel LP or FM writes in its inner loop is allocated in a loop over
// the workers; neighbouring allocations must not share a cache line
// (false sharing cost the parallel phases 10-30% CPU on two threads).
func TestWorkerScratchIsLinePrivate(t *testing.T) {
	g := graph.Grid(8, 8)
	maxW := []int64{64, 64, 64, 64, 64, 64}
	s := NewState(g, 6, make([]int32, g.N()), maxW, Cut())
	s2 := NewState(g, 6, make([]int32, g.N()), maxW, Cut())
	f := newBatchFM(par.New(2), s, FMConfig{})
	defer f.release()
	w0, w1 := f.ws[0], f.ws[1]
	h0, h1 := newNbhd(6), newNbhd(6)
	type pair struct {
		name string
		a, b unsafe.Pointer
		n    uintptr
	}
	for _, p := range []pair{
		{"searcher", unsafe.Pointer(w0), unsafe.Pointer(w1), unsafe.Sizeof(*w0)},
		{"searcher heap", unsafe.Pointer(w0.heap), unsafe.Pointer(w1.heap), unsafe.Sizeof(*w0.heap)},
		{"searcher block weights", unsafe.Pointer(&w0.dbw[0]), unsafe.Pointer(&w1.dbw[0]), 6 * 8},
		{"nbhd", unsafe.Pointer(h0), unsafe.Pointer(h1), unsafe.Sizeof(*h0)},
		{"nbhd connectivity", unsafe.Pointer(&h0.conn[0]), unsafe.Pointer(&h1.conn[0]), 6 * 8},
		{"block weights", unsafe.Pointer(&s.BW[0]), unsafe.Pointer(&s2.BW[0]), 6 * 8},
	} {
		if par.SharesLine(p.a, p.n, p.b, p.n) {
			t.Errorf("%s: two workers' copies share a cache line", p.name)
		}
	}
}
