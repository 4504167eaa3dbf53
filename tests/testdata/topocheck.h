/*
 * topocheck.h - shared by the topology conformance programs (topo_*.c).
 *
 * Output, one line each, so that a run with libgpumap_topo.so preloaded
 * can be compared with a run without it:
 *   R <text>            a result, stated in topology terms (cart rank,
 *                       graph node, dist-graph vertex = rank of the
 *                       topology communicator): the sorted R lines of two
 *                       runs must be identical whatever the rank order
 *   PERM <what> <w> <t> world rank w became rank t of <what> (not compared)
 *   FAIL <w>: <text>    a check of the program's own failed
 *   LOADED <w> yes|no   whether libgpumap.so was loaded into the process
 *   DONE errors <n>     rank 0, at the end
 * Programs take the reorder flag as their first argument (default 1).
 */
#ifndef TOPOCHECK_H
#define TOPOCHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int world_rank, world_size, errors, reorder = 1;

static void emit(const char *tag, const char *fmt, va_list ap) {
    char line[8192];
    vsnprintf(line, sizeof line, fmt, ap);
    printf("%s%s\n", tag, line); /* one write per line */
    fflush(stdout);
}

static void R(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void R(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit("R ", fmt, ap);
    va_end(ap);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    char tag[32];
    snprintf(tag, sizeof tag, "FAIL %d: ", world_rank);
    va_list ap;
    va_start(ap, fmt);
    emit(tag, fmt, ap);
    va_end(ap);
    errors++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

/* Appends to a list string: "a b c". */
static void add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4), unused));
static void add(char *buf, size_t n, const char *fmt, ...) {
    size_t l = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, n > l ? n - l : 0, fmt, ap);
    va_end(ap);
}

/* Sorts n pairs (a[i], b[i]) by a, then b. */
__attribute__((unused)) static void sort_pairs(int n, int *a, int *b) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (a[j - 1] > a[j] || (a[j - 1] == a[j] && b[j - 1] > b[j])); j--) {
            int t = a[j]; a[j] = a[j - 1]; a[j - 1] = t;
            t = b[j]; b[j] = b[j - 1]; b[j - 1] = t;
        }
}


/* The test graph of the dist-graph programs, on 6 vertices: the 2x3 grid
 * (row-major, both directions), a self loop at 0 and an edge 5 -> 1.
 * Edge u -> v weighs 1 + (3u + v) % 7. */
__attribute__((unused)) static int has_edge(int u, int v) {
    int dx = u / 3 - v / 3, dy = u % 3 - v % 3;
    return (dx * dx + dy * dy == 1) || (u == 0 && v == 0) || (u == 5 && v == 1);
}
__attribute__((unused)) static int edge_weight(int u, int v) { return 1 + (3 * u + v) % 7; }

/* Out- (out = 1) or in-neighbours of v in increasing order; returns the count. */
__attribute__((unused)) static int graph_list(int v, int out, int *nb, int *w) {
    int n = 0;
    for (int u = 0; u < 6; u++)
        if (out ? has_edge(v, u) : has_edge(u, v)) {
            nb[n] = u;
            w[n++] = out ? edge_weight(v, u) : edge_weight(u, v);
        }
    return n;
}

__attribute__((unused)) static void perm(const char *what, MPI_Comm c) {
    if (c == MPI_COMM_NULL) return;
    int r;
    MPI_Comm_rank(c, &r);
    printf("PERM %s %d %d\n", what, world_rank, r);
    fflush(stdout);
}

__attribute__((unused)) static void start(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (*argc > 1) reorder = atoi((*argv)[1]);
}

static int loaded(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int yes = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "/libgpumap.so")) yes = 1;
    if (f) fclose(f);
    return yes;
}

static int finish(void) {
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("LOADED %d %s\n", world_rank, loaded() ? "yes" : "no");
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("DONE errors %d\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total != 0;
}

#endif
