/*
 * topo_dup: a topology survives MPI_Comm_dup, MPI_Comm_idup and
 * MPI_Comm_dup_with_info (same type, same ranks, same topology), and
 * MPI_Comm_split of a topology communicator has none.
 *   topo_dup [reorder]
 */
#include "topocheck.h"

/* A description of c's topology as seen from the calling rank. */
static void describe(MPI_Comm c, char *s, size_t n) {
    int type, t;
    s[0] = 0;
    MPI_Comm_rank(c, &t);
    MPI_Topo_test(c, &type);
    add(s, n, "rank %d", t);
    if (type == MPI_CART) {
        int nd, d[4], p[4], x[4];
        MPI_Cartdim_get(c, &nd);
        MPI_Cart_get(c, nd, d, p, x);
        add(s, n, " cart");
        for (int i = 0; i < nd; i++) add(s, n, " %dx%d@%d", d[i], p[i], x[i]);
    } else if (type == MPI_DIST_GRAPH) {
        int in, out, w, a[8], aw[8], b[8], bw[8];
        MPI_Dist_graph_neighbors_count(c, &in, &out, &w);
        MPI_Dist_graph_neighbors(c, in, a, aw, out, b, bw);
        add(s, n, " distgraph");
        for (int i = 0; i < in; i++) add(s, n, " <%d:%d", a[i], aw[i]);
        for (int i = 0; i < out; i++) add(s, n, " >%d:%d", b[i], bw[i]);
    } else if (type == MPI_GRAPH) {
        int k, nb[8];
        MPI_Graph_neighbors_count(c, t, &k);
        MPI_Graph_neighbors(c, t, 8, nb);
        add(s, n, " graph");
        for (int i = 0; i < k; i++) add(s, n, " %d", nb[i]);
    } else {
        add(s, n, " none");
    }
}

static void dups(const char *name, MPI_Comm c) {
    char orig[512], s[512];
    MPI_Comm d;
    MPI_Request req;
    perm(name, c);
    describe(c, orig, sizeof orig);
    MPI_Comm_dup(c, &d);
    describe(d, s, sizeof s);
    CHECK(!strcmp(s, orig), "%s: MPI_Comm_dup gives '%s', want '%s'", name, s, orig);
    MPI_Comm_free(&d);
    MPI_Comm_idup(c, &d, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    describe(d, s, sizeof s);
    CHECK(!strcmp(s, orig), "%s: MPI_Comm_idup gives '%s', want '%s'", name, s, orig);
    MPI_Comm_free(&d);
    MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d);
    describe(d, s, sizeof s);
    CHECK(!strcmp(s, orig), "%s: MPI_Comm_dup_with_info gives '%s'", name, s);
    MPI_Comm_free(&d);
    int t, type;
    MPI_Comm_rank(c, &t);
    MPI_Comm_split(c, t % 2, t, &d);
    MPI_Topo_test(d, &type);
    CHECK(type == MPI_UNDEFINED, "%s: MPI_Comm_split kept a topology (%d)", name, type);
    MPI_Comm_free(&d);
    R("%s %s", name, orig);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){0, 1}, reorder, &c);
    dups("cart", c);
    int v = world_rank, src[8], sw[8], dst[8], dw[8];
    int in = graph_list(v, 0, src, sw), out = graph_list(v, 1, dst, dw);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, sw, out, dst, dw, MPI_INFO_NULL, reorder, &c);
    dups("distgraph", c);
    int index[6], edges[32], m = 0;
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 6; b++)
            if (a != b && has_edge(a, b)) edges[m++] = b;
        index[a] = m;
    }
    MPI_Graph_create(MPI_COMM_WORLD, 6, index, edges, reorder, &c);
    dups("graph", c);
    return finish();
}
