/*
 * topo_nbctag: the interposer must not create more communicators from
 * comm_old than MPI's own constructor does (one).
 *
 * Why it matters, found with MPICH's distgraph1 under OpenMPI 4.1.4:
 * MPI_Dist_graph_create (component topo/treematch, reorder 0 or 1) first
 * hands every edge to its endpoints on comm_old with the tags -50 and -51,
 * received from MPI_ANY_SOURCE, and then agrees on a context id for the
 * new communicator with non-blocking allreduces on comm_old, whose tags
 * libnbc counts per communicator from -27 downwards (three per
 * communicator made from it, one per MPI_Ibarrier). When that agreement
 * starts at tag -51, a process can take another's allreduce message for
 * an edge: the graph comes out wrong or the call hangs. A program is
 * exposed or not by how many non-blocking collectives ran on comm_old
 * before, so an interposer that adds a communicator creation on comm_old
 * (a private copy and then the topology communicator on comm_old) moves a
 * program that passes onto the bad tag.
 *
 * Here, on each of ten fresh duplicates of MPI_COMM_WORLD (each counts
 * its own tags): a dist graph without edges (reorder as given: the
 * interposer keeps the order), 18 MPI_Ibarrier, then MPI_Dist_graph_create
 * with reorder = 0. Without the interposer the last call's agreement
 * starts at tag -27 - 3 - 18 = -48; one more creation on comm_old puts it
 * at -51. The edges 0 -> v, v >= 2, are named by the highest rank, so
 * that rank 0 waits for them while rank 1, which has no edge, is done
 * early and sends its part of the agreement to rank 0 (libnbc's binomial
 * allreduce).
 *   topo_nbctag [reorder]
 */
#include "topocheck.h"

enum { ROUNDS = 10, IBARRIERS = 18 };

int main(int argc, char **argv) {
    start(&argc, &argv);
    int n = world_size, last = n - 1;
    int src[1], deg[1];
    int *dst = malloc((size_t)n * sizeof(int)), *w = malloc((size_t)n * sizeof(int));
    int *s = malloc((size_t)n * sizeof(int)), *sw = malloc((size_t)n * sizeof(int));
    int *d = malloc((size_t)n * sizeof(int)), *dw = malloc((size_t)n * sizeof(int));
    src[0] = 0;
    deg[0] = n > 2 ? n - 2 : 0;
    for (int v = 2; v < n; v++) dst[v - 2] = v, w[v - 2] = 1 + 2 * v;
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm c, none, g;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Dist_graph_create_adjacent(c, 0, s, MPI_WEIGHTS_EMPTY, 0, d, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                                       reorder, &none);
        MPI_Comm_free(&none);
        for (int i = 0; i < IBARRIERS; i++) {
            MPI_Request r;
            MPI_Ibarrier(c, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        if (world_rank == last)
            MPI_Dist_graph_create(c, 1, src, deg, dst, w, MPI_INFO_NULL, 0, &g);
        else
            MPI_Dist_graph_create(c, 0, src, deg, dst, w, MPI_INFO_NULL, 0, &g);
        int v, in, out, wt;
        MPI_Comm_rank(g, &v);
        MPI_Dist_graph_neighbors_count(g, &in, &out, &wt);
        int ein = v >= 2, eout = v == 0 && n > 2 ? n - 2 : 0;
        CHECK(in == ein && out == eout && wt, "round %d: rank %d counts %d %d %d, want %d %d 1", round, v, in,
              out, wt, ein, eout);
        if (in == ein && out == eout) {
            MPI_Dist_graph_neighbors(g, in, s, sw, out, d, dw);
            sort_pairs(in, s, sw);
            sort_pairs(out, d, dw);
            char line[4096] = "in";
            for (int i = 0; i < in; i++) {
                CHECK(s[i] == 0 && sw[i] == 1 + 2 * v, "round %d: rank %d source %d:%d", round, v, s[i], sw[i]);
                add(line, sizeof line, " %d:%d", s[i], sw[i]);
            }
            add(line, sizeof line, " out");
            for (int i = 0; i < out; i++) {
                CHECK(d[i] == i + 2 && dw[i] == 1 + 2 * d[i], "round %d: rank %d destination %d:%d", round, v,
                      d[i], dw[i]);
                add(line, sizeof line, " %d:%d", d[i], dw[i]);
            }
            R("round %d rank %d %s", round, v, line);
        }
        MPI_Comm_free(&g);
        MPI_Comm_free(&c);
    }
    free(dst), free(w), free(s), free(sw), free(d), free(dw);
    return finish();
}
