/*
 * dist: gpumap_map_dist, the ParMETIS-shaped call (issue 24), on any
 * number of ranks >= 2. Rank 0 owns no vertices in every case.
 *
 *   dist          a 16x16 grid onto 2:2:2: every rank prints
 *                   DIST rank <r> status <s> J=<cost> check=<what the
 *                   program found: "ok" or what is wrong>
 *                 after recomputing J and the loads from the gathered
 *                 mapping, calling again (same mapping), and once more as
 *                 ParMETIS's problem ("8" / "1": J is the edge cut).
 *   dist invalid  the bad-input table: one bad argument per case (often
 *                 on one rank only); every rank prints
 *                   CASE <name> rank <r> status <s> <message>
 *                 and the caller's communicator is checked after each.
 */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "gpumap.h"

static int rank, size;

/* One rank's part of a distributed graph. */
typedef struct {
    int64_t *vtxdist, *xadj, *adjncy, *vwgt, *adjwgt;
    int64_t n, m;
} part;

/* vtxdist for N vertices: rank 0 owns none, the others a share each. */
static int64_t *distribution(int64_t N) {
    int64_t *vd = calloc((size_t)size + 1, sizeof *vd);
    for (int r = 1; r <= size; r++) vd[r] = r == 1 ? 0 : N * (r - 1) / (size - 1);
    vd[size] = N;
    return vd;
}

/* The local part of a graph given by its neighbour function, unit
 * weights in vwgt and adjwgt. */
static part build(int64_t N, int deg, void (*nbrs)(int64_t v, int64_t N, int64_t *out, int *d)) {
    part p;
    p.vtxdist = distribution(N);
    int64_t lo = p.vtxdist[rank], hi = p.vtxdist[rank + 1];
    p.n = hi - lo;
    p.xadj = calloc((size_t)p.n + 1, sizeof(int64_t));
    p.adjncy = calloc((size_t)(p.n * deg) + 1, sizeof(int64_t));
    p.vwgt = calloc((size_t)p.n + 1, sizeof(int64_t));
    p.adjwgt = calloc((size_t)(p.n * deg) + 1, sizeof(int64_t));
    int64_t e = 0;
    for (int64_t v = lo; v < hi; v++) {
        int d = 0;
        nbrs(v, N, p.adjncy + e, &d);
        for (int i = 0; i < d; i++) p.adjwgt[e + i] = 1;
        e += d;
        p.xadj[v - lo + 1] = e;
        p.vwgt[v - lo] = 1;
    }
    p.m = e;
    return p;
}

static void ring_nbrs(int64_t v, int64_t N, int64_t *out, int *d) {
    out[0] = (v + N - 1) % N;
    out[1] = (v + 1) % N;
    *d = 2;
}

enum { SIDE = 16 };
static void grid_nbrs(int64_t v, int64_t N, int64_t *out, int *d) {
    (void)N;
    int64_t x = v % SIDE, y = v / SIDE;
    *d = 0;
    if (x > 0) out[(*d)++] = v - 1;
    if (x < SIDE - 1) out[(*d)++] = v + 1;
    if (y > 0) out[(*d)++] = v - SIDE;
    if (y < SIDE - 1) out[(*d)++] = v + SIDE;
}

/* Rank 0 prints every rank's line: mpirun forwards each rank's output
 * in chunks, which can split one rank's line around another's. The
 * gather also checks that the caller's communicator still works. */
