// Package partition is gpumap's graph partitioner: it splits a graph into k
// blocks with individual weight limits while minimising the edge cut. It is
// the workhorse of hierarchical multisection, which calls it once per
// machine-tree node.
//
// Large inputs are partitioned by the multilevel scheme (matching-based
// coarsening, an initial partition of the coarsest graph, then projection
// and localized k-way FM on every level). Initial partitions come from
// recursive bisection whose halves get adaptive imbalance, so that the
// final blocks fit their limits; every bisection of a small graph tries
// several greedy graph-growing starts and polishes each with FM. Limits can
// be exact (eps = 0), as in one-to-one rank mapping.
package partition
