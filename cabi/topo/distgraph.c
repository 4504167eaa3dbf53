/*
 * distgraph.c - MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create.
 *
 * The vertices are the ranks of comm_old and every edge carries its
 * weight (1 with MPI_UNWEIGHTED). After the mapping, vertex v is played
 * by rank v of the new communicator, so the numbers in sources and
 * destinations keep their meaning and are passed on as they are:
 *  - the adjacent form: the lists rank v of comm_old passed are carried
 *    to the process that becomes rank v (a sendrecv on the private
 *    communicator), so that MPI_Dist_graph_neighbors at rank v returns
 *    exactly what rank v passed, in the same order (MPI 4.1, 8.5.5);
 *  - the general form: any process may name any edge, so the arguments
 *    are valid unchanged; for the mapping, the edges are first routed to
 *    their source ranks (alltoallv on the private communicator).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

enum { W_ARRAY = 0, W_UNWEIGHTED = 1, W_EMPTY = 2, W_NULL = 3 };

static int weight_kind(const int *w) {
    if (w == MPI_UNWEIGHTED) return W_UNWEIGHTED;
    if (w == MPI_WEIGHTS_EMPTY) return W_EMPTY;
    return w ? W_ARRAY : W_NULL;
}

static const int *weight_ptr(int kind, const int *array) {
    switch (kind) {
    case W_UNWEIGHTED: return MPI_UNWEIGHTED;
    case W_EMPTY: return MPI_WEIGHTS_EMPTY;
    case W_NULL: return NULL;
    default: return array;
    }
}

/* Checks one list of ranks and its weights. */
static int check_list(topo_call *c, const char *what, int deg, const int *ranks, int kind, const int *w) {
    if (deg < 0) {
        topo_reject(c, "%s degree %d is negative", what, deg);
        return 0;
    }
    if (deg == 0) return 1;
    if (!ranks) {
        topo_reject(c, "%s is NULL with degree %d", what, deg);
        return 0;
    }
    if (kind == W_NULL || kind == W_EMPTY) {
        topo_reject(c, "%s weights are %s with degree %d", what, kind == W_NULL ? "NULL" : "MPI_WEIGHTS_EMPTY", deg);
        return 0;
    }
    for (int i = 0; i < deg; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size) {
            topo_reject(c, "%s[%d] = %d is not a rank in [0, %d)", what, i, ranks[i], c->size);
            return 0;
        }
        if (kind == W_ARRAY && w[i] < 0) {
            topo_reject(c, "%s weight %d is negative (%d)", what, i, w[i]);
            return 0;
        }
    }
    return 1;
}

/* ---- adjacent ---- */

/* A rank's lists as one int buffer: hdr = indegree, outdegree and the
 * two weight kinds; body = sources, [sourceweights], destinations,
 * [destweights]. */
static int body_len(const int h[4]) {
    return h[0] + (h[2] == W_ARRAY ? h[0] : 0) + h[1] + (h[3] == W_ARRAY ? h[1] : 0);
}

/* Carries this rank's lists to the process that now plays its vertex
 * (rank c->rank of nc) and receives those of the vertex this process
 * plays. Who sends to a process is known only in nc's numbering as the
 * sender's own rank there: each process gets exactly one header (the
 * mapping is a permutation), so it is received from MPI_ANY_SOURCE, and
 * the body from that sender. No rank may skip an exchange its partner
 * waits in: every rank takes part in the header exchange, the agreement
 * after it (a rank without room for the body says so there, before
 * anybody waits for a body) and the one after the bodies. Returns 0 on
 * every rank or 1 on every rank. */
