package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

//go:embed kernels/gpumap.ptx
var ptx string

// PTX is the embedded kernel module.
func PTX() string { return ptx }

// ErrTooLarge: the graph does not fit the free device memory.
var ErrTooLarge = errors.New("graph does not fit the GPU's free memory")

const threads = 256

var kernelNames = []string{"scan_block", "scan_add", "edge_sources", "copy_i32", "match_prefer", "match_resolve",
	"hop_maker", "hop_pair", "match_self", "cmap_flags", "cmap_fill", "cmap_partner", "contract_bounds",
	"contract_insert", "contract_count", "contract_compact", "project", "cost_kernel", "block_weights",
	"jet_lp", "jet_after", "jet_apply", "jet_reb"}

// Backend runs on one GPU.
type Backend struct {
	dev    driver.Device
	ctx    *driver.Context
	mod    *driver.Module
	fn     map[string]*driver.Function
	stream *driver.Stream
	grid   uint32 // blocks for grid-stride loops
}

// Open loads the driver, picks GPU 0, JIT-loads the kernels and binds the
// calling goroutine to its thread until Close.
func Open() (b *Backend, err error) {
	if err := driver.Load(); err != nil {
		return nil, err
	}
	devs, err := driver.Devices()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", driver.ErrUnavailable, err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w: the CUDA driver reports no device", driver.ErrUnavailable)
	}
	runtime.LockOSThread()
	defer func() {
		if err != nil {
			runtime.UnlockOSThread()
		}
	}()
	b = &Backend{dev: devs[0], fn: map[string]*driver.Function{}}
	if b.ctx, err = driver.Retain(b.dev); err != nil {
		return nil, err
	}
	if b.mod, err = driver.LoadPTX(ptx); err != nil {
		b.ctx.Release()
		return nil, fmt.Errorf("loading the kernels: %w", err)
	}
	for _, name := range kernelNames {
		f, err := b.mod.Function(name)
		if err != nil {
			b.Close()
			return nil, err
		}
		b.fn[name] = f
	}
	if b.stream, err = driver.NewStream(); err != nil {
		b.Close()
		return nil, err
	}
	b.grid = uint32(max(b.dev.SMs, 1) * 32)
	return b, nil
}

// Name is the device and its capability.
func (b *Backend) Name() string {
	return fmt.Sprintf("cuda (%s, sm_%d%d, %d SMs, %d MiB)", b.dev.Name, b.dev.Major, b.dev.Minor, b.dev.SMs, b.dev.TotalMem>>20)
}

// Close releases the device and unbinds the thread.
func (b *Backend) Close() error {
	if b.stream != nil {
		b.stream.Destroy()
	}
	if b.mod != nil {
		b.mod.Unload()
	}
	var err error
	if b.ctx != nil {
		err = b.ctx.Release()
	}
	runtime.UnlockOSThread()
	return err
}

func (b *Backend) blocks(n int64) uint32 {
	if n <= 0 {
		return 0
	}
	return uint32(min((n+threads-1)/threads, int64(b.grid)))
}

func (b *Backend) launch(name string, n int64, args ...driver.Arg) error {
	return b.fn[name].Launch(b.stream, b.blocks(n), threads, args...)
}

func (b *Backend) sync() error { return b.stream.Synchronize() }

// --- device memory ---

type devGraph struct {
	n                      int
	m2                     int64
	xadj, adj, ew, vw, src driver.Ptr
}

func (g *devGraph) N() int { return g.n }

type devVec struct {
	n int
	p driver.Ptr
}

func (v *devVec) Len() int { return v.n }

func alloc(bytes int64) (driver.Ptr, error) { return driver.Alloc(uint64(max(bytes, 8))) }

func (b *Backend) Free(values ...any) {
	for _, v := range values {
		switch x := v.(type) {
		case *devGraph:
			for _, p := range []driver.Ptr{x.xadj, x.adj, x.ew, x.vw, x.src} {
				driver.Free(p)
			}
		case *devVec:
			driver.Free(x.p)
		}
	}
}

func graphBytes(n int, m2 int64) int64 { return 8*int64(n+1) + 12*m2 + 8*int64(n) + 4*m2 }

