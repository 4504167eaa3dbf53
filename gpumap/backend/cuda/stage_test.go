package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// withUpload runs f with the upload way and staging buffer size set.
func withUpload(w uploadWay, bytes int64, f func()) {
	defer func(w uploadWay, bytes int64) { uploadMethod, stageBytes = w, bytes }(uploadMethod, stageBytes)
	uploadMethod, stageBytes = w, bytes
	f()
}

// weighted is g with symmetric edge weights of wb bytes on the device:
// none (every weight 1), 32-bit, or 64-bit (a total beyond 2^31).
func weighted(g *graph.Graph, wb int) *graph.Graph {
	h := &graph.Graph{XAdj: g.XAdj, Adj: g.Adj, VW: slices.Clone(g.VW)}
	for v := range h.VW {
		h.VW[v] = int64(1 + v%3)
	}
	ew := make([]int64, len(g.Adj))
	for v := 0; v+1 < len(g.XAdj); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := int64(g.Adj[e])
			lo, hi := min(int64(v), u), max(int64(v), u)
			switch wb {
			case 0:
				ew[e] = 1
			case 4:
				ew[e] = 1 + (lo*7+hi*13)%97
			case 8:
				ew[e] = 1<<40 + lo*31 + hi
			}
		}
	}
	h.SetEdgeWeights(ew)
	return h
}

// uploadExtent is the bytes a staged upload of g copies: the device
// graph's arrays from xadj to the end of its edge weights.
func uploadExtent(g *graph.Graph) int64 {
	_, _, wb := weights(g)
	var c carve
	n, m2 := int64(g.N()), g.DirectedEdges()
	c.add(8 * (n + 1))
	c.add(8 * n)
	oa := c.add(4 * m2)
	if wb == 0 {
		return oa + 4*m2
	}
	return c.add(wb*m2) + wb*m2
}

