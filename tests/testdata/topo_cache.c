/*
 * topo_cache: which MPI_Cart_create calls gpumap's mapping cache serves
 * (tests/topo_test.go, with libgpumap_topo.so preloaded and
 * GPUMAP_VERBOSE=1: rank 0's lines say "mapping cached" on a hit, in the
 * order of the calls). Rank 0 prints "STEP <name>" for each call; the
 * test pairs them with the verbose lines in order:
 *   first      a 2-D torus                          miss
 *   again      the same call                        hit
 *   volume     GPUMAP_CART_WEIGHTS changes a volume  miss
 *   volume2    the same again                       hit
 *   hierarchy  GPUMAP_HIERARCHY=2:<n/2>             miss
 *   back       as volume2 (still cached)            hit
 *   moved      rank 0 binds itself elsewhere        miss (AFFINITY yes)
 *              (every thread of it: the location is the process's)
 *   rejected   rank 1 alone has GPUMAP_CART_WEIGHTS=1:2:3: passed to
 *              MPI unchanged on every rank, saying why
 *   after      as moved                             hit
 * (Rank 0 prints "AFFINITY no" when it cannot change its binding.)
 * Then 20 sub-communicators, each with two calls (the pattern of "moved":
 * all hit) and freed: rank 0 prints "HANDLES <before> <after>", the
 * highest handle of 25 new communicators before and after them; after
 * must not exceed before (nothing leaked).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void step(const char *name, const int *dims) {
    if (rank == 0) {
        printf("STEP %s\n", name);
        fflush(stdout);
    }
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, (int[]){1, 1}, 1, &c);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Moves this process to one CPU of its set, or to every CPU when it has
 * only one; returns whether the binding changed. */
static int rebind(void) {
    cpu_set_t set, to;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    CPU_ZERO(&to);
    if (CPU_COUNT(&set) > 1) {
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &set)) {
                CPU_SET(i, &to);
                break;
            }
    } else {
        for (int i = 0; i < CPU_SETSIZE; i++) CPU_SET(i, &to);
    }
    /* Every thread: gpumap's runtime has its own, and the location is the
     * binding of the whole process. */
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') sched_setaffinity((pid_t)atoi(e->d_name), sizeof to, &to);
    closedir(d);
    cpu_set_t now;
    return sched_getaffinity(0, sizeof now, &now) == 0 && !CPU_EQUAL(&now, &set);
}

/* The highest Fortran handle of 25 communicators made at once. */
static int highest_handle(void) {
    MPI_Comm c[25];
    int top = 0;
    for (int i = 0; i < 25; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
        int h = (int)MPI_Comm_c2f(c[i]);
        if (i == 0 || h > top) top = h;
    }
    for (int i = 0; i < 25; i++) MPI_Comm_free(&c[i]);
    return top;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    char h[32];
    snprintf(h, sizeof h, "2:%d", size / 2);

    step("first", dims);
    step("again", dims);
    setenv("GPUMAP_CART_WEIGHTS", "1:2", 1);
    step("volume", dims);
    step("volume2", dims);
    setenv("GPUMAP_HIERARCHY", h, 1);
    step("hierarchy", dims);
    unsetenv("GPUMAP_HIERARCHY");
    step("back", dims);
    int moved = rank == 0 ? rebind() : 0;
    if (rank == 0) {
        printf("AFFINITY %s\n", moved ? "yes" : "no");
        fflush(stdout);
    }
    step("moved", dims);
    /* Rank 1 alone rejects its arguments on a communicator the
     * interposer has mapped before: every rank passes the call to MPI
     * unchanged, and the next good call is served from the cache. */
    if (rank == 1) setenv("GPUMAP_CART_WEIGHTS", "1:2:3", 1);
    step("rejected", dims);
    if (rank == 1) setenv("GPUMAP_CART_WEIGHTS", "1:2", 1);
    step("after", dims);

    /* The interposer keeps its private copy of a communicator on it: a
     * communicator freed after its calls must take its copy along. 20
     * rounds of a sub-communicator with two calls each, then the highest
     * handle that 25 new communicators get must not exceed what it was
     * before (both stacks hand out free handles first: 20 leaked
     * communicators would push the 25 up). */
    int before = highest_handle();
    for (int i = 0; i < 20; i++) {
        MPI_Comm sub, c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &sub);
        for (int k = 0; k < 2; k++) {
            MPI_Cart_create(sub, 2, dims, (int[]){1, 1}, 1, &c);
            if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        }
        MPI_Comm_free(&sub);
    }
    int after = highest_handle();
    if (rank == 0) printf("HANDLES %d %d\n", before, after);
    if (rank == 0) printf("DONE errors 0\n");
    MPI_Finalize();
    return 0;
}
