// Package gpumap maps task graphs onto hierarchical machines: given a graph
// whose vertices are tasks (weight = work) and whose edges are
// communication (weight = volume), and a machine a1:a2:...:aL with
// distances d1:...:dL, it assigns every task a PE so that no PE carries
// more than Lmax = ceil((1+eps) c(V)/k) and the communication cost
//
//	J = sum over edges {u,v} of w(u,v) * D(pe(u), pe(v))
//
// is small.
//
// Two algorithms are provided, following the papers in the project's
// bibliography: integrated multilevel mapping (coarsen by matching, map the
// coarsest graph by hierarchical multisection, then project and refine J on
// every level with Jet-style label propagation and rebalancing, plus
// localized FM on the CPU), and hierarchical multisection (partition along
// the machine tree with adaptive imbalance, then refine J). Presets pick
// the algorithm and its effort: Fast, Default and Strong.
//
// When the graph has exactly one unit-weight task per PE (or eps is 0 and
// c(V) = k) the result is a permutation; gpumap then uses exact-balance
// multisection and swap-based refinement, since no single task can move.
//
// Results are deterministic for a given seed and thread count.
package gpumap
