package cuda

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
)

// Device memory of one mapping: the input graph (one allocation), its
// workspace (one allocation for every scratch array of coarsening and
// refinement, sized for the input graph, and one for the per-block arrays
// of refinement, made at the first Refine), and per level a coarse graph
// and its vertex map (two allocations). Vectors that Match and Project
// return live in the workspace; freeing them is a no-op.

// carve lays arrays out in one allocation, 256-byte aligned.
type carve struct{ size int64 }

func (c *carve) add(bytes int64) int64 {
	off := c.size
	c.size += (max(bytes, 0) + 255) &^ 255
	return off
}

// devGraph is a graph on the device. Its edge weights are 32-bit (ew32),
// 64-bit (ew64, when the input's total exceeds 2^31-1) or absent (an input
// whose every weight is 1): wb bytes per edge.
type devGraph struct {
	n                  int
	m2                 int64
	wb                 int64
	xadj, adj, vw, src driver.Ptr
	ew32, ew64         driver.Ptr
	block              driver.Ptr
	ws                 *workspace // of the input graph this one derives from
	root               bool       // the input graph: freeing it frees ws
}

func (g *devGraph) N() int { return g.n }

func (g *devGraph) DirectedEdges() int64 { return g.m2 }

// graphBytes is the size of a graph's arrays.
func graphBytes(n int, m2, wb int64) int64 { return 16*int64(n) + 8 + (8+wb)*m2 }

func newGraph(n int, m2, wb int64, ws *workspace) (*devGraph, error) {
	var c carve
	ox, ov, oa, oe, os := c.add(8*int64(n+1)), c.add(8*int64(n)), c.add(4*m2), c.add(wb*m2), c.add(4*m2)
	p, err := alloc(c.size)
	if err != nil {
		return nil, err
	}
	g := &devGraph{n: n, m2: m2, wb: wb, block: p, ws: ws, xadj: p + driver.Ptr(ox), vw: p + driver.Ptr(ov),
		adj: p + driver.Ptr(oa), src: p + driver.Ptr(os)}
	switch wb {
	case 4:
		g.ew32 = p + driver.Ptr(oe)
	case 8:
		g.ew64 = p + driver.Ptr(oe)
	}
	return g, nil
}

// coarseWeightBytes: the weights of a graph contracted from g (sums of
// g's weights, which fit in 32 bits unless g's do not).
func (g *devGraph) coarseWeightBytes() int64 { return max(g.wb, 4) }

type devVec struct {
	n     int
	p     driver.Ptr
	owned bool       // a separate allocation (else a workspace array)
	ws    *workspace // the workspace of the graph it belongs to, if known
}

func (v *devVec) Len() int { return v.n }

// workspace holds the scratch arrays of one mapping.
type workspace struct {
	n     int
	m2    int64
	block driver.Ptr
	// int32 per vertex; key (a Jet step's candidates' blocks before it) shares
	// maker, the matching's scratch
	match, pref, maker, ismaker, leaders, best, dest, key driver.Ptr
	pe                                                    [2]driver.Ptr // the mapping, level after level
	// int64 per vertex (n+1: scan buffers)
	flags, off, cvw driver.Ptr // cvw doubles as Jet's gain
	// uint8 per vertex
	locked, cand, moved, bucket driver.Ptr
	// per directed edge: contraction's hash slots, refinement's connectivity
	hv, hw, hp driver.Ptr
	part       driver.Ptr // scan partial sums
	ticket     driver.Ptr // scan_up's count of finished blocks (zero between launches)
	jet        *jetArrays // per-block arrays of refinement
}

func workspaceBytes(n int, m2 int64, partials int64) (int64, func(driver.Ptr) *workspace) {
	var c carve
	n64 := int64(n)
	var i32 [9]int64
	for i := range i32 {
		i32[i] = c.add(4 * n64)
	}
	var i64s [3]int64
	for i := range i64s {
		i64s[i] = c.add(8 * (n64 + 1))
	}
	var u8s [4]int64
	for i := range u8s {
		u8s[i] = c.add(n64)
	}
	ohv, ohw, ohp, opart, oticket := c.add(4*m2), c.add(8*m2), c.add(4*m2), c.add(8*(partials+1)), c.add(8)
	return c.size, func(p driver.Ptr) *workspace {
		at := func(off int64) driver.Ptr { return p + driver.Ptr(off) }
		return &workspace{n: n, m2: m2, block: p,
			match: at(i32[0]), pref: at(i32[1]), maker: at(i32[2]), key: at(i32[2]), ismaker: at(i32[3]), leaders: at(i32[4]),
			best: at(i32[5]), dest: at(i32[6]), pe: [2]driver.Ptr{at(i32[7]), at(i32[8])},
			flags: at(i64s[0]), off: at(i64s[1]), cvw: at(i64s[2]),
			locked: at(u8s[0]), cand: at(u8s[1]), moved: at(u8s[2]), bucket: at(u8s[3]),
			hv: at(ohv), hw: at(ohw), hp: at(ohp), part: at(opart), ticket: at(oticket)}
	}
}

