/*
 * topo_dgraph_adj: MPI_Dist_graph_create_adjacent, weighted (with a self
 * loop), with MPI_UNWEIGHTED, and with MPI_WEIGHTS_EMPTY for empty lists.
 * Rank t of the new communicator must see exactly (order included) the
 * lists that rank t of MPI_COMM_WORLD passed.
 *   topo_dgraph_adj [reorder]
 */
#include "topocheck.h"

static void check(const char *name, MPI_Comm g, int t, int indeg, const int *src, const int *sw,
                  int outdeg, const int *dst, const int *dw, int weighted) {
    int type, in, out, wt, s[8], w1[8], d[8], w2[8];
    MPI_Topo_test(g, &type);
    CHECK(type == MPI_DIST_GRAPH, "%s: MPI_Topo_test %d", name, type);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &wt);
    CHECK(in == indeg && out == outdeg && (wt != 0) == weighted, "%s: rank %d counts %d %d %d, want %d %d %d",
          name, t, in, out, wt, indeg, outdeg, weighted);
    if (in != indeg || out != outdeg) return;
    MPI_Dist_graph_neighbors(g, in, s, w1, out, d, w2);
    char line[512] = "";
    add(line, sizeof line, "in");
    for (int i = 0; i < in; i++) {
        CHECK(s[i] == src[i] && (!weighted || w1[i] == sw[i]), "%s: rank %d source %d is %d:%d, want %d:%d",
              name, t, i, s[i], w1[i], src[i], weighted ? sw[i] : w1[i]);
        add(line, sizeof line, " %d:%d", s[i], weighted ? w1[i] : 0);
    }
    add(line, sizeof line, " out");
    for (int i = 0; i < out; i++) {
        CHECK(d[i] == dst[i] && (!weighted || w2[i] == dw[i]), "%s: rank %d destination %d is %d:%d, want %d:%d",
              name, t, i, d[i], w2[i], dst[i], weighted ? dw[i] : w2[i]);
        add(line, sizeof line, " %d:%d", d[i], weighted ? w2[i] : 0);
    }
    R("%s rank %d weighted %d %s", name, t, wt, line);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    int v = world_rank, src[8], sw[8], dst[8], dw[8], t;
    int in = graph_list(v, 0, src, sw), out = graph_list(v, 1, dst, dw);
    MPI_Comm g;

    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, sw, out, dst, dw, MPI_INFO_NULL, reorder, &g);
    perm("weighted", g);
    MPI_Comm_rank(g, &t);
    int ti = graph_list(t, 0, src, sw), to = graph_list(t, 1, dst, dw); /* what rank t passed */
    check("weighted", g, t, ti, src, sw, to, dst, dw, 1);
    MPI_Comm_free(&g);

    in = graph_list(v, 0, src, sw), out = graph_list(v, 1, dst, dw);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, MPI_UNWEIGHTED, out, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, reorder, &g);
    perm("unweighted", g);
    MPI_Comm_rank(g, &t);
    ti = graph_list(t, 0, src, sw), to = graph_list(t, 1, dst, dw);
    check("unweighted", g, t, ti, src, sw, to, dst, dw, 0);
    MPI_Comm_free(&g);

    /* A star into rank 0: empty lists pass MPI_WEIGHTS_EMPTY. */
    int star_src[8], star_w[8], one = 0, onew = 10 + v;
    for (int i = 1; i < world_size; i++) star_src[i - 1] = i, star_w[i - 1] = 10 + i;
    if (v == 0)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, world_size - 1, star_src, star_w, 0, NULL,
                                       MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, reorder, &g);
    else
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 1, &one, &onew,
                                       MPI_INFO_NULL, reorder, &g);
    perm("star", g);
    MPI_Comm_rank(g, &t);
    int w0 = 10 + t;
    if (t == 0)
        check("star", g, t, world_size - 1, star_src, star_w, 0, NULL, NULL, 1);
    else
        check("star", g, t, 0, NULL, NULL, 1, &one, &w0, 1);
    MPI_Comm_free(&g);
    return finish();
}
