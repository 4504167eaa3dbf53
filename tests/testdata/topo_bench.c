/*
 * topo_bench: the cost of MPI_Cart_create with reorder = 1, as a program
 * that knows nothing of gpumap sees it (tests/topo_bench_test.go runs it
 * with and without libgpumap_topo.so preloaded).
 *   topo_bench [reps]
 * A warm-up call on a ring loads libgpumap.so (and starts its runtime);
 * the first call on a 2-D torus then has a pattern no call had before,
 * and the reps calls after it repeat that call exactly. Every call is
 * timed from a barrier to its slowest rank (MPI_MAX of the ranks' times:
 * the call is collective, the slowest rank is what a program waits for).
 * Rank 0 prints
 *   BENCH first_ms <f> repeat_ms <median> repeat_min_ms <m> reps <n>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double timed_cart(int ndims, const int *dims, const int *periods) {
    MPI_Comm c;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &c);
    t = MPI_Wtime() - t;
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    double slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return 1e3 * slowest;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    if (reps < 1) reps = 1;

    timed_cart(1, (int[]){size}, (int[]){1}); /* warm-up: another pattern */
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    double first = timed_cart(2, dims, periods);
    double *t = malloc((size_t)reps * sizeof *t);
    for (int i = 0; i < reps; i++) t[i] = timed_cart(2, dims, periods);
    qsort(t, (size_t)reps, sizeof *t, cmp);
    if (rank == 0)
        printf("BENCH first_ms %.3f repeat_ms %.3f repeat_min_ms %.3f reps %d\n", first, t[reps / 2], t[0], reps);
    free(t);
    MPI_Finalize();
    return 0;
}
