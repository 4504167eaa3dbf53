package gpumap

import "github.com/gpumap/gpumap/topology"

// TopDownSplit is the split of top by which the one-process mapper maps
// hub graphs top-down (topDown): upper, the top split's groups as a
// one-level machine, and lower, the machine of one group; ok is false
// where top has no such split (irregular, or a top split into PEs).
// distmap maps hub graphs too large for one process the same way.
func TopDownSplit(top *topology.Topology) (upper, lower *topology.Topology, ok bool) {
	return topDown(top)
}

// GroupEps is the imbalance that lets a group of per PEs holding weight w
// be mapped with at most lmax on each PE, as the one-process top-down
// maps its groups (subEps); -1 where w > per*lmax or w <= 0.
func GroupEps(w int64, per int, lmax int64) float64 { return subEps(w, per, lmax) }
