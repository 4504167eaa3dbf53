/*
 * topo_graph: MPI_Graph_create on the 2x3 grid and on a 2x2 grid with
 * fewer nodes than processes (two get MPI_COMM_NULL): MPI_Topo_test,
 * MPI_Graphdims_get, MPI_Graph_get, MPI_Graph_neighbors(_count).
 *   topo_graph [reorder]
 */
#include "topocheck.h"

/* index/edges of an X x Y grid, row-major */
static int grid(int X, int Y, int *index, int *edges) {
    int m = 0;
    for (int v = 0; v < X * Y; v++) {
        for (int u = 0; u < X * Y; u++) {
            int dx = u / Y - v / Y, dy = u % Y - v % Y;
            if (dx * dx + dy * dy == 1) edges[m++] = u;
        }
        index[v] = m;
    }
    return m;
}

static void graph(const char *name, int X, int Y) {
    int index[16], edges[64], n = X * Y, m = grid(X, Y, index, edges);
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, reorder, &g);
    int member = g != MPI_COMM_NULL, members = 0;
    MPI_Allreduce(&member, &members, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) R("%s members %d", name, members);
    if (g == MPI_COMM_NULL) return;
    perm(name, g);
    int t, type, nn, ne, gi[16], ge[64], nb[8], k;
    MPI_Comm_rank(g, &t);
    MPI_Topo_test(g, &type);
    CHECK(type == MPI_GRAPH, "%s: MPI_Topo_test %d", name, type);
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK(nn == n && ne == m, "%s: MPI_Graphdims_get %d %d, want %d %d", name, nn, ne, n, m);
    MPI_Graph_get(g, 16, 64, gi, ge);
    CHECK(!memcmp(gi, index, n * sizeof(int)) && !memcmp(ge, edges, m * sizeof(int)), "%s: MPI_Graph_get differs", name);
    char line[512] = "";
    for (int r = 0; r < n; r++) {
        MPI_Graph_neighbors_count(g, r, &k);
        MPI_Graph_neighbors(g, r, 8, nb);
        int from = r ? index[r - 1] : 0;
        CHECK(k == index[r] - from && !memcmp(nb, edges + from, k * sizeof(int)), "%s: neighbours of %d differ", name, r);
        if (r == t)
            for (int i = 0; i < k; i++) add(line, sizeof line, " %d", nb[i]);
    }
    R("%s rank %d neighbours%s", name, t, line);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    graph("graph2x3", 2, 3);
    graph("graph2x2", 2, 2);
    return finish();
}
