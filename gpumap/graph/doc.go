// Package graph holds gpumap's task graphs: an undirected graph in extended
// CSR form (offsets, neighbours, edge weights, and on demand the source of
// every edge), with 32-bit vertex ids and 64-bit vertex weights. Edge
// weights are read through Graph.W and stored in the narrowest form that
// holds their total: none when all are 1, 32 bits when the total fits (so
// every sum of them does), 64 bits otherwise, so that byte volumes beyond
// 4 GiB survive.
//
// It reads and writes METIS graph files (every fmt variant, % comments,
// gzip and zstd input), builds graphs from edge lists, and evaluates
// mappings: the communication cost J = sum over undirected edges {u,v} of
// w(u,v) * D(pe(u), pe(v)), the edge cut, the cut per hierarchy level, the
// heaviest block and feasibility against Lmax = ceil((1+eps) c(V) / k).
package graph