// UploadGraph checks that the working set (the graph, its coarse levels
// and the refinement arrays: about 3.5 times the graph) fits the free
// memory, then copies g to the device.
func (b *Backend) UploadGraph(g *graph.Graph) (backend.Graph, error) {
	n, m2 := g.N(), g.DirectedEdges()
	need := uint64(graphBytes(n, m2))*7/2 + 64<<20
	free, _, err := driver.MemInfo()
	if err != nil {
		return nil, err
	}
	if need > free {
		return nil, fmt.Errorf("%w: %d vertices and %d edges need about %d MiB, %d MiB free", ErrTooLarge, n, m2/2, need>>20, free>>20)
	}
	dg := &devGraph{n: n, m2: m2}
	ew := g.EdgeWeights() // the kernels read 64-bit weights
	if err := b.allocGraph(dg); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		p driver.Ptr
		h unsafe.Pointer
		n int64
	}{{dg.xadj, unsafe.Pointer(&g.XAdj[0]), 8 * int64(n+1)}, {dg.vw, ptr64(g.VW), 8 * int64(n)},
		{dg.adj, ptr32(g.Adj), 4 * m2}, {dg.ew, ptr64(ew), 8 * m2}} {
		if err := driver.CopyIn(c.p, c.h, uint64(c.n)); err != nil {
			b.Free(dg)
			return nil, err
		}
	}
	if err := b.launch("edge_sources", int64(n), driver.P(dg.xadj), driver.P(dg.src), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	return dg, b.sync()
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

func (b *Backend) allocGraph(dg *devGraph) (err error) {
	for _, a := range []struct {
		p     *driver.Ptr
		bytes int64
	}{{&dg.xadj, 8 * int64(dg.n+1)}, {&dg.adj, 4 * dg.m2}, {&dg.ew, 8 * dg.m2}, {&dg.vw, 8 * int64(dg.n)}, {&dg.src, 4 * dg.m2}} {
		if *a.p, err = alloc(a.bytes); err != nil {
			b.Free(dg)
			return err
		}
	}
	return nil
}

func (b *Backend) DownloadGraph(g backend.Graph) (*graph.Graph, error) {
	dg := g.(*devGraph)
	h := &graph.Graph{XAdj: make([]int64, dg.n+1), Adj: make([]int32, dg.m2), VW: make([]int64, dg.n)}
	ew := make([]int64, dg.m2)
	if err := b.sync(); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		h unsafe.Pointer
		p driver.Ptr
		n int64
	}{{unsafe.Pointer(&h.XAdj[0]), dg.xadj, 8 * int64(dg.n+1)}, {ptr64(h.VW), dg.vw, 8 * int64(dg.n)},
		{ptr32(h.Adj), dg.adj, 4 * dg.m2}, {ptr64(ew), dg.ew, 8 * dg.m2}} {
		if err := driver.CopyOut(c.h, c.p, uint64(c.n)); err != nil {
			return nil, err
		}
	}
	h.SetEdgeWeights(ew)
	return h, nil
}

func (b *Backend) UploadVector(v []int32) (backend.Vector, error) {
	p, err := alloc(4 * int64(len(v)))
	if err != nil {
		return nil, err
	}
	return &devVec{len(v), p}, driver.CopyIn(p, ptr32(v), uint64(4*len(v)))
}

func (b *Backend) DownloadVector(v backend.Vector) ([]int32, error) {
	dv := v.(*devVec)
	out := make([]int32, dv.n)
	if err := b.sync(); err != nil {
		return nil, err
	}
	return out, driver.CopyOut(ptr32(out), dv.p, uint64(4*dv.n))
}

// scan replaces a (n int64s on the device) by its exclusive prefix sums
// and returns the total: block scans, a recursive scan of the block
// totals, and an add-back pass.
func (b *Backend) scan(a driver.Ptr, n int64) (int64, error) {
	const per = 2 * 512
	nb := (n + per - 1) / per
	sums, err := alloc(8 * (nb + 1))
	if err != nil {
		return 0, err
	}
	defer driver.Free(sums)
	if err := b.fn["scan_block"].LaunchShared(b.stream, uint32(nb), 512, 8*per,
		driver.P(a), driver.I64(n), driver.P(sums)); err != nil {
		return 0, err
	}
	var total int64
	if nb > 1 {
		if total, err = b.scan(sums, nb); err != nil {
			return 0, err
		}
		if err := b.launch("scan_add", n, driver.P(a), driver.I64(n), driver.P(sums), driver.I32(per)); err != nil {
			return 0, err
		}
	} else {
		if err := b.sync(); err != nil {
			return 0, err
		}
		if err := driver.CopyOut(unsafe.Pointer(&total), sums, 8); err != nil {
			return 0, err
		}
	}
	return total, b.sync()
}