static void report(const char *name, int rc) {
    char line[1200], *all = rank == 0 ? malloc((size_t)size * sizeof line) : NULL;
    memset(line, 0, sizeof line);
    snprintf(line, sizeof line, "CASE %s rank %d status %d %s", name, rank, rc, rc ? gpumap_last_error() : "");
    if (MPI_Gather(line, sizeof line, MPI_CHAR, all, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        printf("CASE %s rank %d ERROR communicator damaged\n", name, rank);
        return;
    }
    if (rank == 0) {
        for (int r = 0; r < size; r++) printf("%s\n", all + (size_t)r * sizeof line);
        fflush(stdout);
        free(all);
    }
}

/* Maps p with the given machine and options (NULL: defaults) and prints
 * the case. */
static void run(const char *name, const part *p, const char *h, const char *d, const gpumap_options *o) {
    int64_t *pe = calloc((size_t)p->n + 1, sizeof *pe), cost = -1;
    int rc = gpumap_map_dist(p->vtxdist, p->xadj, p->adjncy, p->vwgt, p->adjwgt, h, d, o, pe, &cost,
                             MPI_COMM_WORLD);
    report(name, rc);
    free(pe);
}

/* A copy of p whose arrays the case may change. */
static part copy(const part *p) {
    part q = *p;
    q.vtxdist = malloc(((size_t)size + 1) * sizeof(int64_t));
    memcpy(q.vtxdist, p->vtxdist, ((size_t)size + 1) * sizeof(int64_t));
    q.xadj = malloc(((size_t)p->n + 1) * sizeof(int64_t));
    memcpy(q.xadj, p->xadj, ((size_t)p->n + 1) * sizeof(int64_t));
    q.adjncy = malloc(((size_t)p->m + 1) * sizeof(int64_t));
    memcpy(q.adjncy, p->adjncy, ((size_t)p->m + 1) * sizeof(int64_t));
    q.vwgt = malloc(((size_t)p->n + 1) * sizeof(int64_t));
    memcpy(q.vwgt, p->vwgt, ((size_t)p->n + 1) * sizeof(int64_t));
    q.adjwgt = malloc(((size_t)p->m + 1) * sizeof(int64_t));
    memcpy(q.adjwgt, p->adjwgt, ((size_t)p->m + 1) * sizeof(int64_t));
    return q;
}

/* count int64s ending exactly at an unmapped page: reading one more
 * faults. */
static int64_t *at_page_end(const int64_t *src, size_t count) {
    char *pg = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(pg + 4096, 4096);
    int64_t *a = (int64_t *)(pg + 4096) - count;
    memcpy(a, src, count * sizeof *a);
    return a;
}

static int invalid(void) {
    const int last = size - 1;
    part ring = build(4 * (int64_t)size, 2, ring_nbrs);
    gpumap_options o;
    const char *H = "2:2", *D = "1:10";
    run("valid", &ring, H, D, NULL);

    /* vtxdist: differs on the last rank, does not start at 0, decreases,
       does not cover the vertices the edges name. */
    part q = copy(&ring);
    if (rank == last) q.vtxdist[0] = 0, q.vtxdist[1] = 1;
    run("vtxdist-differs-on-one-rank", &q, H, D, NULL);
    q = copy(&ring);
    q.vtxdist[0] = 1;
    run("vtxdist-not-from-0", &q, H, D, NULL);
    q = copy(&ring);
    q.vtxdist[size - 1] = q.vtxdist[size] + 1;
    run("vtxdist-decreases", &q, H, D, NULL);
    q = copy(&ring);
    q.vtxdist[size] -= 1; /* the last rank's last vertex is gone; edges still name it */
    run("vtxdist-short-of-the-edges", &q, H, D, NULL);

    /* Symmetry: rank 1's first vertex (global 0) drops its edge to 1;
       rank 1 gives edge 0-1 weight 5 on one side. */
    q = copy(&ring);
    if (rank == 1) q.adjncy[1] = 2; /* 0 lists 2 instead of 1 */
    run("edge-not-listed-by-the-other-end", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == 1) q.adjwgt[1] = 5; /* 0 -> 1 weighs 5, 1 -> 0 weighs 1 */
    run("edge-weight-differs-between-ends", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.adjncy[1] = q.adjncy[0];
    run("duplicate-edge", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.adjncy[0] = q.vtxdist[last];
    run("self-loop", &q, H, D, NULL);

    /* Weights: negative, and each within int64 with sums that are not. */
    q = copy(&ring);
    if (rank == last) q.vwgt[0] = -3;
    run("negative-vertex-weight", &q, H, D, NULL);
    q = copy(&ring);
    for (int64_t e = 0; e < q.m; e++) q.adjwgt[e] = -1;
    run("negative-edge-weights", &q, H, D, NULL);
    q = copy(&ring);
    for (int64_t v = 0; v < q.n; v++) q.vwgt[v] = INT64_MAX / 3;
    run("vertex-weights-sum-past-int64", &q, H, D, NULL);
    q = copy(&ring);
    for (int64_t e = 0; e < q.m; e++) q.adjwgt[e] = INT64_MAX;
    run("edge-weights-sum-past-int64", &q, H, D, NULL);
    q = copy(&ring);
    for (int64_t e = 0; e < q.m; e++) q.adjwgt[e] = 1LL << 50;
    run("j-past-2^62", &q, H, "1:1099511627776", NULL);

    /* Options that differ on one rank. */
    gpumap_options_init(&o);
    if (rank == last) o.imbalance = 0.5;
    run("imbalance-differs-on-one-rank", &ring, H, D, &o);
    gpumap_options_init(&o);
    if (rank == last) o.seed = 42;
    run("seed-differs-on-one-rank", &ring, H, D, &o);
    gpumap_options_init(&o);
    if (rank == last) o.preset = GPUMAP_PRESET_STRONG;
    run("preset-differs-on-one-rank", &ring, H, D, &o);
    run("hierarchy-differs-on-one-rank", &ring, rank == last ? "4" : H, rank == last ? "1" : D, NULL);
    run("distance-differs-on-one-rank", &ring, H, rank == last ? "1:100" : D, NULL);
    gpumap_options_init(&o);
    o.threads = rank + 1; /* threads may differ: they change the time only */
    run("threads-differ", &ring, H, D, &o);

    /* Invalid options everywhere or on one rank. */
    run("hierarchy-malformed", &ring, "2:x", D, NULL);
    run("hierarchy-2^31-1-pes", &ring, "2147483647", "1", NULL); /* a hang before: 16 GB per-PE tables */
    gpumap_options_init(&o);
    o.imbalance = -0.5;
    run("imbalance-negative", &ring, H, D, &o);
    gpumap_options_init(&o);
    if (rank == last) o.backend = GPUMAP_BACKEND_GPU;
    run("backend-gpu-on-one-rank", &ring, H, D, &o);
    gpumap_options_init(&o);
    o.reserved_int = 7;
    run("options-uninitialised", &ring, H, D, &o);

    /* NULL and short arrays. */
    q = copy(&ring);
    if (rank == last) q.xadj = NULL;
    run("xadj-null-on-one-rank", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.adjncy = NULL;
    run("adjncy-null-on-one-rank", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.vtxdist = NULL;
    run("vtxdist-null-on-one-rank", &q, H, D, NULL);
    run("hierarchy-null", &ring, NULL, D, NULL);
    q = copy(&ring);
    if (rank == last) q.xadj = at_page_end(ring.xadj, (size_t)ring.n); /* n entries, not n+1 */
    run("xadj-short-on-one-rank", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.adjncy = at_page_end(ring.adjncy, (size_t)ring.m - 1);
    run("adjncy-short-on-one-rank", &q, H, D, NULL);
    q = copy(&ring);
    q.vtxdist = at_page_end(ring.vtxdist, (size_t)size); /* size entries, not size+1 */
    run("vtxdist-short", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.xadj[0] = 1;
    run("xadj-not-from-0", &q, H, D, NULL);
    q = copy(&ring);
    if (rank == last) q.xadj[q.n] = -2;
    run("xadj-negative-end", &q, H, D, NULL);
    {
        /* pe read-only on one rank */
        int64_t *pe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (rank == last) mprotect(pe, 4096, PROT_READ);
        int rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, pe, NULL,
                                 MPI_COMM_WORLD);
        report("pe-read-only-on-one-rank", rc);
        /* cost read-only, or a garbage pointer, on one rank: it was
           written directly (a fault that killed the job, or status 11 on
           that rank alone) */
        int64_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *mine = calloc((size_t)ring.n + 1, sizeof *mine);
        rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, mine, rank == last ? ro : NULL,
                             MPI_COMM_WORLD);
        report("cost-read-only-on-one-rank", rc);
        rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, mine,
                             rank == last ? (int64_t *)16 : NULL, MPI_COMM_WORLD);
        report("cost-pointer-garbage-on-one-rank", rc);
        munmap(ro, 4096);
        free(mine);
    }
    {
        int64_t cost;
        int rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, NULL, &cost,
                                 MPI_COMM_WORLD);
        report("pe-null", rc);
    }

    /* Communicators. */
    {
        int64_t pe[64];
        int rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, pe, NULL,
                                 MPI_COMM_NULL);
        report("comm-null", rc);
        rc = gpumap_map_dist_f(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, pe, NULL, 12345);
        report("fortran-handle-garbage", rc);
    }

    /* Ranks in different gpumap calls: all fail together (the ranks of
       one call got MPI_ERR_TRUNCATE and the others hung before). */
    {
        int nb[1] = {0}, rc;
        double vol[1] = {1}, cost;
        MPI_Comm out = MPI_COMM_NULL;
        if (rank == 1)
            rc = gpumap_reorder(MPI_COMM_WORLD, 1, nb, vol, NULL, &out);
        else
            rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, NULL, NULL,
                                 MPI_COMM_WORLD);
        if (rc == GPUMAP_OK && out != MPI_COMM_NULL) MPI_Comm_free(&out);
        report("reorder-on-one-rank", rc);
        int64_t *pe = calloc((size_t)ring.n + 1, sizeof *pe);
        nb[0] = 1;
        if (rank == 0)
            rc = gpumap_cost(MPI_COMM_WORLD, 1, nb, vol, NULL, &cost);
        else
            rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, pe, NULL,
                                 MPI_COMM_WORLD);
        free(pe);
        report("cost-on-rank-0", rc);
    }

    /* Shapes a conformance check tries that held (issue 24's attack):
       one vertex on the last rank (P > n), arity-1 levels, one PE, eps 0,
       no edges (adjncy NULL), no vertices anywhere. */
    {
        int64_t *vd = calloc((size_t)size + 1, sizeof *vd), x1[2] = {0, 0}, pe[2];
        vd[size] = 1;
        int rc = gpumap_map_dist(vd, rank == last ? x1 : NULL, NULL, NULL, NULL, H, D, NULL, rank == last ? pe : NULL,
                                 NULL, MPI_COMM_WORLD);
        report("one-vertex-on-the-last-rank", rc);
        int64_t *none = calloc((size_t)size + 1, sizeof *none);
        rc = gpumap_map_dist(none, NULL, NULL, NULL, NULL, H, D, NULL, NULL, NULL, MPI_COMM_WORLD);
        report("no-vertices-anywhere", rc);
        free(vd);
        free(none);
    }
    run("arity-1-levels", &ring, "1:2:1:2", "1:10:100:1000", NULL);
    run("one-pe", &ring, "1", "1", NULL);
    gpumap_options_init(&o);
    o.imbalance = 0;
    run("eps-0", &ring, H, D, &o);
    q = copy(&ring);
    memset(q.xadj, 0, ((size_t)q.n + 1) * sizeof(int64_t));
    q.adjncy = q.adjwgt = NULL;
    run("no-edges-adjncy-null", &q, H, D, NULL);

    /* A split communicator whose other half is busy on its own (an
       allreduce first, then a call of its own), and an
       inter-communicator. */
    {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        int hr, hs;
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hs);
        if (rank % 2) {
            int one = 1, sum;
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
        }
        int64_t *vd = calloc((size_t)hs + 1, sizeof *vd), x[5] = {0, 2, 4, 6, 8}, adj[8], pe[4];
        int64_t N = 4 * (int64_t)hs;
        for (int r = 0; r <= hs; r++) vd[r] = 4 * (int64_t)r;
        for (int64_t v = 0; v < 4; v++) {
            adj[2 * v] = (vd[hr] + v + N - 1) % N;
            adj[2 * v + 1] = (vd[hr] + v + 1) % N;
        }
        int rc = gpumap_map_dist(vd, x, adj, NULL, NULL, H, D, NULL, pe, NULL, half);
        report("split-other-half-busy", rc);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 24, &inter);
        rc = gpumap_map_dist(ring.vtxdist, ring.xadj, ring.adjncy, NULL, NULL, H, D, NULL, NULL, NULL, inter);
        report("inter-communicator", rc);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
        free(vd);
    }

    /* Infeasible: vertex weights 7 and 1 on two PEs with eps 0 (Lmax 4). */
    {
        part t = copy(&ring);
        for (int64_t v = 0; v < t.n; v++) t.vwgt[v] = t.vtxdist[rank] + v == 0 ? 1000 : 1;
        gpumap_options_init(&o);
        o.imbalance = 0;
        run("infeasible", &t, "2", "1", &o);
    }
    return 0;
}

