package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// sparseRatio: a regular machine with more than sparseRatio PEs per vertex
// is mapped onto a prefix of itself.
const sparseRatio = 4

// sparseMachine returns, for a regular machine with more than sparseRatio
// PEs per vertex, the smallest prefix of it that still holds every vertex
// on a PE of its own and c(V) within the original Lmax: its first t
// level-j groups (inside the first level-(j+1) group), as the hierarchy
// a1:...:aj:t with the same distances, and the imbalance that gives the
// same Lmax on it. PE p of the prefix is PE p of the machine, at the same
// distances, so a mapping onto the prefix is one onto the machine. Putting
// everything into the smallest group that can hold it is also what a
// hierarchy with distances growing upwards rewards; multisection over the
// whole machine would spread the vertices over its top-level groups, and
// its tables grow with k (16 GiB for 2^31 PEs). ok is false when the
// machine is a tree, not sparse, or the Lmax cannot be matched.
func sparseMachine(top *topology.Topology, n int, total int64, eps float64) (*topology.Topology, float64, bool) {
	arity, regular := top.Arity()
	k := top.K()
	if !regular || int64(k) <= sparseRatio*int64(n) || total <= 0 {
		return nil, 0, false
	}
	lmax := graph.Lmax(total, k, eps)
	need := max(int64(n), (total+lmax-1)/lmax)
	span := int64(1)
	for j, a := range arity {
		if t := (need + span - 1) / span; t <= int64(a) {
			if t*span >= int64(k) {
				return nil, 0, false
			}
			sub := append(append([]int(nil), arity[:j]...), int(t))
			r, err := topology.NewRegular(sub, top.Distances()[:j+1])
			if err != nil {
				return nil, 0, false
			}
			// The imbalance that gives the same Lmax on t*span PEs.
			e := graph.EpsFor(total, r.K(), lmax)
			if e < 0 || graph.Lmax(total, r.K(), e) != lmax {
				return nil, 0, false
			}
			return r, e, true
		}
		span *= int64(a)
	}
	return nil, 0, false
}
