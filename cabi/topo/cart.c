/*
 * cart.c - MPI_Cart_create. Vertex v is the grid point with row-major
 * index v (the last dimension varies fastest, as MPI_Cart_rank numbers
 * them); its neighbours are the 2*ndims points one step away, wrapping
 * around periodic dimensions. Every edge weighs 1, or the volume that
 * GPUMAP_CART_WEIGHTS gives its dimension ("w1:w2:..." or "w1,w2,...").
 * Processes beyond the grid get no vertex and MPI_COMM_NULL: ranks P and
 * up of comm_old unless GPUMAP_TOPO_SUBSET=any (subset.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

/* Reads GPUMAP_CART_WEIGHTS into w[ndims] (1 each when unset). */
static void cart_weights(topo_call *c, int ndims, double *w) {
    for (int i = 0; i < ndims; i++) w[i] = 1;
    const char *e = getenv("GPUMAP_CART_WEIGHTS");
    if (!e || !*e) return;
    int n = 0;
    const char *p = e;
    for (;;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || v < 0) {
            topo_reject(c, "GPUMAP_CART_WEIGHTS=%s: entry %d is not a finite volume >= 0", e, n + 1);
            return;
        }
        if (n < ndims) w[n] = v;
        n++;
        if (*end == 0) break;
        if (*end != ':' && *end != ',') {
            topo_reject(c, "GPUMAP_CART_WEIGHTS=%s: unexpected '%c'", e, *end);
            return;
        }
        p = end + 1;
    }
    if (n != ndims) topo_reject(c, "GPUMAP_CART_WEIGHTS=%s has %d volumes for %d dimensions", e, n, ndims);
}

static void cart_pattern(topo_call *c, int ndims, const int dims[], const int periods[]) {
    if (ndims < 0) {
        topo_reject(c, "ndims = %d is negative", ndims);
        return;
    }
    if (ndims > 0 && (!dims || !periods)) {
        topo_reject(c, "dims or periods is NULL");
        return;
    }
    long long points = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            topo_reject(c, "dims[%d] = %d is not positive", i, dims[i]);
            return;
        }
        points *= dims[i];
        if (points > c->size) {
            topo_reject(c, "the grid has more points than the %d processes", c->size);
            return;
        }
    }
    if (points < c->size) topo_members(c, (int)points);
    double *w = malloc((size_t)(ndims + 1) * sizeof *w);
    int *coord = malloc((size_t)(ndims + 1) * sizeof *coord);
    if (!w || !coord) {
        topo_reject(c, "out of memory");
    } else {
        cart_weights(c, ndims, w);
        if (c->rank < points) {
            int r = c->rank;
            for (int i = ndims - 1; i >= 0; i--) {
                coord[i] = r % dims[i];
                r /= dims[i];
            }
            long long stride = points;
            for (int i = 0; i < ndims; i++) {
                stride /= dims[i];
                for (int dir = -1; dir <= 1; dir += 2) {
                    int x = coord[i] + dir;
                    if (x < 0 || x >= dims[i]) {
                        if (!periods[i]) continue;
                        x = (x + dims[i]) % dims[i];
                    }
                    topo_edge(c, (int)(c->rank + (x - coord[i]) * stride), w[i]);
                }
            }
        }
    }
    free(w);
    free(coord);
}

int topo_cart_create(const char *name, MPI_Comm old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *out) {
    topo_call c;
    if (!topo_begin(&c, name, old, reorder))
        return PMPI_Cart_create(old, ndims, dims, periods, reorder, out);
    cart_pattern(&c, ndims, dims, periods);
    MPI_Comm nc;
    topo_map(&c, &nc);
    MPI_Comm on = topo_parent(&c, nc, &reorder);
    return topo_end(&c, nc, PMPI_Cart_create(on, ndims, dims, periods, reorder, out), out);
}

TOPO_EXPORT int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm *out) {
    return topo_cart_create("MPI_Cart_create", old, ndims, dims, periods, reorder, out);
}
