// Package refinement improves a mapping (or a partition) of a graph onto
// blocks. Every algorithm here works on a State: the graph, the block of
// every vertex, the block weights and limits, and an Objective, which is
// either the edge cut or the communication cost J with the hierarchical
// distances of a topology (answered from bit labels in O(1)).
//
// The gain of moving v from its block p to block b is
//
//	G_b(v) = sum_{u in N(v)} w(v,u) * (D(p, part(u)) - D(b, part(u)))
//
// computed from v's connectivity to its adjacent blocks.
//
// Sequential algorithms (localized k-way FM with rollback, size-constrained
// label propagation, greedy rebalancing and pair swaps for one-to-one
// mappings) give the quality; the data-parallel ones in jet*.go (Jet-style
// unconstrained label propagation with the afterburner and vertex locking,
// weak and strong rebalancing, and the refinement loop that keeps the best
// feasible mapping) are the ones a GPU backend mirrors.
package refinement