// roundTrip uploads g and downloads it again.
func roundTrip(t *testing.T, b *Backend, g *graph.Graph) *graph.Graph {
	t.Helper()
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(dg)
	h, err := b.DownloadGraph(dg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sameGraph(a, b *graph.Graph) bool {
	aw32, aw64 := a.Weights()
	bw32, bw64 := b.Weights()
	return slices.Equal(a.XAdj, b.XAdj) && slices.Equal(a.Adj, b.Adj) && slices.Equal(a.VW, b.VW) &&
		slices.Equal(aw32, bw32) && slices.Equal(aw64, bw64) && (aw32 == nil) == (bw32 == nil) && (aw64 == nil) == (bw64 == nil)
}

// The staged upload puts the same graph on the device as the pinned one
// (both downloaded and compared, and with the input), whether the graph
// is smaller than one staging buffer, exactly one, one byte more or less,
// or many buffers (more than the buffers there are, so each is filled
// again after its copy: the emulator runs an asynchronous copy only when
// it must have happened, so a buffer refilled too early reaches the
// device changed), for odd sizes and edge weights of 0, 4 and 8 bytes.
func TestStagedUploadEqualsPinned(t *testing.T) {
	b := open(t)
	defer b.Close()
	for _, base := range []*graph.Graph{graph.Grid(7, 13), graph.RandomGeometric(1001, 3), graph.Grid(90, 111)} {
		for _, wb := range []int{0, 4, 8} {
			g := weighted(base, wb)
			if _, _, got := weights(g); got != int64(wb) {
				t.Fatalf("test graph with %d-byte weights has %d", wb, got)
			}
			ext := uploadExtent(g)
			var pinned *graph.Graph
			withUpload(uploadPinned, stageBytes, func() { pinned = roundTrip(t, b, g) })
			if !sameGraph(pinned, g) {
				t.Fatalf("n=%d wb=%d: the pinned upload's device graph differs from the input", g.N(), wb)
			}
			for _, size := range []int64{ext + 4096, ext + 1, ext, ext - 1, ext/2 + 1, 1000, 4099} {
				withUpload(uploadStaged, size, func() {
					before, _ := driver.Emu()
					h := roundTrip(t, b, g)
					after, _ := driver.Emu()
					if !sameGraph(h, pinned) {
						t.Errorf("n=%d wb=%d buffer %d bytes (extent %d): the staged upload's device graph differs from the pinned one's", g.N(), wb, size, ext)
					}
					if driver.Emulated() {
						if chunks := (ext + size - 1) / size; after.H2D-before.H2D != uint64(chunks) || after.H2DPinnedBytes-before.H2DPinnedBytes != uint64(ext) {
							t.Errorf("n=%d wb=%d buffer %d: %d copies of %d page-locked bytes, want %d of %d", g.N(), wb, size,
								after.H2D-before.H2D, after.H2DPinnedBytes-before.H2DPinnedBytes, chunks, ext)
						}
					}
				})
			}
		}
	}
}

// Filling a staging buffer gives the same bytes on any number of
// goroutines: the pieces' bytes where they lie, zeros between them.
func TestFillStageAnyThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var pieces []hostPiece
	var want []byte
	for range 7 {
		gap, n := r.IntN(300), 1+r.IntN(900_000)
		want = append(want, make([]byte, gap)...)
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		pieces = append(pieces, hostPiece{off: int64(len(want)), src: unsafe.Pointer(&src[0]), n: int64(n)})
		want = append(want, src...)
	}
	for _, chunk := range []int64{int64(len(want)), 3<<20 + 77, 1<<20 + 1, 999} {
		for _, threads := range []int{1, 2, 3, 5, 8} {
			for lo := int64(0); lo < int64(len(want)); lo += chunk {
				hi := min(lo+chunk, int64(len(want)))
				buf := make([]byte, hi-lo)
				for i := range buf {
					buf[i] = 0xcb // what the buffer held before
				}
				fillStage(buf, pieces, lo, threads)
				if !slices.Equal(buf, want[lo:hi]) {
					t.Fatalf("chunk %d at %d, %d threads: the buffer differs", chunk, lo, threads)
				}
			}
		}
	}
}

// The staged upload's mapping is the pinned upload's and the CPU
// backend's, byte for byte.
func TestStagedMappingEqualsCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.RandomGeometric(40000, 13)
	var staged, pinned []int32
	withUpload(uploadStaged, 1<<20, func() { staged, _ = mapIM(t, b, g) })
	withUpload(uploadPinned, stageBytes, func() { pinned, _ = mapIM(t, b, g) })
	cp, _, err := integrated.Map(cpu.New(0), par.New(0), g, mustTop(), 0.03, integrated.Config{Seed: 1, CoarsenC: 30, CapDiv: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(staged, pinned) || !slices.Equal(staged, cp) {
		t.Fatal("the staged upload's mapping differs from the pinned upload's or the CPU backend's")
	}
	if u := b.Stats().Phases[PhaseUpload]; u.H2DPinnedBytes != u.H2DBytes {
		t.Errorf("upload: %d of %d bytes from page-locked memory", u.H2DPinnedBytes, u.H2DBytes)
	}
}

// The staging buffers are allocated once per backend (not per upload)
// and Close frees them.
func TestCloseFreesStagingBuffers(t *testing.T) {
	emulated(t)
	b := open(t)
	defer b.Close()
	before, _ := driver.Emu()
	withUpload(uploadStaged, 1<<16, func() {
		g := graph.Grid(100, 100)
		for range 3 {
			roundTrip(t, b, g)
		}
	})
	mid, _ := driver.Emu()
	if allocs, live := mid.HostAllocs-before.HostAllocs, mid.HostLiveBytes-before.HostLiveBytes; allocs != stageBufs || live != stageBufs<<16 {
		t.Errorf("three uploads: %d page-locked allocations, %d bytes live; want %d of %d bytes", allocs, live, stageBufs, 1<<16)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := driver.Emu()
	if after.HostLiveBytes != before.HostLiveBytes || after.HostFrees-before.HostFrees != stageBufs {
		t.Errorf("after Close: %d page-locked bytes live (before: %d), %d freed allocations", after.HostLiveBytes, before.HostLiveBytes, after.HostFrees-before.HostFrees)
	}
}

// A failed driver call of a staged upload: buffers that cannot be
// allocated send the upload the pinned way (the same device graph); a
// failed copy, event or wait fails the upload, leaks no device memory,
// and the next upload works. Close frees every page-locked buffer.
func TestStagedUploadFailures(t *testing.T) {
	emulated(t)
	g := weighted(graph.Grid(60, 70), 4)
	const size = 1 << 14
	chunks := (uploadExtent(g) + size - 1) / size
	type fail struct {
		call     string
		nth      int
		fallback bool // the upload still succeeds, the pinned way
	}
	var fails []fail
	for nth := 1; nth <= stageBufs; nth++ {
		fails = append(fails, fail{"cuMemAllocHost_v2", nth, true}, fail{"cuEventCreate", nth, true})
	}
	for _, nth := range []int{1, 2, 3, int(chunks) / 2, int(chunks)} {
		fails = append(fails, fail{"cuMemcpyHtoDAsync_v2", nth, false}, fail{"cuEventRecord", nth, false})
	}
	for _, nth := range []int{1, 2, int(chunks) - stageBufs} {
		fails = append(fails, fail{"cuEventSynchronize", nth, false})
	}
	withUpload(uploadStaged, size, func() {
		for _, f := range fails {
			t.Run(fmt.Sprintf("%s#%d", f.call, f.nth), func(t *testing.T) {
				before, _ := driver.Emu()
				b := open(t)
				driver.EmuFail(f.call, f.nth, driver.ErrCodeLaunch)
				dg, err := b.UploadGraph(g)
				driver.EmuClearFailures()
				switch {
				case f.fallback && err != nil:
					t.Errorf("the upload failed instead of going the pinned way: %v", err)
				case !f.fallback && err == nil:
					t.Errorf("the upload did not report the failed call")
				}
				if err == nil {
					h, err := b.DownloadGraph(dg)
					b.Free(dg)
					if err != nil || !sameGraph(h, g) {
						t.Errorf("the device graph differs from the input (%v)", err)
					}
				}
				if mid, _ := driver.Emu(); mid.LiveBytes != before.LiveBytes {
					t.Errorf("%d bytes of device memory leaked", mid.LiveBytes-before.LiveBytes)
				}
				if h := roundTrip(t, b, g); !sameGraph(h, g) {
					t.Errorf("the next upload's device graph differs from the input")
				}
				if err := b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				after, _ := driver.Emu()
				if after.HostLiveBytes != before.HostLiveBytes || after.LiveBytes != before.LiveBytes {
					t.Errorf("after Close: %d page-locked host bytes and %d device bytes more than before",
						after.HostLiveBytes-before.HostLiveBytes, after.LiveBytes-before.LiveBytes)
				}
			})
		}
	})
}
