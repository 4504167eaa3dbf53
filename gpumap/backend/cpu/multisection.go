package cpu

import (
	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// Restrict drops the edges between parts, as the GPU does (vertices and
// their weights as they are, edges in their order, weights in the
// parent's form).
func (b *Backend) Restrict(g backend.Graph, part backend.Vector) (backend.Graph, error) {
	pg := g.(hostGraph).g
	p := part.(hostVector)
	n := pg.N()
	sg := &graph.Graph{XAdj: make([]int64, n+1), VW: pg.VW}
	keep := func(v int, e int64) bool { return p[pg.Adj[e]] == p[v] }
	for v := 0; v < n; v++ {
		d := int64(0)
		for e := pg.XAdj[v]; e < pg.XAdj[v+1]; e++ {
			if keep(v, e) {
				d++
			}
		}
		sg.XAdj[v+1] = sg.XAdj[v] + d
	}
	m2 := sg.XAdj[n]
	sg.Adj = make([]int32, 0, m2)
	w32, w64 := pg.Weights()
	var s32 []int32
	var s64 []int64
	switch {
	case w32 != nil:
		s32 = make([]int32, 0, m2)
	case w64 != nil:
		s64 = make([]int64, 0, m2)
	}
	for v := 0; v < n; v++ {
		for e := pg.XAdj[v]; e < pg.XAdj[v+1]; e++ {
			if !keep(v, e) {
				continue
			}
			sg.Adj = append(sg.Adj, pg.Adj[e])
			switch {
			case w32 != nil:
				s32 = append(s32, w32[e])
			case w64 != nil:
				s64 = append(s64, w64[e])
			}
		}
	}
	switch {
	case w32 != nil:
		sg.SetNarrowWeights(s32)
	case w64 != nil:
		sg.SetEdgeWeights(s64)
	}
	return hostGraph{sg}, nil
}

// Weights adds up the vertex weights of every part.
func (b *Backend) Weights(g backend.Graph, part backend.Vector, k int) ([]int64, error) {
	vw := g.(hostGraph).g.VW
	w := make([]int64, k)
	for v, p := range part.(hostVector) {
		w[p] += vw[v]
	}
	return w, nil
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
