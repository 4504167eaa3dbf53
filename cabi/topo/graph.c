/*
 * graph.c - MPI_Graph_create. Every process passes the whole graph; rank
 * r's vertex is node r, with the edges edges[index[r-1] .. index[r]) of
 * volume 1. Processes beyond nnodes get no vertex and MPI_COMM_NULL:
 * ranks nnodes and up of comm_old unless GPUMAP_TOPO_SUBSET=any
 * (subset.c).
 */
#include "topo.h"

static void graph_pattern(topo_call *c, int nnodes, const int index[], const int edges[]) {
    if (nnodes < 0 || nnodes > c->size) {
        topo_reject(c, "nnodes = %d is outside [0, %d]", nnodes, c->size);
        return;
    }
    if (nnodes == 0) return;
    if (nnodes < c->size) topo_members(c, nnodes);
    if (!index) {
        topo_reject(c, "index is NULL");
        return;
    }
    for (int i = 0; i < nnodes; i++) {
        if (index[i] < (i ? index[i - 1] : 0)) {
            topo_reject(c, "index[%d] = %d decreases", i, index[i]);
            return;
        }
    }
    if (index[nnodes - 1] > 0 && !edges) {
        topo_reject(c, "edges is NULL");
        return;
    }
    for (int k = 0; k < index[nnodes - 1]; k++) {
        if (edges[k] < 0 || edges[k] >= nnodes) {
            topo_reject(c, "edges[%d] = %d is not a node in [0, %d)", k, edges[k], nnodes);
            return;
        }
    }
    if (c->rank < nnodes)
        for (int k = c->rank ? index[c->rank - 1] : 0; k < index[c->rank]; k++) topo_edge(c, edges[k], 1);
}

int topo_graph_create(const char *name, MPI_Comm old, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *out) {
    topo_call c;
    if (!topo_begin(&c, name, old, reorder))
        return PMPI_Graph_create(old, nnodes, index, edges, reorder, out);
    graph_pattern(&c, nnodes, index, edges);
    MPI_Comm nc;
    topo_map(&c, &nc);
    MPI_Comm on = topo_parent(&c, nc, &reorder);
    return topo_end(&c, nc, PMPI_Graph_create(on, nnodes, index, edges, reorder, out), out);
}

TOPO_EXPORT int MPI_Graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[],
                                 int reorder, MPI_Comm *out) {
    return topo_graph_create("MPI_Graph_create", old, nnodes, index, edges, reorder, out);
}
