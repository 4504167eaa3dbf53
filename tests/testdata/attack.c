/*
 * attack: hostile input to every C entry point, as a careless or hostile
 * user would give it (the held-out attack of issue 8). Same output as
 * invalid.c: every rank prints
 *   CASE <name> rank <r> status <s> <message>
 * and the communicator is checked with an MPI_Allreduce after each case.
 * Needs 4 ranks.
 *   attack          uninitialised options, garbage pointers, counts larger
 *                   than their arrays, every enum out of range, strange
 *                   strings and volumes, odd communicators and error
 *                   handlers, attribute callbacks, gpumap_map_graph and
 *                   the non-collective helpers
 *   attack threads  MPI_THREAD_MULTIPLE: threads calling at once
 *   attack repeat N N rounds of calls: no communicator or memory is kept
 *   attack world-attribute  an attribute on MPI_COMM_WORLD whose copy
 *                   callback fails, then a ring message: for the recorder,
 *                   which must not copy it at MPI_Finalize
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "gpumap.h"

/* The garbage pointers below are the point of the program. */
#pragma GCC diagnostic ignored "-Wstringop-overread"

static int rank, size;

static void report(const char *name, int rc, MPI_Comm got) {
    printf("CASE %s rank %d status %d %s\n", name, rank, rc, rc ? gpumap_last_error() : "");
    fflush(stdout);
    if (rc != GPUMAP_OK && got != MPI_COMM_NULL)
        printf("CASE %s rank %d ERROR newcomm not MPI_COMM_NULL on failure\n", name, rank);
    if (rc == GPUMAP_OK && got != MPI_COMM_NULL) MPI_Comm_free(&got);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) printf("CASE %s rank %d ERROR communicator damaged\n", name, rank);
}

/* A ring: every rank sends 1000 bytes to both neighbours. */
static int nb[2];
static double vol[2] = {1000, 1000};

#define REORDER(name, comm, deg, n, v, o)                                  \
    do {                                                                   \
        MPI_Comm out_ = MPI_COMM_NULL;                                     \
        int rc_ = gpumap_reorder(comm, deg, n, v, o, &out_);               \
        report(name, rc_, out_);                                           \
    } while (0)

#define OPTION(name, field, value)                                         \
    do {                                                                   \
        gpumap_options o_;                                                 \
        gpumap_options_init(&o_);                                          \
        o_.field = value;                                                  \
        REORDER(name, MPI_COMM_WORLD, 2, nb, vol, &o_);                    \
    } while (0)

/* A page of '4's followed by an unmapped page: a string without its NUL. */
static char *unterminated(void) {
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + 4096, 4096);
    memset(p, '4', 4096);
    return p;
}

/* "1:1:...:1:4" with the given number of levels. */
static char *levels(int n) {
    char *s = malloc(2 * (size_t)n + 1);
    for (int i = 0; i < n - 1; i++) memcpy(s + 2 * i, "1:", 2);
    strcpy(s + 2 * (n - 1), "4");
    return s;
}

