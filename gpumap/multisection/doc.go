// Package multisection maps a task graph by hierarchical multisection: the
// graph is partitioned into one block per top-level group of the machine
// (nodes), every block again into the groups below it (sockets), and so on
// down to the PEs, so that the edge cut of each step is exactly the
// communication that crosses that level.
//
// Every step gets the adaptive imbalance of SharedMap,
//
//	eps' = ((1+eps) * k' c(V) / (k c(V')))^(1/d) - 1,
//
// where V' is the subgraph, k' its PEs and d the levels still to split, so
// the slack is shared out and the final PEs meet Lmax. Irregular machines
// work the same way: children are weighted by their PE counts. Independent
// subproblems run concurrently.
package multisection