func (w *workspace) free() {
	if w.jet != nil {
		driver.Free(w.jet.block)
		w.jet = nil
	}
	driver.Free(w.block)
	w.block = 0
}

// UploadGraph checks that the mapping's working set (the graph, the
// workspace and the coarse levels: about 3.5 times the graph) fits the
// free memory, then copies g to the device from page-locked memory (the
// way uploadMethod says). It starts a new mapping: Stats count from here
// (unless Accumulate).
func (b *Backend) UploadGraph(g *graph.Graph) (backend.Graph, error) {
	done, err := b.bind(PhaseUpload)
	if err != nil {
		return nil, err
	}
	defer done()
	if !b.keep {
		b.stats, b.pending = Stats{}, Work{}
		b.prof.reset()
	}
	n, m2 := g.N(), g.DirectedEdges()
	w32, w64, wb := weights(g)
	wsBytes, makeWS := workspaceBytes(n, m2, int64(b.scanB)*threads)
	need := uint64(graphBytes(n, m2, max(wb, 4))*5/2+wsBytes) + 64<<20
	free, _, err := driver.MemInfo()
	if err != nil {
		return nil, err
	}
	if need > free {
		return nil, fmt.Errorf("%w: %d vertices and %d edges need about %d MiB, %d MiB free", ErrTooLarge, n, m2/2, need>>20, free>>20)
	}
	wp, err := alloc(wsBytes)
	if err != nil {
		return nil, err
	}
	ws := makeWS(wp)
	if err := b.fill32(ws.ticket, 0, 2); err != nil {
		ws.free()
		return nil, err
	}
	dg, err := newGraph(n, m2, wb, ws)
	if err != nil {
		ws.free()
		return nil, err
	}
	dg.root = true
	if err := b.uploadArrays(dg.block, []hostCopy{{dg.xadj, unsafe.Pointer(&g.XAdj[0]), 8 * int64(n+1)}, {dg.vw, ptr64(g.VW), 8 * int64(n)},
		{dg.adj, ptr32(g.Adj), 4 * m2}, {dg.ew32, ptr32(w32), 4 * int64(len(w32))}, {dg.ew64, ptr64(w64), 8 * int64(len(w64))}}); err != nil {
		b.freeGraph(dg)
		return nil, err
	}
	if err := b.loop("edge_sources", int64(n), 8*int64(n+1)+4*m2, driver.P(dg.xadj), driver.P(dg.src), driver.I32(int32(n))); err != nil {
		b.freeGraph(dg)
		return nil, err
	}
	return dg, nil
}

// hostCopy is n bytes of host memory at h for the device address p.
type hostCopy struct {
	p driver.Ptr
	h unsafe.Pointer
	n int64
}

// uploadArrays copies host arrays into one device allocation that
// starts at base, the way uploadMethod says: staged when the staging
// buffers can be had, else each array page-locked (or as it is, when
// locking fails or the way is pageable).
func (b *Backend) uploadArrays(base driver.Ptr, cs []hostCopy) error {
	if uploadMethod == uploadStaged && b.stageReady() {
		var pieces []hostPiece
		for _, c := range cs {
			if c.n > 0 {
				pieces = append(pieces, hostPiece{off: int64(c.p - base), src: c.h, n: c.n})
			}
		}
		slices.SortFunc(pieces, func(x, y hostPiece) int { return cmp.Compare(x.off, y.off) })
		return b.copyStaged(base, pieces)
	}
	for _, c := range cs {
		if err := b.copyPinned(c.p, c.h, c.n); err != nil {
			return err
		}
	}
	return nil
}

// weights are g's edge weights and their width on the device: 4 bytes
// (w32), 8 (w64), or 0 where every weight is 1 (neither).
func weights(g *graph.Graph) (w32 []int32, w64 []int64, wb int64) {
	w32, w64 = g.Weights()
	switch {
	case w32 != nil:
		wb = 4
	case w64 != nil:
		wb = 8
	}
	return w32, w64, wb
}