static int copy_fails(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
    (void)c, (void)k, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static void options_and_pointers(void) {
    gpumap_options o;
    /* An uninitialised struct whose version happens to be right: its
     * pointers must never be followed. */
    memset(&o, 0xAB, sizeof o);
    o.version = GPUMAP_OPTIONS_VERSION;
    REORDER("options-uninitialised", MPI_COMM_WORLD, 2, nb, vol, &o);
    OPTION("options-reserved-not-zero", reserved_int, 7);
    REORDER("options-pointer-garbage", MPI_COMM_WORLD, 2, nb, vol, (const gpumap_options *)16);
    OPTION("hierarchy-pointer-garbage", hierarchy, (const char *)0xABABABABABABull);
    char *u = unterminated();
    OPTION("hierarchy-without-nul", hierarchy, u);
    gpumap_options_init(&o);
    if (rank == 2) o.distance = u;
    REORDER("distance-without-nul-on-one-rank", MPI_COMM_WORLD, 2, nb, vol, &o);
    munmap(u, 4096);

    /* Counts larger than their arrays. */
    REORDER("degree-int-max", MPI_COMM_WORLD, INT_MAX, nb, vol, NULL);
    REORDER("degree-beyond-array-on-one-rank", MPI_COMM_WORLD, rank == 1 ? 1 << 24 : 2, nb, vol, NULL);
    REORDER("neighbors-pointer-garbage", MPI_COMM_WORLD, 2, (const int *)16, vol, NULL);
    double cost = -1;
    int rc = gpumap_cost(MPI_COMM_WORLD, 2, nb, (const double *)8, NULL, &cost);
    report("cost-volumes-pointer-garbage", rc, MPI_COMM_NULL);
    /* The result's pointer garbage on one rank: written directly, status
       11 on that rank alone before. */
    rc = gpumap_cost(MPI_COMM_WORLD, 2, nb, vol, NULL, rank == 1 ? (double *)16 : &cost);
    report("cost-out-pointer-garbage-on-one-rank", rc, MPI_COMM_NULL);
    /* newcomm garbage on one rank: written after the mapping, it faulted
       on that rank alone while the others had their communicator. */
    MPI_Comm out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, rank == 1 ? (MPI_Comm *)16 : &out);
    report("newcomm-pointer-garbage-on-one-rank", rc, out);

    /* Every enum out of range, odd numbers. */
    OPTION("preset-int-min", preset, INT_MIN);
    OPTION("backend-negative", backend, -1);
    OPTION("algorithm-3", algorithm, 3);
    OPTION("pattern-2", pattern, 2);
    OPTION("threads-4097", threads, 4097);
    OPTION("imbalance-nan", imbalance, NAN);
    OPTION("verbosity-negative", verbosity, -7);
    OPTION("seed-max", seed, UINT64_MAX);

    /* Strange strings. */
    OPTION("hierarchy-blank", hierarchy, " \t ");
    OPTION("hierarchy-fullwidth-digit", hierarchy, "\xef\xbc\x94"); /* U+FF14 */
    OPTION("hierarchy-invalid-utf8", hierarchy, "\xff\xfe");
    OPTION("hierarchy-comma", hierarchy, "2,2");
    OPTION("hierarchy-embedded-nul", hierarchy, "2:2\0:9");
    char *l65 = levels(65), *l64 = levels(64);
    OPTION("hierarchy-65-levels", hierarchy, l65);
    OPTION("hierarchy-64-levels", hierarchy, l64);
    free(l65);
    free(l64);
    OPTION("distance-beyond-2^40", distance, "1:1:1099511627777");
    OPTION("distance-exponent", distance, "1e3:1:1");
}

static void volumes_and_neighbours(void) {
    double sub[2] = {4.9e-324, 4.9e-324};
    REORDER("volumes-subnormal", MPI_COMM_WORLD, 2, nb, sub, NULL);
    double zero[2] = {0, -0.0};
    REORDER("volumes-zero", MPI_COMM_WORLD, 2, nb, zero, NULL);
    double big[2] = {DBL_MAX, DBL_MAX};
    REORDER("volumes-dbl-max-both-ways", MPI_COMM_WORLD, 2, nb, big, NULL);
    int dup[3] = {nb[0], nb[0], nb[0]};
    double dupv[3] = {DBL_MAX, DBL_MAX / 2, 1};
    REORDER("duplicate-neighbours-overflow", MPI_COMM_WORLD, 3, dup, dupv, NULL);
    double dupw[3] = {1, 2, 3};
    REORDER("duplicate-neighbours", MPI_COMM_WORLD, 3, dup, dupw, NULL);
    int imin[1] = {INT_MIN};
    REORDER("neighbour-int-min", MPI_COMM_WORLD, 1, imin, vol, NULL);
    double nnan[2] = {1, rank == 3 ? -NAN : 1};
    REORDER("volume-negative-nan", MPI_COMM_WORLD, 2, nb, nnan, NULL);
}

