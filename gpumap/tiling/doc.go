// Package tiling maps structured grids one task per PE without a
// partitioner. Detect recognises a graph that is exactly a d-dimensional
// grid numbered in row- or column-major order (the rank order of a
// Cartesian stencil code, periodic or not in each dimension, one edge
// weight per dimension);
// Best chooses, among every hierarchical tiling in which each level cuts
// every box of the level above into the same number of equal boxes, the
// one of least J, by dynamic programming over the levels on J's closed
// form:
//
//	C_i = sum_j w_j (Q_ij - 1) n / n_j
//	J   = sum_i d_i (C_{i-1} - C_i)
//
// where Q_ij is the number of slabs along dimension j at level i (level-i
// groups are Q_i1 x ... x Q_ir boxes; on a ring Q_ij slabs cut Q_ij planes,
// not Q_ij - 1, unless Q_ij = 1), C_i the weight of the edges between
// level-i groups (C_0 all edges, C_L = 0) and n_j the extent of dimension
// j. Map builds that tiling's mapping in O(n L d); LowerBound bounds J
// from below over all mappings (bound.go), which proves a tiling optimal
// when they meet.
package tiling
