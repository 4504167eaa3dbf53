// Package features measures cheap properties of a task graph that decide
// how the mapper treats it when the caller leaves the algorithm to it
// (gpumap.AutoAlgorithm): the spread of the vertex degrees and how fast
// heavy-edge matching shrinks the graph's edges.
//
// Four kinds come out of them (see Kind):
//
//   - Skewed: degrees spread widely (hubs) and matching leaves most edges
//     in place (power-law and circuit graphs). Every vertex is near a
//     boundary and moving a hub touches many neighbours, so FM costs a lot
//     and gains little there; label propagation alone is used.
//   - Hubs: skewed, and matching leaves about half the vertices unmatched
//     (R-MAT, web and social graphs: a long tail of vertices hangs off a
//     few hubs, and matched pairs cannot form among them). Multisection
//     coarsens them badly; the integrated pipeline, whose coarsest graph
//     and every level are refined on the mapping objective, measured 30-50%
//     lower J on R-MAT graphs.
//   - DenseBlocks: matching removes edges much faster than vertices, as in
//     graphs made of many dense blocks (financial and optimisation
//     models). The integrated pipeline (IM), which refines the whole
//     mapping on every level, measured better there than the multisection.
//   - Regular: everything else (meshes, geometric graphs, stencils).
//
// Measuring costs one degree pass and two levels of greedy matching and
// contraction, deterministic for any thread count. DenseDegree, apart from
// the kinds, tells dense rows (FM's work per edge onto k blocks) from one
// pass over the degrees.
package features
