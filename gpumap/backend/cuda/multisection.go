package cuda

import (
	"errors"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// The kernels of hierarchical multisection (kernels/gpumap.cu, section
// "hierarchical multisection").
func init() {
	kernelNames = append(kernelNames, "sub_degree", "sub_fill", "sub_place")
}

// Restrict builds the graph of the next level of the machine on the
// device: g without its edges between parts (the paper's Algorithm 1 for
// every part at once). sub_degree counts the kept edges, a scan lays them
// out, sub_fill copies them. It shares the input graph's workspace (the
// result is never larger) and counts as contraction in Stats. The host
// reads one total.
func (b *Backend) Restrict(g backend.Graph, part backend.Vector) (backend.Graph, error) {
	done, err := b.bind(PhaseContract)
	if err != nil {
		return nil, err
	}
	defer done()
	dg := g.(*devGraph)
	ws := dg.ws
	n, m2 := int64(dg.n), dg.m2
	pp := part.(*devVec).p
	b.gather(m2, 4, 4*n) // every edge reads its neighbour's part, twice
	if err := b.loop("sub_degree", n, 12*n+8*(n+1)+4*m2, driver.P(dg.xadj), driver.P(dg.adj), driver.P(pp),
		driver.P(ws.off), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	m2s, err := b.scan(ws, ws.off, n, true)
	if err != nil {
		return nil, err
	}
	sg, err := newGraph(int(n), m2s, dg.wb, ws)
	if err != nil {
		return nil, err
	}
	b.gather(m2, 4, 4*n)
	err = errors.Join(b.copyD2D(sg.xadj, ws.off, 8*(n+1)), b.copyD2D(sg.vw, dg.vw, 8*n))
	if err == nil {
		err = b.loop("sub_fill", n, 4*n+16*(n+1)+(4+dg.wb)*m2+(4+dg.wb)*m2s, driver.P(dg.xadj), driver.P(dg.adj),
			driver.P(dg.ew32), driver.P(dg.ew64), driver.P(pp), driver.P(sg.xadj), driver.P(sg.adj), driver.P(sg.ew32),
			driver.P(sg.ew64), driver.I32(int32(n)))
	}
	if err == nil {
		err = b.loop("edge_sources", n, 16*n+4*m2s, driver.P(sg.xadj), driver.P(sg.src), driver.I32(int32(n)))
	}
	if err != nil {
		driver.Free(sg.block)
		return nil, err
	}
	return sg, nil
}

// Weights adds up the vertex weights of every part (block_weights) and
// reads them: 8k bytes.
func (b *Backend) Weights(g backend.Graph, part backend.Vector, k int) ([]int64, error) {
	done, err := b.bind(PhaseProject)
	if err != nil {
		return nil, err
	}
	defer done()
	dg := g.(*devGraph)
	n, k64 := int64(dg.n), int64(k)
	w := make([]int64, k)
	if k == 0 {
		return w, nil
	}
	bw, err := alloc(8 * k64)
	if err != nil {
		return nil, err
	}
	defer driver.Free(bw)
	if err := b.blockWeights(part.(*devVec).p, dg.vw, bw, n, k64); err != nil {
		return nil, err
	}
	if err := b.copyOut(unsafe.Pointer(&w[0]), bw, 8*k64); err != nil {
		return nil, err
	}
	return w, nil
}

// Place writes a subgraph's split into the PEs of the input's vertices.
func (b *Backend) Place(pe, orig, part backend.Vector, base, stride int32) error {
	done, err := b.bind(PhaseProject)
	if err != nil {
		return err
	}
	defer done()
	var op, pp driver.Ptr
	n := int64(0)
	if orig != nil {
		op, n = orig.(*devVec).p, int64(orig.Len())
	}
	if part != nil {
		pp, n = part.(*devVec).p, int64(part.Len())
	}
	if part == nil { // every vertex on base
		stride = 0
		if pp, err = alloc(4 * n); err != nil {
			return err
		}
		defer driver.Free(pp)
		if err := b.fill32(pp, 0, n); err != nil {
			return err
		}
	}
	return b.loop("sub_place", n, 12*n, driver.P(op), driver.P(pp), driver.I32(base), driver.I32(stride), driver.P(pe.(*devVec).p), driver.I32(int32(n)))
}

// Keep copies v into an allocation of its own.
func (b *Backend) Keep(v backend.Vector) (backend.Vector, error) {
	done, err := b.bind(PhaseProject)
	if err != nil {
		return nil, err
	}
	defer done()
	dv := v.(*devVec)
	p, err := alloc(4 * int64(dv.n))
	if err != nil {
		return nil, err
	}
	if err := b.copyD2D(p, dv.p, 4*int64(dv.n)); err != nil {
		driver.Free(p)
		return nil, err
	}
	return &devVec{n: dv.n, p: p, owned: true, ws: dv.ws}, nil
}

// NewVector allocates n zeros.
func (b *Backend) NewVector(n int) (backend.Vector, error) {
	done, err := b.bind(PhaseProject)
	if err != nil {
		return nil, err
	}
	defer done()
	p, err := alloc(4 * int64(n))
	if err != nil {
		return nil, err
	}
	if err := b.fill32(p, 0, int64(n)); err != nil {
		driver.Free(p)
		return nil, err
	}
	return &devVec{n: n, p: p, owned: true}, nil
}

// Cut is J on a machine of k PEs at distance 1, computed by the Jet loop's
// cost kernel.
func (b *Backend) Cut(g backend.Graph, part backend.Vector, k int) (int64, error) {
	done, err := b.bind(PhaseRefine)
	if err != nil {
		return 0, err
	}
	defer done()
	j, err := b.newJet(g.(*devGraph), part.(*devVec), backend.FlatTopology(k), 0, refinement.JetConfig{})
	if err != nil {
		return 0, err
	}
	return j.Cost()
}

var _ backend.Multisection = (*Backend)(nil)