static void communicators(void) {
    int one[1] = {1};
    double cost = -1;
    REORDER("self-neighbour-1", MPI_COMM_SELF, 1, one, vol, NULL);
    int rc = gpumap_cost(MPI_COMM_SELF, 0, NULL, NULL, NULL, &cost);
    report("self-cost", rc, MPI_COMM_NULL);

    /* MPI_Comm_split with MPI_UNDEFINED: rank 3 holds MPI_COMM_NULL. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 3 ? MPI_UNDEFINED : 0, rank, &sub);
    MPI_Comm out = MPI_COMM_NULL;
    if (sub != MPI_COMM_NULL) {
        int r, s;
        MPI_Comm_rank(sub, &r);
        MPI_Comm_size(sub, &s);
        int ring[2] = {(r + 1) % s, (r + s - 1) % s};
        rc = gpumap_reorder(sub, 2, ring, vol, NULL, &out);
        printf("CASE split-undefined-members rank %d status %d %s\n", rank, rc, rc ? gpumap_last_error() : "");
        if (rc == GPUMAP_OK) MPI_Comm_free(&out);
        MPI_Comm_free(&sub);
    } else {
        rc = gpumap_reorder(sub, 0, NULL, NULL, NULL, &out);
        printf("CASE split-undefined-null rank %d status %d %s\n", rank, rc, rc ? gpumap_last_error() : "");
    }
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Topology communicators as input: the result is a plain communicator. */
    MPI_Comm cart, graph;
    int dims[2] = {2, 2}, periods[2] = {1, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(cart, 2, nb, vol, NULL, &out);
    int topo = -1;
    if (rc == GPUMAP_OK) MPI_Topo_test(out, &topo);
    if (rc == GPUMAP_OK && topo != MPI_UNDEFINED) printf("CASE cartesian-input rank %d ERROR the result has a topology\n", rank);
    report("cartesian-input", rc, out);
    MPI_Comm_free(&cart);
    int index[4] = {2, 4, 6, 8}, edges[8] = {1, 3, 0, 2, 1, 3, 0, 2};
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
    REORDER("graph-input", graph, 2, nb, vol, NULL);
    MPI_Comm_free(&graph);

    /* Errors are fatal on the caller's communicator: gpumap's errors must
     * come back as statuses, never through the error handler. */
    MPI_Comm fatal;
    MPI_Comm_dup(MPI_COMM_WORLD, &fatal);
    MPI_Comm_set_errhandler(fatal, MPI_ERRORS_ARE_FATAL);
    int bad[2] = {nb[0], rank == 0 ? size : nb[1]};
    REORDER("errors-are-fatal-bad-neighbour", fatal, 2, bad, vol, NULL);

    /* An attribute whose copy callback fails: gpumap must not copy the
     * caller's attributes (a failing copy would be raised on fatal). */
    int key;
    MPI_Comm_create_keyval(copy_fails, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(fatal, key, &key);
    REORDER("attribute-copy-fails-reorder", fatal, 2, nb, vol, NULL);
    rc = gpumap_cost(fatal, 2, nb, vol, NULL, &cost);
    report("attribute-copy-fails-cost", rc, MPI_COMM_NULL);
    setenv("GPUMAP_DISABLE", "1", 1);
    REORDER("attribute-copy-fails-disabled", fatal, 2, nb, vol, NULL);
    unsetenv("GPUMAP_DISABLE");
    MPI_Comm_free(&fatal);
    MPI_Comm_free_keyval(&key);

    /* A datatype's Fortran handle where a communicator belongs. */
    MPI_Fint nf = 0;
    rc = gpumap_reorder_f(MPI_Type_c2f(MPI_DOUBLE), 2, nb, vol, NULL, &nf);
    report("fortran-handle-of-a-datatype", rc, MPI_COMM_NULL);
}

static void environment(void) {
    setenv("GPUMAP_DISTANCE", rank == 1 ? "1:10:1000" : "1:10:100", 1);
    REORDER("distance-env-differs", MPI_COMM_WORLD, 2, nb, vol, NULL);
    setenv("GPUMAP_DISTANCE", "1:x", 1);
    REORDER("distance-env-malformed", MPI_COMM_WORLD, 2, nb, vol, NULL);
    unsetenv("GPUMAP_DISTANCE");
    setenv("GPUMAP_HIERARCHY", " ", 1);
    REORDER("hierarchy-env-blank", MPI_COMM_WORLD, 2, nb, vol, NULL);
    unsetenv("GPUMAP_HIERARCHY");
    setenv("GPUMAP_DISABLE", rank % 2 ? "yes" : " 1 ", 1);
    REORDER("disable-env-spelled-differently", MPI_COMM_WORLD, 2, nb, vol, NULL);
    unsetenv("GPUMAP_DISABLE");
    setenv("GPUMAP_REPORT", "/nonexistent/dir/r.svg", 1);
    setenv("GPUMAP_REPORT_LEVEL", "99999999999999999999", 1);
    REORDER("report-env-unwritable", MPI_COMM_WORLD, 2, nb, vol, NULL);
    unsetenv("GPUMAP_REPORT");
    unsetenv("GPUMAP_REPORT_LEVEL");
}

static void map_graph_case(const char *name, int32_t n, const int64_t *xadj, const int32_t *adj,
                           const char *h, const gpumap_options *o, int32_t *pe) {
    int64_t cost;
    int rc = gpumap_map_graph(n, xadj, adj, NULL, NULL, h, "1:10", o, pe, &cost);
    printf("CASE %s rank %d status %d %s\n", name, rank, rc, rc ? gpumap_last_error() : "");
    fflush(stdout);
}

static void helpers(void) {
    static const int64_t xadj[5] = {0, 1, 3, 5, 6};
    static const int32_t path[6] = {1, 0, 2, 1, 3, 2};
    int32_t pe[4];
    gpumap_options o;
    gpumap_options_init(&o);
    o.pattern = 9;
    map_graph_case("map-graph-pattern-9", 4, xadj, path, "2:2", &o, pe);
    const int64_t huge[5] = {0, 1, 3, 5, 1LL << 40};
    map_graph_case("map-graph-xadj-n-2^40", 4, huge, path, "2:2", NULL, pe);
    const int64_t longer[5] = {0, 1, 3, 5, 1 << 28};
    map_graph_case("map-graph-adjncy-shorter", 4, longer, path, "2:2", NULL, pe);
    map_graph_case("map-graph-pe-read-only", 4, xadj, path, "2:2", NULL, (int32_t *)(uintptr_t)path);
    map_graph_case("map-graph-hierarchy-garbage", 4, xadj, path, (const char *)0xABABABABABABull, NULL, pe);
    map_graph_case("map-graph-n-int-max", INT32_MAX, xadj, path, "2:2", NULL, pe);
    int rc = gpumap_map_graph(4, xadj, path, NULL, NULL, "2:2", "1:10", NULL, pe, (int64_t *)16);
    printf("CASE map-graph-cost-pointer-garbage rank %d status %d %s\n", rank, rc, rc ? gpumap_last_error() : "");
    fflush(stdout);

    gpumap_result r;
    rc = gpumap_last_result_size(&r, 1 << 20);
    printf("CASE last-result-size-1MiB rank %d status %d %s\n", rank, rc, gpumap_last_error());
    rc = gpumap_last_result_size((gpumap_result *)64, sizeof r);
    printf("CASE last-result-pointer-garbage rank %d status %d %s\n", rank, rc, gpumap_last_error());
    rc = gpumap_last_result_size(&r, 0);
    printf("CASE last-result-size-0 rank %d status %d\n", rank, rc);
    gpumap_options_init(NULL);
    printf("CASE error-strings rank %d status 0 %s|%s|%s\n", rank, gpumap_error_string(INT_MIN),
           gpumap_error_string(-1), gpumap_error_string(12));
    fflush(stdout);
}

/* Threads calling at once on their own communicators, each checking that
 * it reads its own outcome. */
enum { THREADS = 4, ROUNDS = 10 };
static MPI_Comm tcomm[THREADS];
static int wrong[THREADS];

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    int32_t pe[4];
    static const int64_t xadj[5] = {0, 1, 3, 5, 6};
    static const int32_t path[6] = {1, 0, 2, 1, 3, 2};
    for (int i = 0; i < ROUNDS; i++) {
        gpumap_options o;
        gpumap_options_init(&o);
        o.hierarchy = "2:2";
        o.seed = (uint64_t)t;
        MPI_Comm out = MPI_COMM_NULL;
        if (gpumap_reorder(tcomm[t], 2, nb, vol, &o, &out) != GPUMAP_OK) wrong[t]++;
        else MPI_Comm_free(&out);
        int bad[2] = {nb[0], -t - 1};
        char want[64];
        snprintf(want, sizeof want, "neighbour %d ", -t - 1);
        if (gpumap_reorder(tcomm[t], 2, bad, vol, &o, &out) != GPUMAP_ERR_NEIGHBOR || !strstr(gpumap_last_error(), want))
            wrong[t]++;
        if (gpumap_map_graph(4, xadj, path, NULL, NULL, "2:2", "1:10", NULL, pe, NULL) != GPUMAP_OK) wrong[t]++;
    }
    return NULL;
}

static void threads(void) {
    for (int t = 0; t < THREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    int all = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        all += wrong[t];
        MPI_Comm_free(&tcomm[t]);
    }
    printf("CASE threads-at-once rank %d status 0 %d threads x %d rounds, %d wrong outcomes\n", rank, THREADS, ROUNDS, all);
    fflush(stdout);
}

/* Communicators are numbered: a leaked one moves the next handle. */
static long rss_kb(void) {
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
    if (f) fclose(f);
    return res * 4;
}

static MPI_Fint next_handle(void) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Fint f = MPI_Comm_c2f(c);
    MPI_Comm_free(&c);
    return f;
}

