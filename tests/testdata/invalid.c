/*
 * invalid: the table of invalid inputs. Every case calls gpumap on all
 * ranks with one bad argument (often on one rank only); every rank prints
 * the status it got, and the communicator is checked to be intact (an
 * MPI_Allreduce on it) before the next case. Needs >= 4 ranks.
 *   CASE <name> rank <r> status <s> <message or details>
 *
 *   invalid               the cases inside MPI_Init ... MPI_Finalize
 *   invalid lifecycle     the Fortran-handle and C entry points before
 *                         MPI_Init and after MPI_Finalize
 *   invalid collectives   one rank in gpumap_cost, the others in
 *                         gpumap_reorder (a hang before issue 8's D4)
 * The modes are separate runs so that a crash or a hang in one cannot hide
 * the others.
 */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpumap.h"

static int rank, size;

static void report(const char *name, int rc, MPI_Comm got) {
    printf("CASE %s rank %d status %d %s\n", name, rank, rc, rc ? gpumap_last_error() : "");
    fflush(stdout);
    if (rc != GPUMAP_OK && got != MPI_COMM_NULL) {
        printf("CASE %s rank %d ERROR newcomm not MPI_COMM_NULL on failure\n", name, rank);
    }
    if (rc == GPUMAP_OK && got != MPI_COMM_NULL) MPI_Comm_free(&got);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) printf("CASE %s rank %d ERROR communicator damaged\n", name, rank);
}

/* "same order" when out is congruent with MPI_COMM_WORLD and every rank
 * kept its rank; frees out. */
