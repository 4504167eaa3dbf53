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
//  1. Coarsening, with one of two clusterings, chosen once for the whole
//     hierarchy. (a) Size-constrained label propagation clusters the
//     vertices (each joins the neighbouring cluster its edges weigh most
//     towards, a cluster weighing at most c(V)/C, C = the coarsest size
//     below); each rank visits its vertices in a seeded random order (in
//     shuffled blocks of 2^14 consecutive ids where the numbering has
//     locality, for the cache) and
//     knows only the weights of the clusters it sees (ParHIP's local
//     bookkeeping; on skewed degrees, where every rank joins the hubs'
//     clusters at once, a rank fills at most 1/P of a cluster's room).
//     (b) gpumap's greedy heavy-edge matching (exp*2
//     rating, natural order), the one-process matching across the
//     ranks' boundaries too: each rank matches its vertices, those of
//     later ranks allowed as partners, and sends these claims to their
//     owners, which match again with the claimed vertices taken, until
//     no claim changes (at most P passes); a level whose
//     matching keeps more than 80% of the vertices is clustered as in
//     (a). (b) is chosen where the numbering has locality (most edges
//     join ids less than 2 sqrt(n) apart, the one-process mapper's test
//     for natural order) and one round of (a) on the input leaves more
//     than a quarter of the vertices as clusters (the round pauses once
//     every rank's unmoved vertices make that certain; a mesh: its matchings
//     keep straight cuts; a geometric graph's dense regions shrink 5-7x
//     in one round and label propagation follows them); where (b) is
//     chosen, (a)'s hierarchy is built too and the one that leaves less
//     edge weight exposed at the larger coarsest size is kept (finan512:
//     its matchings pair vertices across its dense blocks). A road (mean
//     degree below sparseDegree) whose numbering leaves at most 5% of its
//     entries across the ranks is coarsened by (a) alone, which won every
//     such duel measured (roadsMatch). Under either,
//     each rank then groups its isolated vertices that stayed alone into
//     clusters of consecutive ids up to the same weight bound (no edge
//     joins them otherwise). Either way the
//     clusters are contracted in parallel: cluster l becomes a coarse
//     vertex owned by l's owner; coarse vertices are summed where their
//     fine vertices are, arcs of coarse vertices owned elsewhere merged
//     and sent. This repeats until at most C vertices remain, or a level
//     keeps more than 90% of them: C = max(8000, 20k), and under (b) at
//     least n/16 (up to 2^17), where the one-process mapper finds the
//     mesh's straight cuts that distributed refinement only approaches.
//     A graph of at most 2^17 vertices is not coarsened: every rank
//     gathers it (gpumap-mpi: every rank reads such a file whole with
//     gpumap map's reader while MPI_Init runs, rank 0's graph sent where
//     a rank's differs, and starts its pipelines there on the rank and
//     size that the launcher names, used only where every rank's guess
//     proves right: StartWhole), and the pipelines that gpumap.Map would run side by
//     side (gpumap.Split: default's HM and IM below 2^19 edges, else its
//     one pipeline) are dealt out, rank r running pipeline r mod C with
//     the seed plus r/C (P = 1: gpumap.Map itself; where Map duels HM and
//     IM, rank 2i's HM gets rank 2i+1's IM mapping whenever it comes,
//     goes on meanwhile, and stops where Map would, gpumap.MapDuel); the least J wins as
//     below, and no refinement follows. At P >= C that is the
//     one-process mapping or a better one, in about its -t C wall time.
//     So is a hub graph (degree CV at least gpumap.HubCV, one
//     allreduce) of up to 2^21 vertices and 2^25 adjacency entries,
//     read in parts and gathered: the one-process mapper maps it
//     top-down, which the distributed levels do not approach (R-MAT
//     2^18 at P=2: J 1.43x the one-process J); and, within the same
//     bounds under the default preset, a graph of skewed degrees (CV at
//     least features.SkewedCV among the vertices with an edge:
//     skewedWhole), on which label propagation stalls (LP models: the
//     coarsest graph's mapping took about the one-process run). Larger hub graphs map
//     top-down across the ranks under the default preset (topdown.go): these steps map the graph
//     onto the groups of the machine's top split alone, then each
//     group's subgraph is gathered onto one rank and mapped there by
//     gpumap.Map onto the group's machine (R-MAT 2^21, 1.05M vertices,
//     onto 4:8:6 at P=2, when the bound was 2^20 vertices: J 1.011x the
//     one-process J, 1.73x through these steps onto the whole machine,
//     in 3.2x its wall; P=4 did not finish in 37 minutes: hubWhole).
//     A road (mean degree below sparseDegree) or mesh (degree CV below
//     meshCV) within those bounds whose numbering leaves more than
//     spreadMax of its entries across the ranks is first gathered and
//     numbered breadth-first (mapRenumbered), and its mapping returned
//     in its own order.
//  2. Initial mapping. Every rank gathers the coarsest graph
//     (Allgatherv) and maps it with gpumap.Map and seed+rank; with the
//     default preset and two ranks or more, even ranks use HM and odd
//     ones IM, ranks 2i and 2i+1 with seed+i (default's Map runs both
//     below 2^18 edges: the ranks split that work; where Map would duel
//     them, they duel as above: duelFirst). The least J wins (one MPI_MINLOC allreduce; feasible
//     mappings before infeasible ones) and is broadcast. This replaces
//     the paper's edge-cut partition placed block b on PE b.
//  3. Uncoarsening. Each level's mapping is projected to the finer graph
//     and improved by the Jet loop of the one-process IM
//     (refinement.RunJet), run over all ranks: label propagation on J
//     that ignores balance (a vertex moves to the PE among its
//     neighbours' that lowers sum w(v,u) D(pe, pe(u)) most, distances
//     from the topology's bit labels), an afterburner that prices each
//     candidate with the candidates ranked before it moved (their
//     destinations and gains come with one exchange), weak and strong
//     rebalancing whose choices, prefixes of (PE, loss bucket, global id)
//     orders, are cut with an allreduce of bucket weights and a scan over
//     the ranks, and the best balanced mapping kept: refinement.Jet's
//     mapping of the whole level, at any P. Its moves at a loss leave the
//     local minima where moves that each lower J stop (finan512-like
//     dense blocks: J 1.07-1.24x the one-process J with two rounds of
//     label propagation instead, 0.88-1.03x with Jet). A coarse level
//     that enters above Lmax gets two rounds of label propagation
//     instead (Jet would keep its least overloaded mapping at any J, for
//     an excess its heavy vertices keep); the input's level, balanced
//     first, stops after 4 iterations without progress. Then, unless the
//     degrees are skewed (degree CV at least features.SkewedCV),
//     distributed FM: every rank runs gpumap's localized FM on J
//     (gpumap/refinement; one round, as the one-process mapper's final
//     FM) over a graph of its own vertices and its ghosts, the ghosts
//     fixed, with a share of every PE's room below Lmax = ceil((1+eps)
//     c(V)/k) in proportion to its own weight in that PE, plus what it
//     moved out of it, so no PE can pass Lmax; it makes the moves that
//     pay only after others, which Jet's label propagation cannot. Two
//     ranks that move both ends of an edge priced each move with the
//     other end where it was: the true change of J is the sum of the
//     predicted ones plus a correction on those edges, one allreduce; if
//     J did not fall, every rank takes its moves back. On skewed degrees
//     two rounds of label propagation on J (balance kept exactly with the
//     same shares of the room, from the loads summed over all ranks)
//     come before the Jet loop, and no FM: there nearly every vertex is
//     on the boundary and hardly a move pays alone (R-MAT 2^18: J 1.33x
//     the one-process J with label propagation alone, 0.82x with Jet).
//
// At P = 1 the same code runs (the "ghosts" are none, and the FM is the
// one-process FM on the whole level).
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
