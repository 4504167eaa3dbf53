// Package kway splits small graphs into many blocks by deep multilevel
// partitioning (one coarsening, blocks bisected on the way up as the
// levels give them enough vertices, k-way refinement on every level): the
// splits of wide machines into groups of a few dozen vertices, where
// recursive bisection by the multilevel partitioner costs most of the time.
package kway
