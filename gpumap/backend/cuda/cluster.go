package cuda

import (
	"errors"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/runstat"
)

// Cluster is the CPU backend's clustering (coarsening.Cluster, then
// ContractGroups) run on the host. The device has no clustering kernel,
// and a mapping must not depend on the backend, so where the integrated
// pipeline asks for clustering (integrated.Config.Cluster: the default
// preset on power-law graphs) a level goes to the host and its coarse
// graph comes back. The host's work is measured into HostOther (the
// estimate's total), the transfers into the model's counts.
func (b *Backend) Cluster(g backend.Graph, maxWeight int64, seed uint64) (backend.Graph, backend.Vector, error) {
	done, err := b.bind(PhaseContract)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	dg := g.(*devGraph)
	h, err := b.download(dg)
	if err != nil {
		return nil, nil, err
	}
	var cmap []int32
	var coarse *graph.Graph
	_, alone := runstat.Timed(func() {
		var gr coarsening.Groups
		cmap, gr = coarsening.ClusterMap(coarsening.Cluster(h, maxWeight, seed, nil, false))
		coarse = coarsening.ContractGroups(par.New(1), h, cmap, gr)
	})
	b.AddHost(HostOther, alone)
	return b.upload(coarse, cmap, dg.ws)
}

// upload puts a coarse graph made on the host, and its fine-to-coarse map,
// on the device, in the workspace of the input graph it derives from.
func (b *Backend) upload(h *graph.Graph, cmap []int32, ws *workspace) (backend.Graph, backend.Vector, error) {
	w32, w64, wb := weights(h)
	n, m2 := h.N(), h.DirectedEdges()
	cg, err := newGraph(n, m2, wb, ws)
	if err != nil {
		return nil, nil, err
	}
	cp, err := alloc(4 * int64(len(cmap)))
	if err != nil {
		driver.Free(cg.block)
		return nil, nil, err
	}
	for _, c := range []struct {
		p driver.Ptr
		h unsafe.Pointer
		n int64
	}{{cg.xadj, unsafe.Pointer(&h.XAdj[0]), 8 * int64(n+1)}, {cg.vw, ptr64(h.VW), 8 * int64(n)}, {cg.adj, ptr32(h.Adj), 4 * m2},
		{cg.ew32, ptr32(w32), 4 * int64(len(w32))}, {cg.ew64, ptr64(w64), 8 * int64(len(w64))}, {cp, ptr32(cmap), 4 * int64(len(cmap))}} {
		if err = b.copyIn(c.p, c.h, c.n, false); err != nil {
			break
		}
	}
	if err == nil {
		err = b.loop("edge_sources", int64(n), 8*int64(n+1)+4*m2, driver.P(cg.xadj), driver.P(cg.src), driver.I32(int32(n)))
	}
	if err != nil {
		driver.Free(cg.block)
		return nil, nil, errors.Join(err, driver.Free(cp))
	}
	return cg, &devVec{n: len(cmap), p: cp, owned: true, ws: ws}, nil
}

var _ backend.Clusterer = (*Backend)(nil)
