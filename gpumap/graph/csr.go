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
	if err := csrShape(xadj, adjncy, vwgt, adjwgt); err != nil {
		return nil, err
	}
	if adjwgt != nil {
		adjwgt = append([]int64(nil), adjwgt...)
	}
	g := csrGraph(append([]int64(nil), xadj...), append([]int32(nil), adjncy...), vwgt, adjwgt)
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// FromCheckedCSR builds a graph from CSR arrays as FromCSR does, but
// trusts them: it checks their shape alone (their lengths, the offsets
// and the vertex limit), neither the neighbours nor the weights (ranges,
// self loops, duplicates, symmetry, signs, totals), and keeps xadj,
// adjncy and adjwgt instead of copying them: the caller must not use
// them after. Only for arrays that were validated as a whole where they
// were built, such as the parts of a distributed graph that its reader
// checked (distmap's gather): a graph that breaks Validate's rules here
// makes the mapper's results undefined. On R-MAT 2^18 FromCSR's copies
// and validation were 11% of gpumap-mpi's rank 1's CPU at P=2.
func FromCheckedCSR(xadj []int64, adjncy []int32, vwgt, adjwgt []int64) (*Graph, error) {
	if err := csrShape(xadj, adjncy, vwgt, adjwgt); err != nil {
		return nil, err
	}
	return csrGraph(xadj, adjncy, vwgt, adjwgt), nil
}

// csrShape checks the lengths and offsets of CSR arrays (FromCSR).
func csrShape(xadj []int64, adjncy []int32, vwgt, adjwgt []int64) error {
	if len(xadj) < 2 {
		return fmt.Errorf("n = %d: the graph needs at least one vertex", len(xadj)-1)
	}
	n := len(xadj) - 1
	if int64(n) > MaxVertices {
		return fmt.Errorf("n = %d exceeds the 32-bit vertex limit %d", n, MaxVertices)
	}
	if xadj[0] != 0 {
		return fmt.Errorf("xadj[0] = %d, want 0", xadj[0])
	}
	for v := 0; v < n; v++ {
		if xadj[v+1] < xadj[v] {
			return fmt.Errorf("xadj decreases at vertex %d: xadj[%d] = %d < xadj[%d] = %d", v, v+1, xadj[v+1], v, xadj[v])
		}
	}
	m := xadj[n]
	switch {
	case m > MaxCSREdges:
		return fmt.Errorf("xadj[n] = %d edge entries exceed the limit %d", m, int64(MaxCSREdges))
	case int64(len(adjncy)) != m:
		return fmt.Errorf("adjncy has %d entries, xadj[n] says %d", len(adjncy), m)
	case vwgt != nil && len(vwgt) != n:
		return fmt.Errorf("vwgt has %d entries for %d vertices", len(vwgt), n)
	case adjwgt != nil && int64(len(adjwgt)) != m:
		return fmt.Errorf("adjwgt has %d entries, xadj[n] says %d", len(adjwgt), m)
	}
	return nil
}

// csrGraph makes a graph of arrays of the right shape (csrShape),
// keeping xadj, adjncy and adjwgt, copying vwgt (nil: all 1).
func csrGraph(xadj []int64, adjncy []int32, vwgt, adjwgt []int64) *Graph {
	n := len(xadj) - 1
	g := &Graph{XAdj: xadj, Adj: adjncy, VW: make([]int64, n)}
	if vwgt != nil {
		copy(g.VW, vwgt)
	} else {
		for i := range g.VW {
			g.VW[i] = 1
		}
	}
	if adjwgt != nil {
		g.SetEdgeWeights(adjwgt)
	}
	return g
}