static const char *order_of(int rc, MPI_Comm *out) {
    if (rc != GPUMAP_OK) return "";
    int r = -1, same = 0;
    MPI_Comm_rank(*out, &r);
    MPI_Comm_compare(*out, MPI_COMM_WORLD, &same);
    int kept = r == rank && same == MPI_CONGRUENT, all = 0;
    MPI_Allreduce(&kept, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_free(out);
    return all ? "same-order" : "new-order";
}

/* Prints the case with the order it produced and the result fields. */
static void report_order(const char *name, int rc, MPI_Comm *out) {
    gpumap_result res;
    memset(&res, 0, sizeof res);
    if (rc == GPUMAP_OK) gpumap_last_result(&res);
    const char *order = order_of(rc, out);
    if (rc == GPUMAP_OK)
        printf("CASE %s rank %d status 0 %s changed=%d disabled=%d reordered=%d before=%.17g after=%.17g map_s=%g call_s=%g\n",
               name, rank, order, res.changed, res.disabled, res.reordered, res.cost_before,
               res.cost_after, res.map_seconds, res.call_seconds);
    else
        printf("CASE %s rank %d status %d %s\n", name, rank, rc, gpumap_last_error());
    fflush(stdout);
}

/* ranks 0-2 and 1-3 exchange much, 0-1 and 2-3 little: on a 2:2 machine
 * (ranks 0,1 and 2,3 in one socket each) reordering pays. */
static int crossed(int *nb, double *vol) {
    static const int partner[4] = {2, 3, 0, 1}, light[4] = {1, 0, 3, 2};
    nb[0] = partner[rank];
    vol[0] = 1 << 20;
    nb[1] = light[rank];
    vol[1] = 1;
    return 2;
}

/* gpumap_map_graph on the path 0-1-2-3 (0-based CSR), with the given
 * adjncy, vertex and edge weights and hierarchy; prints the case. */
static void map_graph_case(const char *name, const int32_t *adjncy, const int64_t *vw, const int64_t *ew,
                           const char *hier, const char *dist) {
    static const int64_t xadj[5] = {0, 1, 3, 5, 6};
    int32_t pe[4];
    int64_t cost = -1;
    int rc = gpumap_map_graph(4, xadj, adjncy, vw, ew, hier, dist, NULL, pe, &cost);
    printf("CASE %s rank %d status %d %s\n", name, rank, rc, rc ? gpumap_last_error() : "");
    fflush(stdout);
}

/* a hierarchy string of the given number of levels: "1:1:...:1:4" */
static char *deep(int levels) {
    char *s = malloc(2 * (size_t)levels + 1);
    for (int i = 0; i < levels - 1; i++) memcpy(s + 2 * i, "1:", 2);
    strcpy(s + 2 * (levels - 1), "4");
    return s;
}

static int lifecycle(int argc, char **argv) {
    int nb[1] = {0};
    double vol[1] = {1};
    double cost = 0;
    MPI_Fint nf_reorder = 12345, nf_cost = 0;
    MPI_Comm c = MPI_COMM_WORLD;
    /* Before MPI_Init: only MPI_Initialized/MPI_Finalized may be called. */
    int rc_reorder_f = gpumap_reorder_f(0, 0, nb, vol, NULL, &nf_reorder);
    int rc_cost_f = gpumap_cost_f(0, 0, nb, vol, NULL, &cost);
    int rc_reorder = gpumap_reorder(MPI_COMM_WORLD, 0, nb, vol, NULL, &c);
    int rc_cost = gpumap_cost(MPI_COMM_WORLD, 0, nb, vol, NULL, &cost);
    (void)nf_cost;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("CASE reorder-f-before-init rank %d status %d %s\n", rank, rc_reorder_f,
           nf_reorder == MPI_Comm_c2f(MPI_COMM_NULL) ? "newcomm=MPI_COMM_NULL" : "ERROR newcomm is not the Fortran MPI_COMM_NULL");
    printf("CASE cost-f-before-init rank %d status %d\n", rank, rc_cost_f);
    printf("CASE reorder-before-init rank %d status %d %s\n", rank, rc_reorder,
           c == MPI_COMM_NULL ? "newcomm=MPI_COMM_NULL" : "ERROR newcomm is not MPI_COMM_NULL");
    printf("CASE cost-before-init rank %d status %d\n", rank, rc_cost);
    fflush(stdout);
    MPI_Finalize();
    nf_reorder = 12345;
    rc_reorder_f = gpumap_reorder_f(0, 0, nb, vol, NULL, &nf_reorder);
    rc_cost_f = gpumap_cost_f(0, 0, nb, vol, NULL, &cost);
    rc_reorder = gpumap_reorder(MPI_COMM_WORLD, 0, nb, vol, NULL, &c);
    printf("CASE reorder-f-after-finalize rank %d status %d %s\n", rank, rc_reorder_f, gpumap_last_error());
    printf("CASE cost-f-after-finalize rank %d status %d\n", rank, rc_cost_f);
    printf("CASE reorder-after-finalize rank %d status %d\n", rank, rc_reorder);
    fflush(stdout);
    return 0;
}

static int collectives(void) {
    int nb[2] = {(rank + 1) % size, (rank + size - 1) % size};
    double vol[2] = {1000, 1000};
    MPI_Comm out = MPI_COMM_NULL;
    int rc;
    if (rank == 1) {
        double cost = -1;
        rc = gpumap_cost(MPI_COMM_WORLD, 2, nb, vol, NULL, &cost);
    } else {
        rc = gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, &out);
    }
    report("cost-vs-reorder", rc, out);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "lifecycle") == 0) return lifecycle(argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "collectives") == 0) {
        collectives();
        MPI_Finalize();
        return 0;
    }
    int nb[2] = {(rank + 1) % size, (rank + size - 1) % size};
    double vol[2] = {1000, 1000};
    gpumap_options opt;
    MPI_Comm out;
    int rc;

