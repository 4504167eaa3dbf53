package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// TopDownSplit is the split of top by which the one-process mapper maps
// hub graphs top-down (topDown): upper, the top split's groups as a
// one-level machine, and lower, the machine of one group; ok is false
// where top has no such split (irregular, or a top split into PEs).
// distmap maps hub graphs too large for one process the same way.
func TopDownSplit(top *topology.Topology) (upper, lower *topology.Topology, ok bool) {
	return topDown(top)
}

// MapGroup maps s, the subgraph of one group of TopDownSplit's upper
// machine, onto lower as the one-process mapper maps its groups: by
// default's IM, each PE holding at most lmax, the whole machine's Lmax;
// ok is false where the group is heavier than its PEs may hold or its
// mapping is infeasible. distmap maps its gathered groups with it.
func MapGroup(s *graph.Graph, lower *topology.Topology, seed uint64, threads int, lmax int64) (pe []int32, ok bool, err error) {
	return mapGroup(s, lower, seed, threads, lmax, nil)
}
