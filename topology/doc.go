// Package topology models the machine a task graph is mapped onto: a tree of
// hierarchy levels (PE, socket, node, rack, ...) with one communication
// distance per level.
//
// Conventions (shared with the papers in the project's bibliography):
//
//   - A regular hierarchy is written a1:a2:...:aL with a1 innermost: a1 PEs
//     per socket, a2 sockets per node, a3 nodes, and so on. There are
//     k = a1*a2*...*aL processing elements (PEs), numbered 0..k-1 so that PE
//     p belongs to the level-i group p / (a1*...*ai).
//   - Distances are written d1:d2:...:dL. Two distinct PEs that share a
//     socket are d1 apart, two that share a node but not a socket d2 apart,
//     and so on; a PE is 0 away from itself.
//   - An irregular machine (nodes with different slot counts, sockets of
//     unequal size) is a general tree with the same level structure; it has
//     the same API.
//
// Distances are answered in O(1) time from bit labels: every PE gets a label
// whose bit fields hold its child index at each level, so that the highest
// set bit of label(p) XOR label(q) names the level of the lowest common
// ancestor (one count-leading-zeros instruction and a 64-entry table). A
// regular hierarchy needs O(L) memory for this; labels are computed on
// demand and callers that query many distances cache them per PE.
package topology
