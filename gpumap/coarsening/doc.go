// Package coarsening builds the multilevel hierarchy: matchings rated by
// exp*2(u,v) = w(u,v)^2 / (c(u) c(v)) with deterministic tie-breaking noise,
// contraction of matched pairs into coarse vertices (weights summed, parallel
// edges merged, self loops dropped), and projection of a coarse mapping back
// to the finer graph.
//
// Two matchers are provided. Greedy visits vertices in a seeded random order
// and matches each with its best unmatched neighbour (sequential, the
// strongest per unit of work, used by the CPU partitioner). TwoHop is the
// data-parallel scheme of the GPU process-mapping paper: rounds of
// mutual-preference heavy-edge matching, then, if fewer than 75% of the
// vertices are matched, leaf, twin and relative matching through common
// neighbours. Both honour a cap on the coarse vertex weight.
package coarsening