/* J, the heaviest PE and the edge cut of the mapping pe of the whole
 * graph (on rank 0 after the gather). */
static void evaluate(int64_t N, const int64_t *pe, int k, const int *arity, const int64_t *dist, int levels,
                     int64_t *J, int64_t *heaviest, int64_t *cut) {
    int64_t *load = calloc((size_t)k, sizeof *load);
    *J = *cut = *heaviest = 0;
    for (int64_t v = 0; v < N; v++) {
        load[pe[v]]++;
        int64_t nb[4];
        int d = 0;
        grid_nbrs(v, N, nb, &d);
        for (int i = 0; i < d; i++) {
            int64_t a = pe[v], b = pe[nb[i]];
            if (a == b) continue;
            int lvl = 0; /* the highest level at which a and b differ */
            for (int l = 0; l < levels; l++) {
                if (a % arity[l] != b % arity[l]) lvl = l;
                a /= arity[l];
                b /= arity[l];
            }
            *J += dist[lvl];
            (*cut)++;
        }
    }
    *J /= 2;
    *cut /= 2;
    for (int p = 0; p < k; p++)
        if (load[p] > *heaviest) *heaviest = load[p];
    free(load);
}

/* Gathers the mapping on rank 0. */
static int64_t *gather(const part *p, const int64_t *pe) {
    int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
    for (int r = 0; r < size; r++) {
        counts[r] = (int)(p->vtxdist[r + 1] - p->vtxdist[r]);
        displs[r] = (int)p->vtxdist[r];
    }
    int64_t *all = calloc((size_t)p->vtxdist[size], sizeof *all);
    MPI_Gatherv(pe, (int)p->n, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    return all;
}

static int valid(void) {
    const int64_t N = SIDE * SIDE;
    part g = build(N, 4, grid_nbrs);
    int64_t *pe = calloc((size_t)g.n + 1, sizeof *pe), *again = calloc((size_t)g.n + 1, sizeof *again);
    int64_t cost = -1, cost2 = -1, cut = -1;
    gpumap_options o;
    gpumap_options_init(&o);
    o.seed = 3;
    o.verbosity = 1;
    int rc = gpumap_map_dist(g.vtxdist, g.xadj, g.adjncy, NULL, NULL, "2:2:2", "1:10:100", &o, pe, &cost,
                             MPI_COMM_WORLD);
    o.verbosity = 0;
    int rc2 = gpumap_map_dist(g.vtxdist, g.xadj, g.adjncy, g.vwgt, g.adjwgt, "2:2:2", "1:10:100", &o, again,
                              &cost2, MPI_COMM_WORLD);
    int same = rc == rc2 && cost == cost2 && memcmp(pe, again, (size_t)g.n * sizeof *pe) == 0, all = 0;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    /* ParMETIS's problem: 8 blocks, J = the edge cut. */
    int rc3 = gpumap_map_dist(g.vtxdist, g.xadj, g.adjncy, NULL, NULL, "8", "1", &o, again, &cut, MPI_COMM_WORLD);
    int64_t *whole = gather(&g, pe), *flat = gather(&g, again);
    char check[200] = "ok";
    if (rank == 0) {
        static const int arity[3] = {2, 2, 2}, flat_arity[1] = {8};
        static const int64_t dist[3] = {1, 10, 100}, flat_dist[1] = {1};
        int64_t J, heavy, c, J1, heavy1, c1;
        evaluate(N, whole, 8, arity, dist, 3, &J, &heavy, &c);
        evaluate(N, flat, 8, flat_arity, flat_dist, 1, &J1, &heavy1, &c1);
        const int64_t lmax = 33; /* ceil(1.03 * 256 / 8) */
        if (rc != GPUMAP_OK || rc2 != GPUMAP_OK || rc3 != GPUMAP_OK)
            snprintf(check, sizeof check, "status %d %d %d: %s", rc, rc2, rc3, gpumap_last_error());
        else if (J != cost)
            snprintf(check, sizeof check, "cost %lld but the mapping's J is %lld", (long long)cost, (long long)J);
        else if (heavy > lmax)
            snprintf(check, sizeof check, "heaviest PE %lld > Lmax %lld", (long long)heavy, (long long)lmax);
        else if (!all)
            snprintf(check, sizeof check, "the second call (explicit unit weights) gave another mapping");
        else if (J1 != cut || c1 != cut)
            snprintf(check, sizeof check, "8/1: cost %lld, J %lld, edge cut %lld", (long long)cut, (long long)J1,
                     (long long)c1);
        else if (heavy1 > lmax)
            snprintf(check, sizeof check, "8/1: heaviest PE %lld > Lmax %lld", (long long)heavy1, (long long)lmax);
    }
    printf("DIST rank %d status %d J=%lld cut=%lld n=%lld check=%s\n", rank, rc, (long long)cost, (long long)cut,
           (long long)g.n, check);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    int bad = argc > 1 && strcmp(argv[1], "invalid") == 0;
    /* Before MPI_Init and after MPI_Finalize: GPUMAP_ERR_MPI having
       called only MPI_Initialized and MPI_Finalized. */
    static const int64_t vd[2] = {0, 0}, xa[1] = {0};
    int before = gpumap_map_dist(vd, xa, NULL, NULL, NULL, "2", "1", NULL, NULL, NULL, MPI_COMM_WORLD);
    int before_f = gpumap_map_dist_f(vd, xa, NULL, NULL, NULL, "2", "1", NULL, NULL, NULL, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (bad) {
        report("before-init", before);
        report("before-init-fortran-handle", before_f);
        invalid();
    } else {
        valid();
    }
    MPI_Finalize();
    if (bad) {
        int after = gpumap_map_dist(vd, xa, NULL, NULL, NULL, "2", "1", NULL, NULL, NULL, MPI_COMM_WORLD);
        printf("CASE after-finalize rank %d status %d %s\n", rank, after, gpumap_last_error());
        fflush(stdout);
    }
    return 0;
}
