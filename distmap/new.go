package distmap

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// New builds this rank's part of a distributed graph from ParMETIS-style
// arrays: vtxdist (size+1 offsets, the same on every rank) gives each rank
// its range of global vertex ids; xadj (n+1 offsets; nil where the rank
// owns no vertex) and adjncy (global ids) list the neighbours of the
// local vertices, vwgt and adjwgt their weights (nil: all 1). Every undirected edge must be listed by both
// endpoints' owners with the same weight. Collective over c; the graph
// keeps c, which must stay valid until the graph is no longer used. Every
// rank returns the same error, naming global vertex ids (0-based), of the
// same Kind (KindOf): KindGraph for the arrays, KindInconsistent for a
// vtxdist that differs between ranks.
func New(c mpi.Comm, vtxdist, xadj, adjncy, vwgt, adjwgt []int64) (*Graph, error) {
	if err := unusable(c); err != nil {
		return nil, err
	}
	defer func() { abortOnPanic(c, recover()) }()
	_, _, _, size, rank := mpi.Inspect(c)
	if err := checkVtxdistAll(c, vtxdist, size, rank); err != nil {
		return nil, err
	}
	if xadj == nil && vtxdist[rank+1] == vtxdist[rank] {
		xadj = []int64{0} // a rank without vertices passes nil, as C passes NULL
	}
	err := checkArrays(vtxdist, rank, xadj, adjncy, vwgt, adjwgt)
	if err := agree(c, kindError(KindGraph, err)); err != nil {
		return nil, err
	}
	n := vtxdist[rank+1] - vtxdist[rank]
	vw := make([]int64, n)
	for v := range vw {
		vw[v] = 1
		if vwgt != nil {
			vw[v] = vwgt[v]
		}
	}
	// Without adjwgt every weight is 1: the graph stores none.
	w := slices.Clone(adjwgt)
	g, err := build(c, append([]int64(nil), vtxdist...), append([]int64(nil), xadj...), adjncy, w, vw)
	if err != nil {
		return nil, err
	}
	if err := check(g); err != nil {
		return nil, err
	}
	return g, nil
}

// CheckVtxdist is the first step of New: collective over c, it fails on
// every rank with the same error unless vtxdist has one entry per rank
// and one more, starts at 0, never decreases and is the same on every
// rank. A caller that must know its local vertex count before it can
// hand over its arrays (the C call, which reads them from C memory)
// checks vtxdist first.
func CheckVtxdist(c mpi.Comm, vtxdist []int64) error {
	if err := unusable(c); err != nil {
		return err
	}
	_, _, _, size, rank := mpi.Inspect(c)
	return checkVtxdistAll(c, vtxdist, size, rank)
}

func checkVtxdistAll(c mpi.Comm, vtxdist []int64, size, rank int) error {
	if err := agree(c, kindError(KindGraph, checkVtxdist(vtxdist, size, rank))); err != nil {
		return err
	}
	// The same vtxdist everywhere: rank 0's is compared with each rank's.
	return sameAsRoot(c, vtxdist, func(i int, mine, root int64) string {
		return fmt.Sprintf("rank %d: vtxdist[%d] = %d differs from rank 0's %d: every rank must pass the same vtxdist", rank, i, mine, root)
	})
}

func checkVtxdist(vtxdist []int64, size, rank int) error {
	if len(vtxdist) != size+1 {
		return fmt.Errorf("rank %d: vtxdist has %d entries for %d ranks (want %d)", rank, len(vtxdist), size, size+1)
	}
	if vtxdist[0] != 0 {
		return fmt.Errorf("rank %d: vtxdist[0] is %d, not 0", rank, vtxdist[0])
	}
	for r := 0; r < size; r++ {
		if vtxdist[r+1] < vtxdist[r] {
			return fmt.Errorf("rank %d: vtxdist decreases: vtxdist[%d] = %d > vtxdist[%d] = %d", rank, r, vtxdist[r], r+1, vtxdist[r+1])
		}
	}
	if vtxdist[size] > math.MaxInt64/4 {
		return fmt.Errorf("rank %d: vtxdist[%d] = %d vertices is too many", rank, size, vtxdist[size])
	}
	return nil
}

// checkArrays validates this rank's CSR arrays; errors name the rank and
// global vertex ids.
func checkArrays(vtxdist []int64, rank int, xadj, adjncy, vwgt, adjwgt []int64) error {
	first, n, total := vtxdist[rank], vtxdist[rank+1]-vtxdist[rank], vtxdist[len(vtxdist)-1]
	if int64(len(xadj)) != n+1 {
		return fmt.Errorf("rank %d: xadj has %d entries for %d local vertices (want %d)", rank, len(xadj), n, n+1)
	}
	if xadj[0] != 0 || xadj[n] != int64(len(adjncy)) {
		return fmt.Errorf("rank %d: xadj must run from 0 to len(adjncy) = %d, not %d to %d", rank, len(adjncy), xadj[0], xadj[n])
	}
	if vwgt != nil && int64(len(vwgt)) != n {
		return fmt.Errorf("rank %d: vwgt has %d entries for %d local vertices", rank, len(vwgt), n)
	}
	if adjwgt != nil && len(adjwgt) != len(adjncy) {
		return fmt.Errorf("rank %d: adjwgt has %d entries for %d in adjncy", rank, len(adjwgt), len(adjncy))
	}
	// Monotonic first: a vertex's edges past a later xadj entry belong to
	// the next vertices (reported as their self loops) or past adjncy.
	for v := int64(0); v < n; v++ {
		if xadj[v+1] < xadj[v] {
			return fmt.Errorf("rank %d: xadj decreases at local vertex %d (global %d)", rank, v, first+v)
		}
	}
	for v := int64(0); v < n; v++ {
		if vwgt != nil && vwgt[v] < 0 {
			return fmt.Errorf("vertex %d has negative weight %d", first+v, vwgt[v])
		}
		for e := xadj[v]; e < xadj[v+1]; e++ {
			u := adjncy[e]
			switch {
			case u < 0 || u >= total:
				return fmt.Errorf("vertex %d: neighbour %d is out of range [0,%d]", first+v, u, total-1)
			case u == first+v:
				return fmt.Errorf("vertex %d: self loop", first+v)
			case adjwgt != nil && adjwgt[e] < 0:
				return fmt.Errorf("vertex %d: edge to %d has negative weight %d", first+v, u, adjwgt[e])
			}
		}
	}
	return nil
}
