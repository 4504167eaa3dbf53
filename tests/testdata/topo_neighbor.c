/*
 * topo_neighbor: neighbourhood collectives (MPI_Neighbor_allgather,
 * MPI_Neighbor_alltoall, MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoall)
 * on a periodic 2x3 Cartesian grid (dimension 0 has two points: both of
 * its neighbours are the same process), on the dist-graph test graph and
 * on an MPI_Graph_create grid. Every received block is checked against
 * the sender's rank and the block it sent.
 *   topo_neighbor [reorder]
 */
#include "topocheck.h"

/* value sent by rank s in its block b; an MPI_PROC_NULL neighbour leaves
 * the receive block as it was (-9) */
static int val(int s, int b) { return s == MPI_PROC_NULL ? -9 : 100 * s + b; }
static void clear(int *b) { for (int i = 0; i < 16; i++) b[i] = -9; }

/* srcs[j]: who sends our block j, and sblk[j]: from which of its blocks */
/* full = 0: only MPI_Neighbor_allgather and MPI_Neighbor_alltoall */
static void run(const char *name, MPI_Comm c, int nin, const int *srcs, const int *sblk, int nout, int full) {
    int t, sb[16], rb[16], sc[16], sd[16], rc[16], rd[16];
    MPI_Comm_rank(c, &t);
    perm(name, c);
    char line[1024] = "";
    /* allgather: block j is the rank of source j */
    clear(rb);
    MPI_Neighbor_allgather(&t, 1, MPI_INT, rb, 1, MPI_INT, c);
    add(line, sizeof line, "allgather");
    for (int j = 0; j < nin; j++) {
        CHECK(rb[j] == (srcs[j] == MPI_PROC_NULL ? -9 : srcs[j]), "%s allgather: rank %d block %d = %d, want %d", name, t, j, rb[j], srcs[j]);
        add(line, sizeof line, " %d", rb[j]);
    }
    for (int b = 0; b < nout; b++) sb[b] = val(t, b);
    clear(rb);
    MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
    add(line, sizeof line, " alltoall");
    for (int j = 0; j < nin; j++) {
        CHECK(rb[j] == val(srcs[j], sblk[j]), "%s alltoall: rank %d block %d = %d, want %d", name, t, j, rb[j], val(srcs[j], sblk[j]));
        add(line, sizeof line, " %d", rb[j]);
    }
    if (!full) {
        R("%s rank %d %s", name, t, line);
        return;
    }
    /* alltoallv with the blocks stored in reverse */
    for (int b = 0; b < nout; b++) sc[b] = 1, sd[b] = nout - 1 - b, sb[nout - 1 - b] = val(t, b);
    for (int j = 0; j < nin; j++) rc[j] = 1, rd[j] = nin - 1 - j;
    clear(rb);
    MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c);
    for (int j = 0; j < nin; j++)
        CHECK(rb[nin - 1 - j] == val(srcs[j], sblk[j]), "%s alltoallv: rank %d block %d", name, t, j);
    {
        for (int b = 0; b < nout; b++) sb[b] = val(t, b) + 1000;
        MPI_Request req;
        clear(rb);
        MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int j = 0; j < nin; j++) {
            int want = srcs[j] == MPI_PROC_NULL ? -9 : val(srcs[j], sblk[j]) + 1000;
            CHECK(rb[j] == want, "%s ineighbor_alltoall: rank %d block %d = %d, want %d", name, t, j, rb[j], want);
        }
    }
    R("%s rank %d %s", name, t, line);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    int srcs[16], sblk[16], t;

    /* Cartesian: blocks 2d and 2d+1 are the -1 and +1 neighbours of
     * dimension d; the -1 neighbour sends us its +1 block and vice versa.
     * 3x2, dimension 1 not periodic: MPI_PROC_NULL neighbours. 2x3 all
     * periodic: both neighbours of dimension 0 are the same process
     * (allgather and alltoall only: OpenMPI 4.1.4's MPI_Ineighbor_alltoall
     * and MPICH 4.0.2's MPI_Neighbor_alltoallv swap the two blocks of
     * such a pair, with or without gpumap). */
    const int shapes[2][2] = {{3, 2}, {2, 3}}, per[2][2] = {{1, 0}, {1, 1}};
    for (int s = 0; s < 2; s++) {
        MPI_Comm cart;
        MPI_Cart_create(MPI_COMM_WORLD, 2, shapes[s], per[s], reorder, &cart);
        for (int d = 0; d < 2; d++) {
            int lo, hi;
            MPI_Cart_shift(cart, d, 1, &lo, &hi);
            srcs[2 * d] = lo, sblk[2 * d] = 2 * d + 1;
            srcs[2 * d + 1] = hi, sblk[2 * d + 1] = 2 * d;
        }
        run(s ? "cart2x3periodic" : "cart3x2", cart, 4, srcs, sblk, 4, s == 0);
        MPI_Comm_free(&cart);
    }

    /* Dist graph: block j comes from source j, out of the block that
     * names us among its destinations (lists in increasing order). */
    int v = world_rank, src[8], sw[8], dst[8], dw[8], nb[8], w[8];
    int in = graph_list(v, 0, src, sw), out = graph_list(v, 1, dst, dw);
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, sw, out, dst, dw, MPI_INFO_NULL, reorder, &g);
    MPI_Comm_rank(g, &t);
    in = graph_list(t, 0, src, sw), out = graph_list(t, 1, dst, dw);
    for (int j = 0; j < in; j++) {
        int k = graph_list(src[j], 1, nb, w);
        srcs[j] = src[j];
        for (int b = 0; b < k; b++)
            if (nb[b] == t) sblk[j] = b;
    }
    run("distgraph", g, in, srcs, sblk, out, 1);
    MPI_Comm_free(&g);

    /* Graph: the neighbours are sources and destinations alike. */
    int index[6], edges[32], m = 0;
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 6; b++)
            if (a != b && has_edge(a, b) && has_edge(b, a)) edges[m++] = b;
        index[a] = m;
    }
    MPI_Graph_create(MPI_COMM_WORLD, 6, index, edges, reorder, &g);
    MPI_Comm_rank(g, &t);
    int k;
    MPI_Graph_neighbors_count(g, t, &k);
    MPI_Graph_neighbors(g, t, 8, srcs);
    for (int j = 0; j < k; j++) {
        int kk;
        MPI_Graph_neighbors_count(g, srcs[j], &kk);
        MPI_Graph_neighbors(g, srcs[j], 8, nb);
        for (int b = 0; b < kk; b++)
            if (nb[b] == t) sblk[j] = b;
    }
    run("graph", g, k, srcs, sblk, k, 1);
    MPI_Comm_free(&g);
    return finish();
}