static int route_lists(topo_call *c, MPI_Comm nc, const int hdr[4], const int *body, int got[4], int **gbody) {
    MPI_Status st;
    *gbody = NULL;
    int failed = PMPI_Sendrecv(hdr, 4, MPI_INT, c->rank, 1, got, 4, MPI_INT, MPI_ANY_SOURCE, 1, nc, &st) != MPI_SUCCESS;
    if (!failed && !topo_fault(c, "distgraph_route")) *gbody = malloc((size_t)body_len(got) * sizeof(int) + 1);
    if (topo_any(c, failed || !*gbody)) return 1;
    failed = PMPI_Sendrecv(body, body_len(hdr), MPI_INT, c->rank, 2, *gbody, body_len(got), MPI_INT, st.MPI_SOURCE,
                           2, nc, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    return topo_any(c, failed);
}

int topo_dist_graph_create_adjacent(const char *name, MPI_Comm old, int indegree,
                                    const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[],
                                    const int destweights[], MPI_Info info, int reorder,
                                    MPI_Comm *out) {
    topo_call c;
    if (!topo_begin(&c, name, old, reorder))
        return PMPI_Dist_graph_create_adjacent(old, indegree, sources, sourceweights, outdegree,
                                               destinations, destweights, info, reorder, out);
    int hdr[4] = {indegree, outdegree, weight_kind(sourceweights), weight_kind(destweights)};
    int *body = NULL;
    if (check_list(&c, "sources", indegree, sources, hdr[2], sourceweights) &&
        check_list(&c, "destinations", outdegree, destinations, hdr[3], destweights)) {
        for (int i = 0; i < outdegree; i++)
            topo_edge(&c, destinations[i], hdr[3] == W_ARRAY ? destweights[i] : 1);
        /* The lists to carry, packed before the mapping: a rank without
         * room for them says so in topo_map's agreement, not by leaving
         * its partner waiting in route_lists. */
        if ((body = malloc((size_t)body_len(hdr) * sizeof(int) + 1))) {
            int *p = body;
            if (indegree) memcpy(p, sources, (size_t)indegree * sizeof(int)), p += indegree;
            if (indegree && hdr[2] == W_ARRAY) memcpy(p, sourceweights, (size_t)indegree * sizeof(int)), p += indegree;
            if (outdegree) memcpy(p, destinations, (size_t)outdegree * sizeof(int)), p += outdegree;
            if (outdegree && hdr[3] == W_ARRAY) memcpy(p, destweights, (size_t)outdegree * sizeof(int));
        } else {
            topo_reject(&c, "out of memory for the adjacency lists");
        }
    }
    MPI_Comm nc;
    int rc, got[4], *gbody = NULL, outcome = topo_map(&c, &nc);
    if (outcome == TOPO_REORDER) {
        if (route_lists(&c, nc, hdr, body, got, &gbody)) {
            PMPI_Comm_free(&nc);
            snprintf(c.why, sizeof c.why, "carrying the adjacency lists to their new ranks failed");
            outcome = c.outcome = TOPO_FALLBACK;
        }
    }
    MPI_Comm on = topo_parent(&c, nc, &reorder);
    if (outcome == TOPO_REORDER) {
        int *s = gbody, *sw = s + got[0];
        int *d = sw + (got[2] == W_ARRAY ? got[0] : 0), *dw = d + got[1];
        rc = PMPI_Dist_graph_create_adjacent(on, got[0], s, weight_ptr(got[2], sw), got[1], d,
                                             weight_ptr(got[3], dw), info, reorder, out);
    } else {
        rc = PMPI_Dist_graph_create_adjacent(on, indegree, sources, sourceweights, outdegree,
                                             destinations, destweights, info, reorder, out);
    }
    free(body);
    free(gbody);
    return topo_end(&c, nc, rc, out);
}

TOPO_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm old, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree,
                                               const int destinations[], const int destweights[],
                                               MPI_Info info, int reorder, MPI_Comm *out) {
    return topo_dist_graph_create_adjacent("MPI_Dist_graph_create_adjacent", old, indegree, sources,
                                           sourceweights, outdegree, destinations, destweights,
                                           info, reorder, out);
}

/* ---- general ---- */

/* Routes every edge (s -> d, w) named here to rank s, which adds it to
 * its pattern. Collective; a rank with bad arguments sends nothing. */
