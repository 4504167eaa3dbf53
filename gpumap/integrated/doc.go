// Package integrated is the integrated multilevel mapper (IM): it coarsens
// the task graph by matching, maps the coarsest graph by hierarchical
// multisection, and projects the mapping back level by level, refining the
// communication cost J itself (not a cut) on every level.
//
// The same uncoarsening machinery runs V-cycles on an existing mapping:
// coarsening that only merges vertices of the same PE keeps the mapping
// intact, so coarse levels can move whole clusters between PEs, nodes and
// racks at once.
package integrated
