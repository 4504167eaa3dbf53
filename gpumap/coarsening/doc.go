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
//
// Where matching stalls (hubs: a star loses one leaf per level; chains of
// weak edges), Cluster is KaMinPar's size-constrained label propagation:
// each vertex joins the neighbouring cluster it is most connected to while
// the cluster stays under the cap, and leftover singletons are grouped by
// their favourite cluster. Config.Stall turns it on per level, where the
// level's matching keeps more than that fraction of the vertices;
// ContractGroups contracts a clustering as Contract contracts pairs.
package coarsening