static void general_pattern(topo_call *c, int n, const int sources[], const int degrees[],
                            const int destinations[], const int weights[]) {
    int kind = weight_kind(weights), p = c->size;
    long long total = 0;
    if (n < 0) topo_reject(c, "n = %d is negative", n);
    else if (n > 0 && (!sources || !degrees)) topo_reject(c, "sources or degrees is NULL with n = %d", n);
    for (int i = 0; !c->bad && i < n; i++) {
        if (sources[i] < 0 || sources[i] >= p) topo_reject(c, "sources[%d] = %d is not a rank in [0, %d)", i, sources[i], p);
        else if (degrees[i] < 0) topo_reject(c, "degrees[%d] = %d is negative", i, degrees[i]);
        else if ((total += degrees[i]) > INT_MAX / 2) topo_reject(c, "more than %d edges", INT_MAX / 2);
    }
    if (!c->bad) check_list(c, "destinations", (int)total, destinations, kind, weights);

    int *cnt = calloc((size_t)4 * p, sizeof(int)), *sbuf = NULL, *rbuf = NULL;
    if (topo_any(c, !cnt)) { /* somebody cannot take part in the routing */
        topo_reject(c, "out of memory for the edge counts");
        free(cnt);
        return;
    }
    int *scount = cnt, *sdisp = cnt + p, *rcount = cnt + 2 * p, *rdisp = cnt + 3 * p;
    int oom = 0;
    if (!c->bad) {
        for (int i = 0; i < n; i++) scount[sources[i]] += 2 * degrees[i];
        for (int r = 1; r < p; r++) sdisp[r] = sdisp[r - 1] + scount[r - 1];
        if ((sbuf = malloc((size_t)(2 * total + 1) * sizeof(int)))) {
            int *fill = rdisp; /* a cursor, before the receive side needs rdisp */
            memcpy(fill, sdisp, (size_t)p * sizeof(int));
            for (int i = 0, k = 0; i < n; i++)
                for (int j = 0; j < degrees[i]; j++, k++) {
                    int *e = sbuf + fill[sources[i]];
                    e[0] = destinations[k];
                    e[1] = kind == W_ARRAY ? weights[k] : 1;
                    fill[sources[i]] += 2;
                }
        } else {
            oom = 1;
            memset(scount, 0, (size_t)p * sizeof(int));
        }
    }
    int failed = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, c->d) != MPI_SUCCESS;
    long long rtotal = 0;
    for (int r = 0; r < p && !failed; r++) {
        rdisp[r] = (int)rtotal;
        rtotal += rcount[r];
    }
    if (!failed && rtotal > INT_MAX) {
        topo_reject(c, "more than %d edges start here", INT_MAX / 2);
        oom = 1;
    } else if (!failed && !(rbuf = malloc((size_t)(rtotal + 1) * sizeof(int)))) {
        oom = 1;
    }
    /* Everybody takes part in the alltoallv, or nobody does. */
    if (topo_any(c, failed || oom))
        failed = 1;
    else
        failed = PMPI_Alltoallv(sbuf ? sbuf : cnt, scount, sdisp, MPI_INT, rbuf, rcount, rdisp, MPI_INT,
                                c->d) != MPI_SUCCESS;
    if (oom) topo_reject(c, "out of memory for the edges");
    if (failed) topo_reject(c, "routing the edges to their sources failed");
    for (long long k = 0; !c->bad && k + 1 < rtotal; k += 2) topo_edge(c, rbuf[k], rbuf[k + 1]);
    free(cnt);
    free(sbuf);
    free(rbuf);
}

int topo_dist_graph_create(const char *name, MPI_Comm old, int n, const int sources[],
                           const int degrees[], const int destinations[], const int weights[],
                           MPI_Info info, int reorder, MPI_Comm *out) {
    topo_call c;
    if (!topo_begin(&c, name, old, reorder))
        return PMPI_Dist_graph_create(old, n, sources, degrees, destinations, weights, info, reorder, out);
    general_pattern(&c, n, sources, degrees, destinations, weights);
    MPI_Comm nc;
    topo_map(&c, &nc);
    /* vertex v is rank v of any of the communicators: the same arguments describe the same graph */
    MPI_Comm on = topo_parent(&c, nc, &reorder);
    return topo_end(&c, nc, PMPI_Dist_graph_create(on, n, sources, degrees, destinations, weights, info, reorder, out),
                    out);
}

TOPO_EXPORT int MPI_Dist_graph_create(MPI_Comm old, int n, const int sources[], const int degrees[],
                                      const int destinations[], const int weights[], MPI_Info info,
                                      int reorder, MPI_Comm *out) {
    return topo_dist_graph_create("MPI_Dist_graph_create", old, n, sources, degrees, destinations,
                                  weights, info, reorder, out);
}
