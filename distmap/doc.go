// Package distmap maps graphs that are spread over the processes of an
// MPI program onto a machine hierarchy: the distributed-memory mapper of
// issue 24, after ParHIP map ("parallel hierarchical mapping", in
// ../shared/papers), with gpumap's own mapper on the coarsest graph.
//
// The graph is a distributed CSR (Graph): each rank owns a contiguous
// range of global vertex ids (vtxdist, 64-bit), all edges of its vertices,
// and ghost copies of their other endpoints, whose values (cluster labels,
// PEs) it receives from their owners with one Alltoallv per round.
//
// Map runs one multilevel cycle:
//
//  1. Coarsening. Size-constrained label propagation clusters the vertices
//     (each joins the neighbouring cluster its edges weigh most towards, a
//     cluster weighing at most c(V)/C, C = the coarsest size below); each
//     rank visits its vertices in a seeded random order and knows only the
//     weights of the clusters it sees (ParHIP's local bookkeeping). The
//     clusters are contracted in parallel: cluster l becomes a coarse
//     vertex owned by l's owner, coarse edges are merged where they start
//     and then at their owner. This repeats until at most C = max(8000,
//     20k) vertices remain, or a level keeps more than 90% of them.
//  2. Initial mapping. Every rank gathers the coarsest graph (Allgatherv)
//     and maps it with gpumap.Map and seed+rank (below 4 ranks, each
//     tries several seeds, so that there are at least 4 tries); the least
//     J wins (one MPI_MINLOC allreduce; feasible mappings before
//     infeasible ones) and is broadcast. This replaces the paper's edge-cut partition placed
//     block b on PE b.
//  3. Uncoarsening. Each level's mapping is projected to the finer graph
//     and improved by label propagation on J: a vertex moves to the PE
//     among its neighbours' that lowers sum w(v,u) D(pe, pe(u)) most,
//     distances from the topology's bit labels. Balance is kept exactly:
//     each round starts from the loads summed over all ranks, and a rank
//     may add to a PE at most 1/P of its room below Lmax = ceil((1+eps)
//     c(V)/k) plus what it moved out of it, so no PE can pass Lmax.
//     Levels of at most 16 times the coarsest size are first gathered and
//     refined by gpumap's FM on J on every rank (own seed, least J kept):
//     it makes the moves that pay only after others, which label
//     propagation cannot.
//
// Determinism: random orders come from the seed, the level, the round and
// the rank; ties go to the smaller label; merges sort completely; the
// messages of a collective land in rank order. So the same P, seed and
// input give the same mapping, whatever the timing of the messages.
// Ranks without vertices take part in every collective.
//
// All MPI calls go through package mpi (mpirank/mpi) on the caller's
// thread; gpumap.Map's goroutines never call MPI. Every error is agreed on
// (the lowest failing rank's message is broadcast), so every rank returns
// the same one.
package distmap
