package cuda

import (
	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// The kernels of hierarchical multisection (kernels/gpumap.cu, section
// "hierarchical multisection").
func init() {
	kernelNames = append(kernelNames, "sub_flags", "sub_degree", "sub_fill", "sub_place")
}

// Extract builds the subgraph of part c on the device (the paper's
// Algorithm 1): a scan numbers its vertices, a second one lays out their
// kept edges, and a third sums its vertex weights. It shares the input
// graph's workspace (a subgraph is never larger) and counts as
// contraction in Stats. The host reads three totals.
func (b *Backend) Extract(g backend.Graph, orig, part backend.Vector, c int32) (backend.Graph, backend.Vector, int64, error) {
	done, err := b.bind(PhaseContract)
	if err != nil {
		return nil, nil, 0, err
	}
	defer done()
	dg := g.(*devGraph)
	ws := dg.ws
	n, m2 := int64(dg.n), dg.m2
	pp := part.(*devVec).p
	var op driver.Ptr
	if orig != nil {
		op = orig.(*devVec).p
	}
	if err := b.loop("sub_flags", n, 12*n, driver.P(pp), driver.I32(c), driver.P(ws.flags), driver.I32(int32(n))); err != nil {
		return nil, nil, 0, err
	}
	ns, err := b.scan(ws, ws.flags, n, true)
	if err != nil {
		return nil, nil, 0, err
	}
	// Members read their edges and their neighbours' parts: about the
	// part's share of the edges.
	memberEdges := m2 * ns / max(n, 1)
	if err := b.loop("sub_degree", n, 4*n+24*ns+8*memberEdges, driver.P(dg.xadj), driver.P(dg.adj), driver.P(pp), driver.I32(c),
		driver.P(ws.flags), driver.P(ws.off), driver.I32(int32(n))); err != nil {
		return nil, nil, 0, err
	}
	m2s, err := b.scan(ws, ws.off, ns, true)
	if err != nil {
		return nil, nil, 0, err
	}
	sg, err := newGraph(int(ns), m2s, dg.wb, ws)
	if err != nil {
		return nil, nil, 0, err
	}
	sorig, err := alloc(4 * ns)
	if err != nil {
		driver.Free(sg.block)
		return nil, nil, 0, err
	}
	fail := func(err error) (backend.Graph, backend.Vector, int64, error) {
		driver.Free(sg.block)
		driver.Free(sorig)
		return nil, nil, 0, err
	}
	if err := b.copyD2D(sg.xadj, ws.off, 8*(ns+1)); err != nil {
		return fail(err)
	}
	if err := b.loop("sub_fill", n, 4*n+48*ns+(16+2*dg.wb)*memberEdges+(4+dg.wb)*m2s, driver.P(dg.xadj), driver.P(dg.adj),
		driver.P(dg.ew32), driver.P(dg.ew64), driver.P(dg.vw), driver.P(op), driver.P(pp), driver.I32(c), driver.P(ws.flags),
		driver.P(sg.xadj), driver.P(sg.adj), driver.P(sg.ew32), driver.P(sg.ew64), driver.P(sg.vw), driver.P(sorig),
		driver.I32(int32(n))); err != nil {
		return fail(err)
	}
	if err := b.loop("edge_sources", ns, 16*ns+4*m2s, driver.P(sg.xadj), driver.P(sg.src), driver.I32(int32(ns))); err != nil {
		return fail(err)
	}
	// The part's weight, for the adaptive imbalance of its split.
	if err := b.copyD2D(ws.cvw, sg.vw, 8*ns); err != nil {
		return fail(err)
	}
	w, err := b.scan(ws, ws.cvw, ns, true)
	if err != nil {
		return fail(err)
	}
	return sg, &devVec{n: int(ns), p: sorig, owned: true, ws: ws}, w, nil
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
