/*
 * stencil: a halo-exchange program on an NX x NY x NZ grid of ranks
 * (one rank per grid point, neighbours along the axes, no wrap-around).
 *
 *   stencil NX NY NZ [iterations] [halo-bytes] [treematch]
 *
 * It times the halo exchange in the launch order, reorders with
 * gpumap_reorder and times it again; with "treematch" it also builds an
 * MPI_Dist_graph_create communicator with reorder=1 and edge weights (what
 * OpenMPI's treematch component serves) and times that. Every placement's
 * cost J comes from gpumap_cost, so all are measured with one machine
 * model. Rank 0 prints one line per placement:
 *   PLACEMENT name J=<cost> exchange_ms=<max over ranks> call_ms=<reorder call>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpumap.h"
#include "halo.h"

static int dims[3];

static int neighbours(int t, int *nb) { return grid_neighbours(dims, t, nb); }

/* times iterations of the halo exchange on comm (task = rank in comm) */
static double exchange(MPI_Comm comm, int iterations, size_t halo) {
    int t, nb[6];
    MPI_Comm_rank(comm, &t);
    return halo_exchange(comm, nb, neighbours(t, nb), halo, iterations, NULL);
}

/* J of comm's placement, from gpumap's machine model */
static double cost(MPI_Comm comm, size_t halo) {
    int t;
    MPI_Comm_rank(comm, &t);
    int nb[6], d = neighbours(t, nb);
    double vol[6];
    for (int i = 0; i < d; i++) vol[i] = (double)halo;
    double j = -1;
    int rc = gpumap_cost(comm, d, nb, vol, NULL, &j);
    if (rc != GPUMAP_OK) {
        fprintf(stderr, "gpumap_cost: %s: %s\n", gpumap_error_string(rc), gpumap_last_error());
        MPI_Abort(comm, 2);
    }
    return j;
}

static void report(MPI_Comm comm, const char *name, double call, int iterations, size_t halo) {
    double j = cost(comm, halo), ms = 1e3 * exchange(comm, iterations, halo);
    int r;
    MPI_Comm_rank(comm, &r);
    if (r == 0) {
        printf("PLACEMENT %s J=%.0f exchange_ms=%.2f call_ms=%.2f\n", name, j, ms, call * 1e3);
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: stencil NX NY NZ [iterations] [halo-bytes] [treematch]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 3; i++) dims[i] = atoi(argv[1 + i]);
    int iterations = argc > 4 ? atoi(argv[4]) : 5;
    size_t halo = argc > 5 ? (size_t)atol(argv[5]) : (size_t)1 << 20;
    int treematch = argc > 6 && strcmp(argv[6], "treematch") == 0;
    if (dims[0] * dims[1] * dims[2] != size) {
        if (rank == 0) fprintf(stderr, "stencil: %dx%dx%d != %d ranks\n", dims[0], dims[1], dims[2], size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    for (int r = 0; r < size; r++) { /* where the launcher put every rank */
        if (r == rank) { printf("LOCATION %d %s\n", rank, host); fflush(stdout); }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    report(MPI_COMM_WORLD, "launch", 0, iterations, halo);

    int nb[6], d = neighbours(rank, nb);
    double vol[6];
    for (int i = 0; i < d; i++) vol[i] = (double)halo;
    gpumap_options opt;
    gpumap_options_init(&opt);
    opt.verbosity = getenv("STENCIL_VERBOSITY") ? atoi(getenv("STENCIL_VERBOSITY")) : 1;
    MPI_Comm g;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = gpumap_reorder(MPI_COMM_WORLD, d, nb, vol, &opt, &g);
    double call = MPI_Wtime() - t0, maxcall;
    MPI_Allreduce(&call, &maxcall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rc != GPUMAP_OK) {
        fprintf(stderr, "rank %d: gpumap_reorder: %s: %s\n", rank, gpumap_error_string(rc), gpumap_last_error());
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    gpumap_result res;
    gpumap_last_result(&res);
    if (rank == 0) printf("MACHINE %s\n", res.machine);
    report(g, "gpumap", maxcall, iterations, halo);
    MPI_Comm_free(&g);

    if (treematch) {
        int w[6];
        for (int i = 0; i < d; i++) w[i] = (int)(halo >> 10); /* KiB */
        MPI_Comm tm;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &d, nb, w, MPI_INFO_NULL, 1, &tm);
        call = MPI_Wtime() - t0;
        MPI_Allreduce(&call, &maxcall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        report(tm, "treematch", maxcall, iterations, halo);
        MPI_Comm_free(&tm);
    }
    MPI_Finalize();
    return 0;
}
