package cpu

import (
	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// Extract builds the subgraph of part c the way the GPU does (vertices in
// increasing order, edges in their order, weights in the parent's form).
func (b *Backend) Extract(g backend.Graph, orig, part backend.Vector, c int32) (backend.Graph, backend.Vector, int64, error) {
	pg := g.(hostGraph).g
	p := part.(hostVector)
	var o hostVector
	if orig != nil {
		o = orig.(hostVector)
	}
	id := make([]int32, pg.N())
	var ns int32
	var m2 int64
	for v := range p {
		if p[v] == c {
			id[v] = ns
			ns++
			for e := pg.XAdj[v]; e < pg.XAdj[v+1]; e++ {
				if p[pg.Adj[e]] == c {
					m2++
				}
			}
		}
	}
	sg := &graph.Graph{XAdj: make([]int64, ns+1), Adj: make([]int32, 0, m2), VW: make([]int64, 0, ns)}
	so := make(hostVector, 0, ns)
	w32, w64 := pg.Weights()
	var s32 []int32
	var s64 []int64
	var w int64
	for v := range p {
		if p[v] != c {
			continue
		}
		for e := pg.XAdj[v]; e < pg.XAdj[v+1]; e++ {
			if u := pg.Adj[e]; p[u] == c {
				sg.Adj = append(sg.Adj, id[u])
				switch {
				case w32 != nil:
					s32 = append(s32, w32[e])
				case w64 != nil:
					s64 = append(s64, w64[e])
				}
			}
		}
		sg.XAdj[len(sg.VW)+1] = int64(len(sg.Adj))
		sg.VW = append(sg.VW, pg.VW[v])
		w += pg.VW[v]
		if o != nil {
			so = append(so, o[v])
		} else {
			so = append(so, int32(v))
		}
	}
	switch {
	case w32 != nil:
		sg.SetNarrowWeights(append([]int32{}, s32...))
	case w64 != nil:
		sg.SetEdgeWeights(append([]int64{}, s64...))
	}
	return hostGraph{sg}, so, w, nil
}

// Place writes a subgraph's split into the PEs of the input's vertices.
func (b *Backend) Place(pe, orig, part backend.Vector, base, stride int32) error {
	out := pe.(hostVector)
	n := 0
	if orig != nil {
		n = orig.Len()
	}
	if part != nil {
		n = part.Len()
	}
	for v := 0; v < n; v++ {
		t := int32(v)
		if orig != nil {
			t = orig.(hostVector)[v]
		}
		q := int32(0)
		if part != nil {
			q = part.(hostVector)[v]
		}
		out[t] = base + stride*q
	}
	return nil
}

// Keep copies v.
func (b *Backend) Keep(v backend.Vector) (backend.Vector, error) {
	return append(hostVector(nil), v.(hostVector)...), nil
}

// NewVector returns n zeros.
func (b *Backend) NewVector(n int) (backend.Vector, error) { return make(hostVector, n), nil }

// Cut is J on a machine of k PEs at distance 1.
func (b *Backend) Cut(g backend.Graph, part backend.Vector, k int) (int64, error) {
	obj := refinement.Mapping(backend.FlatTopology(k))
	return obj.CostParallel(b.x, g.(hostGraph).g, part.(hostVector)), nil
}

var _ backend.Multisection = (*Backend)(nil)