// --- coarsening ---

func (b *Backend) Match(g backend.Graph, maxWeight int64, seed uint64) (backend.Vector, error) {
	dg := g.(*devGraph)
	n := int64(dg.n)
	match, err := alloc(4 * n)
	if err != nil {
		return nil, err
	}
	pref, err := alloc(4 * n)
	if err != nil {
		driver.Free(match)
		return nil, err
	}
	defer driver.Free(pref)
	counter, err := alloc(8)
	if err != nil {
		driver.Free(match)
		return nil, err
	}
	defer driver.Free(counter)
	if err := driver.Fill32(match, 0xffffffff, uint64(n)); err != nil {
		return nil, err
	}
	matched := int64(0)
	for r := 0; r < 8; r++ {
		if err := driver.Fill32(counter, 0, 2); err != nil {
			return nil, err
		}
		rs := seed + uint64(r)*0x9e37
		if err := b.launch("match_prefer", n, driver.P(dg.xadj), driver.P(dg.adj), driver.P(dg.ew), driver.P(dg.vw),
			driver.P(match), driver.P(pref), driver.I32(int32(n)), driver.I64(maxWeight), driver.I64(int64(rs))); err != nil {
			return nil, err
		}
		if err := b.launch("match_resolve", n, driver.P(pref), driver.P(match), driver.I32(int32(n)), driver.P(counter)); err != nil {
			return nil, err
		}
		var newly int64
		if err := b.sync(); err != nil {
			return nil, err
		}
		if err := driver.CopyOut(unsafe.Pointer(&newly), counter, 8); err != nil {
			return nil, err
		}
		matched += newly
		if newly == 0 || 4*matched >= 3*n {
			break
		}
	}
	if 4*matched < 3*n { // two-hop: leaves, twins and relatives through a matchmaker
		maker := pref
		if err := b.launch("hop_maker", n, driver.P(dg.xadj), driver.P(dg.adj), driver.P(dg.ew), driver.P(match),
			driver.P(maker), driver.I32(int32(n))); err != nil {
			return nil, err
		}
		out, err := alloc(4 * n)
		if err != nil {
			return nil, err
		}
		defer driver.Free(out)
		if err := b.launch("copy_i32", n, driver.P(out), driver.P(match), driver.I64(n)); err != nil {
			return nil, err
		}
		if err := b.launch("hop_pair", n, driver.P(dg.xadj), driver.P(dg.adj), driver.P(dg.vw), driver.P(maker),
			driver.P(match), driver.P(out), driver.I32(int32(n)), driver.I64(maxWeight)); err != nil {
			return nil, err
		}
		if err := b.launch("copy_i32", n, driver.P(match), driver.P(out), driver.I64(n)); err != nil {
			return nil, err
		}
	}
	if err := b.launch("match_self", n, driver.P(match), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	return &devVec{dg.n, match}, b.sync()
}

func (b *Backend) Contract(g backend.Graph, matchV backend.Vector) (backend.Graph, backend.Vector, error) {
	dg := g.(*devGraph)
	match := matchV.(*devVec).p
	n := int64(dg.n)
	flags, err := alloc(8 * (n + 1))
	if err != nil {
		return nil, nil, err
	}
	defer driver.Free(flags)
	if err := b.launch("cmap_flags", n, driver.P(match), driver.P(flags), driver.I32(int32(n))); err != nil {
		return nil, nil, err
	}
	nc, err := b.scan(flags, n)
	if err != nil {
		return nil, nil, err
	}
	cmap, err := alloc(4 * n)
	if err != nil {
		return nil, nil, err
	}
	leaders, err := alloc(4 * nc)
	if err != nil {
		driver.Free(cmap)
		return nil, nil, err
	}
	defer driver.Free(leaders)
	fail := func(err error) (backend.Graph, backend.Vector, error) {
		driver.Free(cmap)
		return nil, nil, err
	}
	if err := b.launch("cmap_fill", n, driver.P(match), driver.P(flags), driver.P(cmap), driver.P(leaders), driver.I32(int32(n))); err != nil {
		return fail(err)
	}
	if err := b.launch("cmap_partner", n, driver.P(match), driver.P(cmap), driver.I32(int32(n))); err != nil {
		return fail(err)
	}
	off, err := alloc(8 * (nc + 1))
	if err != nil {
		return fail(err)
	}
	defer driver.Free(off)
	cg := &devGraph{n: int(nc)}
	if cg.vw, err = alloc(8 * nc); err != nil {
		return fail(err)
	}
	if err := b.launch("contract_bounds", nc, driver.P(dg.xadj), driver.P(dg.vw), driver.P(match), driver.P(leaders),
		driver.P(off), driver.P(cg.vw), driver.I32(int32(nc))); err != nil {
		return fail(err)
	}
	slots, err := b.scan(off, nc)
	if err != nil {
		return fail(err)
	}
	if err := driver.CopyIn(off+driver.Ptr(8*nc), unsafe.Pointer(&slots), 8); err != nil {
		return fail(err)
	}
	hv, err := alloc(4 * slots)
	if err != nil {
		return fail(err)
	}
	defer driver.Free(hv)
	hw, err := alloc(8 * slots)
	if err != nil {
		return fail(err)
	}
	defer driver.Free(hw)
	if err := driver.Fill32(hv, 0xffffffff, uint64(slots)); err != nil {
		return fail(err)
	}
	if err := driver.Fill32(hw, 0, uint64(2*slots)); err != nil {
		return fail(err)
	}
	if err := b.launch("contract_insert", dg.m2, driver.P(dg.src), driver.P(dg.adj), driver.P(dg.ew), driver.P(cmap),
		driver.P(off), driver.P(hv), driver.P(hw), driver.I64(dg.m2)); err != nil {
		return fail(err)
	}
	if cg.xadj, err = alloc(8 * (nc + 1)); err != nil {
		return fail(err)
	}
	if err := b.launch("contract_count", nc, driver.P(hv), driver.P(off), driver.P(cg.xadj), driver.I32(int32(nc))); err != nil {
		return fail(err)
	}
	m2, err := b.scan(cg.xadj, nc)
	if err != nil {
		return fail(err)
	}
	if err := driver.CopyIn(cg.xadj+driver.Ptr(8*nc), unsafe.Pointer(&m2), 8); err != nil {
		return fail(err)
	}
	cg.m2 = m2
	if cg.adj, err = alloc(4 * m2); err != nil {
		return fail(err)
	}
	if cg.ew, err = alloc(8 * m2); err != nil {
		return fail(err)
	}
	if cg.src, err = alloc(4 * m2); err != nil {
		return fail(err)
	}
	if err := b.launch("contract_compact", nc, driver.P(hv), driver.P(hw), driver.P(off), driver.P(cg.xadj),
		driver.P(cg.adj), driver.P(cg.ew), driver.I32(int32(nc))); err != nil {
		return fail(err)
	}
	if err := b.launch("edge_sources", nc, driver.P(cg.xadj), driver.P(cg.src), driver.I32(int32(nc))); err != nil {
		return fail(err)
	}
	return cg, &devVec{dg.n, cmap}, b.sync()
}

func (b *Backend) Project(cmap, coarse backend.Vector) (backend.Vector, error) {
	c := cmap.(*devVec)
	fine, err := alloc(4 * int64(c.n))
	if err != nil {
		return nil, err
	}
	err = b.launch("project", int64(c.n), driver.P(c.p), driver.P(coarse.(*devVec).p), driver.P(fine), driver.I32(int32(c.n)))
	return &devVec{c.n, fine}, err
}

// --- refinement ---

func (b *Backend) Refine(g backend.Graph, pe backend.Vector, top *topology.Topology, lmax int64, cfg refinement.JetConfig) error {
	j, err := b.newJet(g.(*devGraph), pe.(*devVec), top, lmax, cfg)
	if err != nil {
		return err
	}
	defer j.free()
	_, err = refinement.RunJet(j, cfg)
	return err
}

var _ backend.Backend = (*Backend)(nil)