#define CALL(name, deg, n, v, o, newp) \
    do { out = MPI_COMM_NULL; rc = gpumap_reorder(MPI_COMM_WORLD, deg, n, v, o, newp); report(name, rc, out); } while (0)

    CALL("valid", 2, nb, vol, NULL, &out);

    double neg[2] = {1000, rank == 1 ? -5 : 1000};
    CALL("negative-volume", 2, nb, neg, NULL, &out);

    double nan_[2] = {rank == 2 ? NAN : 1000, 1000};
    CALL("nan-volume", 2, nb, nan_, NULL, &out);

    double inf_[2] = {rank == 2 ? INFINITY : 1000, 1000};
    CALL("infinite-volume", 2, nb, inf_, NULL, &out);

    int far[2] = {nb[0], rank == 0 ? size : nb[1]};
    CALL("neighbour-out-of-range", 2, far, vol, NULL, &out);

    int minus[2] = {nb[0], rank == 0 ? -1 : nb[1]};
    CALL("negative-neighbour", 2, minus, vol, NULL, &out);

    int self[2] = {nb[0], rank == 3 ? 3 : nb[1]};
    CALL("self-neighbour", 2, self, vol, NULL, &out);

    CALL("negative-degree", rank == 1 ? -1 : 2, nb, vol, NULL, &out);

    CALL("null-arrays", 2, rank == 2 ? NULL : nb, vol, NULL, &out);

    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, rank == 1 ? NULL : &out);
    report("null-newcomm", rc, out);

    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_NULL, 2, nb, vol, NULL, &out);
    report("comm-null", rc, out);

    /* An inter-communicator between the even and the odd ranks. */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 99, &inter);
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(inter, 0, NULL, NULL, NULL, &out);
    report("inter-communicator", rc, out);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    gpumap_options_init(&opt);
    if (rank == 0) opt.preset = GPUMAP_PRESET_STRONG;
    CALL("options-differ-across-ranks", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.hierarchy = "3:3";
    CALL("hierarchy-does-not-fit", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.distance = "1:10";
    CALL("distance-levels-mismatch", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.hierarchy = "4:x";
    CALL("hierarchy-malformed", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.version = 99;
    CALL("options-version", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.preset = 42;
    CALL("unknown-preset", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.pattern = GPUMAP_PATTERN_EXCHANGE;
    int one_way[1] = {(rank + 1) % size};
    CALL("exchange-asymmetric", 1, one_way, vol, &opt, &out);

    double lopsided[2] = {1000, rank == 0 ? 2000 : 1000};
    CALL("exchange-volumes-differ", 2, nb, lopsided, &opt, &out);

    gpumap_options_init(&opt);
    opt.backend = GPUMAP_BACKEND_GPU;
    CALL("backend-gpu-without-gpu", 2, nb, vol, &opt, &out);

    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_SELF, 0, NULL, NULL, NULL, &out);
    report("size-one-communicator", rc, out);

    /* ---- issue 8 ---- */

    /* A Fortran handle that is no communicator: MPI would abort on it. */
    MPI_Fint garbage = 12345, nf = 0;
    rc = gpumap_reorder_f(garbage, 2, nb, vol, NULL, &nf);
    report("fortran-handle-garbage", rc, nf == MPI_Comm_c2f(MPI_COMM_NULL) ? MPI_COMM_NULL : MPI_COMM_WORLD);

    /* D1: a megabyte of levels. */
    char *mb = deep(500000);
    gpumap_options_init(&opt);
    opt.hierarchy = mb;
    CALL("hierarchy-1MB", 2, nb, vol, &opt, &out);
    free(mb);

    /* D3: the environment is read at call time. A pattern that does
     * reorder on 2:2, then the same with GPUMAP_DISABLE set by setenv. */
    int cnb[2];
    double cvol[2];
    crossed(cnb, cvol);
    gpumap_options_init(&opt);
    opt.hierarchy = "2:2";
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, cnb, cvol, &opt, &out);
    report_order("crossed-reorders", rc, &out);

    setenv("GPUMAP_DISABLE", "1", 1);
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, cnb, cvol, &opt, &out);
    report_order("disabled-by-setenv-keeps-order", rc, &out);
    unsetenv("GPUMAP_DISABLE");

    if (rank == 1) setenv("GPUMAP_DISABLE", "1", 1);
    CALL("disable-differs-across-ranks", 2, cnb, cvol, &opt, &out);
    unsetenv("GPUMAP_DISABLE");

    setenv("GPUMAP_DISABLE", "maybe", 1);
    CALL("disable-malformed", 2, cnb, cvol, &opt, &out);
    unsetenv("GPUMAP_DISABLE");

    setenv("GPUMAP_HIERARCHY", "3:3", 1);
    CALL("hierarchy-by-setenv-does-not-fit", 2, nb, vol, NULL, &out);
    setenv("GPUMAP_HIERARCHY", rank == 0 ? "4" : "2:2", 1);
    CALL("hierarchy-env-differs-across-ranks", 2, nb, vol, NULL, &out);
    unsetenv("GPUMAP_HIERARCHY");

    /* D9: the largest distance the parser takes. */
    gpumap_options_init(&opt);
    opt.hierarchy = "2:2";
    opt.distance = "1:1099511627776";
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, cnb, cvol, &opt, &out);
    report_order("distance-2^40", rc, &out);

    /* D10: DBL_MAX bytes one way, across sockets: J overflows a double. */
    int far_nb[1] = {(rank + 2) % size};
    double dmax[1] = {rank == 0 ? DBL_MAX : 1};
    gpumap_options_init(&opt);
    opt.hierarchy = "2:2";
    double cost = 0;
    rc = gpumap_cost(MPI_COMM_WORLD, 1, far_nb, dmax, &opt, &cost);
    if (rc == GPUMAP_OK && isinf(cost)) printf("CASE cost-dbl-max-volume rank %d ERROR cost is %g\n", rank, cost);
    report("cost-dbl-max-volume", rc, MPI_COMM_NULL);
    CALL("reorder-dbl-max-volume", 1, far_nb, dmax, &opt, &out);

    /* D11: exact agreement. */
    gpumap_options_init(&opt);
    opt.seed = rank == 0 ? 188904 : 558220;
    CALL("seeds-188904-vs-558220", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    const char *spellings[4] = {"4", " 4 ", "+4", "04"};
    opt.hierarchy = spellings[rank % 4];
    CALL("hierarchy-4-spelled-four-ways", 2, nb, vol, &opt, &out);

    /* Build 2: an order that is already optimal is kept (a ring of four
     * on 2:2 costs the same in every split). */
    int ring[2] = {(rank + 1) % size, (rank + size - 1) % size};
    double rvol[2] = {5000, 5000};
    gpumap_options_init(&opt);
    opt.hierarchy = "2:2";
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, ring, rvol, &opt, &out);
    report_order("optimal-order-kept", rc, &out);

    /* Build 3: algorithm and imbalance act or are rejected, and agree. */
    gpumap_options_init(&opt);
    opt.algorithm = GPUMAP_ALGORITHM_IM;
    CALL("algorithm-im-rejected", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.algorithm = GPUMAP_ALGORITHM_HM;
    opt.hierarchy = "2:2";
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, cnb, cvol, &opt, &out);
    report_order("algorithm-hm", rc, &out);

    gpumap_options_init(&opt);
    if (rank == 2) opt.algorithm = GPUMAP_ALGORITHM_HM;
    CALL("algorithm-differs-across-ranks", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.imbalance = 0.05;
    CALL("imbalance-rejected", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.imbalance = 0;
    CALL("imbalance-zero", 2, nb, vol, &opt, &out);

    /* Verbosity 1: rank 0 prints the summary with the times (stderr). */
    gpumap_options_init(&opt);
    opt.verbosity = 1;
    opt.hierarchy = "2:2";
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, cnb, cvol, &opt, &out);
    fflush(stderr);
    report_order("verbosity-1", rc, &out);

    /* gpumap_map_graph (not collective; every rank runs it). */
    static const int32_t path[6] = {1, 0, 2, 1, 3, 2};
    map_graph_case("map-graph-valid", path, NULL, NULL, "2:2", "1:10");
    char *levels = deep(524288);
    map_graph_case("map-graph-524288-levels", path, NULL, NULL, levels, levels);
    free(levels);
    static const int32_t bad_nb[6] = {1, 0, 2, 1, 4, 2};
    map_graph_case("map-graph-neighbour-out-of-range", bad_nb, NULL, NULL, "2:2", "1:10");
    static const int64_t big_vw[4] = {INT64_MAX, INT64_MAX, 1, 1};
    map_graph_case("map-graph-int64max-vertex-weights", path, big_vw, NULL, "2:2", "1:10");
    static const int64_t big_ew[6] = {INT64_MAX, INT64_MAX, 1, 1, 1, 1};
    map_graph_case("map-graph-int64max-edge-weights", path, NULL, big_ew, "2:2", "1:10");
    static const int64_t ew32[6] = {1LL << 32, 1LL << 32, 1, 1, 1, 1};
    map_graph_case("map-graph-j-bound", path, NULL, ew32, "2:2", "1:1099511627776");
    map_graph_case("map-graph-tiny-on-10000", path, NULL, NULL, "10000", "1");
    map_graph_case("map-graph-tiny-on-2147483647", path, NULL, NULL, "2147483647", "1");

    /* Last (D3's original case): GPUMAP_DISABLE on a pattern that keeps
     * its order anyway. */
    setenv("GPUMAP_DISABLE", "1", 1);
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, &out);
    report_order("disabled-keeps-order", rc, &out);
    unsetenv("GPUMAP_DISABLE");

    MPI_Finalize();
    return 0;
}