// copyPinned copies host memory to the device after page-locking it (the
// pages around it, for the copy's duration); memory that cannot be locked
// is copied as it is, and so is all memory when uploadMethod is
// pageable. On the real H200 (bench/results-h200/7-stop39-bench.txt,
// BenchmarkProfile of rgg 2^22's 310 MB upload) locking took 31.0 ms and
// unlocking 9.5 ms around a 5.9 ms copy, but copying it unlocked is
// slower still: BenchmarkUpload there (3 uploads each,
// 8-stop39-upload.txt) took 25.9 ms pinned (locking 13.2, copy 6.0,
// unlocking 5.3) against 56.2 ms pageable (the copy 54.8) at 2^22, and
// 6.3 against 11.2 ms at 2^20.
func (b *Backend) copyPinned(dst driver.Ptr, src unsafe.Pointer, bytes int64) error {
	const page = 4096
	head := uintptr(src) & (page - 1)
	span := (uint64(head) + uint64(bytes) + page - 1) &^ (page - 1)
	pinned := false
	if bytes >= 1<<16 && uploadMethod != uploadPageable {
		b.hostStep("host_register", Counts{}, func() error {
			pinned = driver.RegisterHost(src, head, span) == nil
			return nil
		})
	}
	c := Counts{H2D: 1, H2DBytes: bytes}
	if pinned {
		c.H2DPinnedBytes = bytes
	}
	err := b.hostStep("copy_h2d", c, func() error { return b.copyIn(dst, src, bytes, pinned) })
	if pinned {
		err = errors.Join(err, b.hostStep("host_unregister", Counts{}, func() error { return driver.UnregisterHost(src, head) }))
	}
	return err
}

func ptr64(a []int64) unsafe.Pointer {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Pointer(&a[0])
}

func ptr32(a []int32) unsafe.Pointer {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Pointer(&a[0])
}

// DownloadGraph copies a (coarsest) graph to the host.
func (b *Backend) DownloadGraph(g backend.Graph) (*graph.Graph, error) {
	done, err := b.bind(PhaseInitial)
	if err != nil {
		return nil, err
	}
	defer done()
	return b.download(g.(*devGraph))
}

// download copies dg to the host (the caller has bound a phase).
func (b *Backend) download(dg *devGraph) (*graph.Graph, error) {
	h := &graph.Graph{XAdj: make([]int64, dg.n+1), Adj: make([]int32, dg.m2), VW: make([]int64, dg.n)}
	var w32 []int32
	var w64 []int64
	switch dg.wb {
	case 4:
		w32 = make([]int32, dg.m2)
	case 8:
		w64 = make([]int64, dg.m2)
	}
	for _, c := range []struct {
		h unsafe.Pointer
		p driver.Ptr
		n int64
	}{{unsafe.Pointer(&h.XAdj[0]), dg.xadj, 8 * int64(dg.n+1)}, {ptr64(h.VW), dg.vw, 8 * int64(dg.n)},
		{ptr32(h.Adj), dg.adj, 4 * dg.m2}, {ptr32(w32), dg.ew32, 4 * int64(len(w32))}, {ptr64(w64), dg.ew64, 8 * int64(len(w64))}} {
		if err := b.copyOut(c.h, c.p, c.n); err != nil {
			return nil, err
		}
	}
	switch {
	case w32 != nil:
		h.SetNarrowWeights(w32)
	case w64 != nil:
		h.SetEdgeWeights(w64)
	}
	return h, nil
}

// UploadVector copies v to a new device vector.
func (b *Backend) UploadVector(v []int32) (backend.Vector, error) {
	done, err := b.bind(PhaseInitial)
	if err != nil {
		return nil, err
	}
	defer done()
	p, err := alloc(4 * int64(len(v)))
	if err != nil {
		return nil, err
	}
	if err := b.copyIn(p, ptr32(v), 4*int64(len(v)), false); err != nil {
		driver.Free(p)
		return nil, err
	}
	return &devVec{n: len(v), p: p, owned: true}, nil
}

// DownloadVector copies v to the host.
func (b *Backend) DownloadVector(v backend.Vector) ([]int32, error) {
	done, err := b.bind(PhaseDownload)
	if err != nil {
		return nil, err
	}
	defer done()
	dv := v.(*devVec)
	out := make([]int32, dv.n)
	return out, b.copyOut(ptr32(out), dv.p, 4*int64(dv.n))
}

// Free releases graphs and vectors; freeing the input graph releases its
// workspace, and with it the vectors that live there.
func (b *Backend) Free(values ...any) {
	done, err := b.bind(b.phase)
	if err != nil {
		return
	}
	defer done()
	for _, v := range values {
		switch x := v.(type) {
		case *devGraph:
			b.freeGraph(x)
		case *devVec:
			if x.owned {
				driver.Free(x.p)
			}
		}
	}
}

func (b *Backend) freeGraph(g *devGraph) {
	b.hostStep("free", Counts{}, func() error {
		driver.Free(g.block)
		if g.root && g.ws != nil {
			g.ws.free()
		}
		return nil
	})
}
