// Package report draws where the traffic goes: the communication matrix of
// a placement aggregated on the groups of one machine level (nodes by
// default, or sockets, switches, PEs) as a heat map in plain SVG, with J
// and the cut per level in the caption. Several placements of the same
// traffic (before and after a reordering) are drawn side by side on one
// colour scale.
//
// The SVG is written by hand (no plotting package) and opens in any
// browser. Every cell carries its exact value in data-row, data-col and
// data-value attributes, and every panel its level, J and cut per level
// in data-* attributes, so the picture can be checked by a program: the
// cells of a panel above the diagonal add up to the cut of its level,
// the CutPerLevel of graph.Evaluate.
//
// Users: gpumap eval --svg, gpumap place, and GPUMAP_REPORT=out.svg in the
// MPI path (mpirank).
package report
