/*
 * topo_dgraph: MPI_Dist_graph_create (the general form) with the edges
 * given by their sources, by their destinations, all by rank 0 (the
 * others passing NULL), without weights, and with no edges at all
 * (MPI_WEIGHTS_EMPTY). The neighbour order of this form is not
 * specified: lists are compared sorted.
 *   topo_dgraph [reorder]
 */
#include "topocheck.h"

static void check(const char *name, MPI_Comm g, int weighted) {
    int t, type, in, out, wt, s[8], w1[8], d[8], w2[8], es[8], ew1[8], ed[8], ew2[8];
    perm(name, g);
    MPI_Comm_rank(g, &t);
    MPI_Topo_test(g, &type);
    CHECK(type == MPI_DIST_GRAPH, "%s: MPI_Topo_test %d", name, type);
    int ein = strcmp(name, "none") ? graph_list(t, 0, es, ew1) : 0;
    int eout = strcmp(name, "none") ? graph_list(t, 1, ed, ew2) : 0;
    MPI_Dist_graph_neighbors_count(g, &in, &out, &wt);
    CHECK(in == ein && out == eout && (wt != 0) == weighted, "%s: rank %d counts %d %d %d, want %d %d %d",
          name, t, in, out, wt, ein, eout, weighted);
    if (in != ein || out != eout) return;
    MPI_Dist_graph_neighbors(g, in, s, w1, out, d, w2);
    for (int i = 0; i < 8; i++)
        if (!weighted) w1[i] = w2[i] = ew1[i] = ew2[i] = 0;
    sort_pairs(in, s, w1);
    sort_pairs(out, d, w2);
    char line[512] = "in";
    for (int i = 0; i < in; i++) {
        CHECK(s[i] == es[i] && w1[i] == ew1[i], "%s: rank %d source %d:%d, want %d:%d", name, t, s[i], w1[i], es[i], ew1[i]);
        add(line, sizeof line, " %d:%d", s[i], w1[i]);
    }
    add(line, sizeof line, " out");
    for (int i = 0; i < out; i++) {
        CHECK(d[i] == ed[i] && w2[i] == ew2[i], "%s: rank %d destination %d:%d, want %d:%d", name, t, d[i], w2[i], ed[i], ew2[i]);
        add(line, sizeof line, " %d:%d", d[i], w2[i]);
    }
    R("%s rank %d weighted %d %s", name, t, wt, line);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    int v = world_rank, nb[8], w[8], src[64], deg[64], dst[64], wt[64], n = 0;
    MPI_Comm g;

    /* each rank names its out-edges */
    int k = graph_list(v, 1, nb, w);
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &v, &k, nb, w, MPI_INFO_NULL, reorder, &g);
    check("sources", g, 1);

    /* each rank names its in-edges, one source at a time */
    k = graph_list(v, 0, nb, w);
    for (int i = 0; i < k; i++) src[i] = nb[i], deg[i] = 1, dst[i] = v, wt[i] = w[i];
    MPI_Dist_graph_create(MPI_COMM_WORLD, k, src, deg, dst, wt, MPI_INFO_NULL, reorder, &g);
    check("destinations", g, 1);

    /* rank 0 names every edge; the others pass NULL */
    for (int u = 0; u < 6; u++) {
        k = graph_list(u, 1, nb, w);
        src[u] = u, deg[u] = k;
        for (int i = 0; i < k; i++) dst[n] = nb[i], wt[n++] = w[i];
    }
    if (v == 0)
        MPI_Dist_graph_create(MPI_COMM_WORLD, 6, src, deg, dst, wt, MPI_INFO_NULL, reorder, &g);
    else
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, NULL, MPI_INFO_NULL, reorder, &g);
    check("root", g, 1);

    k = graph_list(v, 1, nb, w);
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &v, &k, nb, MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &g);
    check("unweighted", g, 0);

    MPI_Dist_graph_create(MPI_COMM_WORLD, 0, src, deg, dst, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, reorder, &g);
    check("none", g, 1);
    return finish();
}
