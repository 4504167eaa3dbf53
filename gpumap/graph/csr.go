package graph

import "fmt"

// MaxCSREdges bounds xadj[n], the number of stored (directed) edges of a
// graph given as CSR arrays, which is checked before anything is copied.
const MaxCSREdges = 1 << 40

// FromCSR builds a graph from 0-based CSR arrays, the input of the C entry
// point gpumap_map_graph (METIS conventions): xadj holds n+1 offsets,
// adjncy the xadj[n] neighbours, vwgt n vertex weights and adjwgt xadj[n]
// edge weights; nil weights mean 1. The arrays are copied and validated
// (see Validate and CheckWeights); errors name vertices and neighbours
// 0-based, as the caller numbers them.
func FromCSR(xadj []int64, adjncy []int32, vwgt, adjwgt []int64) (*Graph, error) {
	if len(xadj) < 2 {
		return nil, fmt.Errorf("n = %d: the graph needs at least one vertex", len(xadj)-1)
	}
	n := len(xadj) - 1
	if int64(n) > MaxVertices {
		return nil, fmt.Errorf("n = %d exceeds the 32-bit vertex limit %d", n, MaxVertices)
	}
	if xadj[0] != 0 {
		return nil, fmt.Errorf("xadj[0] = %d, want 0", xadj[0])
	}
	for v := 0; v < n; v++ {
		if xadj[v+1] < xadj[v] {
			return nil, fmt.Errorf("xadj decreases at vertex %d: xadj[%d] = %d < xadj[%d] = %d", v, v+1, xadj[v+1], v, xadj[v])
		}
	}
	m := xadj[n]
	switch {
	case m > MaxCSREdges:
		return nil, fmt.Errorf("xadj[n] = %d edge entries exceed the limit %d", m, int64(MaxCSREdges))
	case int64(len(adjncy)) != m:
		return nil, fmt.Errorf("adjncy has %d entries, xadj[n] says %d", len(adjncy), m)
	case vwgt != nil && len(vwgt) != n:
		return nil, fmt.Errorf("vwgt has %d entries for %d vertices", len(vwgt), n)
	case adjwgt != nil && int64(len(adjwgt)) != m:
		return nil, fmt.Errorf("adjwgt has %d entries, xadj[n] says %d", len(adjwgt), m)
	}
	g := &Graph{XAdj: append([]int64(nil), xadj...), Adj: append([]int32(nil), adjncy...), VW: make([]int64, n)}
	if vwgt != nil {
		copy(g.VW, vwgt)
	} else {
		for i := range g.VW {
			g.VW[i] = 1
		}
	}
	if adjwgt != nil {
		g.SetEdgeWeights(append([]int64(nil), adjwgt...))
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}