static void repeat(int n) {
    MPI_Fint before = next_handle();
    long rss0 = 0;
    int fails = 0;
    for (int i = 0; i < n; i++) {
        if (i == n / 10) rss0 = rss_kb(); /* after the first calls warmed up */
        MPI_Comm out = MPI_COMM_NULL;
        if (gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, &out) == GPUMAP_OK) MPI_Comm_free(&out);
        else fails++;
        double c;
        if (gpumap_cost(MPI_COMM_WORLD, 2, nb, vol, NULL, &c) != GPUMAP_OK) fails++;
        int bad[1] = {-1};
        if (gpumap_reorder(MPI_COMM_WORLD, 1, bad, vol, NULL, &out) != GPUMAP_ERR_NEIGHBOR) fails++;
    }
    MPI_Fint after = next_handle();
    printf("CASE repeated-calls rank %d status %d %d rounds, next communicator handle %d -> %d, RSS %ld -> %ld KiB\n",
           rank, fails, n, (int)before, (int)after, rss0, rss_kb());
    if (after != before) printf("CASE repeated-calls rank %d ERROR a communicator leaked\n", rank);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nb[0] = (rank + 1) % size;
    nb[1] = (rank + size - 1) % size;
    if (argc > 1 && strcmp(argv[1], "threads") == 0) {
        if (provided == MPI_THREAD_MULTIPLE) threads();
        else printf("CASE threads-at-once rank %d status 0 skipped: no MPI_THREAD_MULTIPLE\n", rank);
    } else if (argc > 2 && strcmp(argv[1], "repeat") == 0) {
        repeat(atoi(argv[2]));
    } else if (argc > 1 && strcmp(argv[1], "world-attribute") == 0) {
        int key, got = -1;
        MPI_Comm_create_keyval(copy_fails, MPI_COMM_NULL_DELETE_FN, &key, NULL);
        MPI_Comm_set_attr(MPI_COMM_WORLD, key, &key);
        MPI_Sendrecv(&rank, 1, MPI_INT, nb[0], 0, &got, 1, MPI_INT, nb[1], 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("CASE world-attribute rank %d status 0 received %d\n", rank, got);
    } else {
        options_and_pointers();
        volumes_and_neighbours();
        communicators();
        environment();
        helpers();
    }
    MPI_Finalize();
    return 0;
}
