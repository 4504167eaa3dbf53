/*
 * stencil_world: a halo exchange that knows nothing of gpumap, the kind of
 * program record-then-place is for. Rank r of MPI_COMM_WORLD is point r of
 * an NX x NY x NZ grid (row-major, neighbours along the axes, no wrap).
 *
 *   stencil_world NX NY NZ [iterations] [halo-bytes] [rankfile]
 *
 * Every iteration sends one halo to each neighbour (MPI_Isend/MPI_Irecv),
 * one warm-up round first. The halos carry a pattern of (sender, round),
 * so the checksums of what arrived depend only on the grid, not on where
 * ranks run. Rank 0 prints
 *   HALO exchange_ms=<mean over rounds of the slowest rank>
 *   RESULT <rank> <checksum>        (one line per rank, in rank order)
 * With a rankfile (OpenMPI's "rank i=HOST slot=S" lines, or a machine file
 * with one host per line in rank order), every rank also compares its
 * MPI_Get_processor_name with its line and prints
 *   PLACED <rank> <host> ok         or   PLACED <rank> <host> WRONG want <host>
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halo.h"

static int dims[3];

static int neighbours(int t, int *nb) { return grid_neighbours(dims, t, nb); }

/* the host a rankfile or machine file gives rank r, or "" */
static void rankfile_host(const char *path, int r, char *host, size_t len) {
    host[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024], h[512];
    for (int n = 0; fgets(line, sizeof line, f); n++) {
        int rank;
        if (sscanf(line, " rank %d = %511[^ \t\n]", &rank, h) == 2) {
            if (rank != r) continue;
        } else if (n != r || sscanf(line, " %511s", h) != 1) {
            continue;
        }
        snprintf(host, len, "%s", h);
        break;
    }
    fclose(f);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: stencil_world NX NY NZ [iterations] [halo-bytes] [rankfile]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 3; i++) dims[i] = atoi(argv[1 + i]);
    int iterations = argc > 4 ? atoi(argv[4]) : 5;
    size_t halo = argc > 5 ? (size_t)atol(argv[5]) : (size_t)1 << 20;
    if (dims[0] * dims[1] * dims[2] != size || iterations < 0 || halo < 1) {
        if (rank == 0) fprintf(stderr, "stencil_world: %dx%dx%d grid, %d iterations, %zu bytes for %d ranks\n",
                               dims[0], dims[1], dims[2], iterations, halo, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    if (argc > 6) {
        char want[512];
        rankfile_host(argv[6], rank, want, sizeof want);
        for (int r = 0; r < size; r++) { /* in rank order */
            if (r == rank) {
                if (strcmp(want, host) == 0)
                    printf("PLACED %d %s ok\n", rank, host);
                else
                    printf("PLACED %d %s WRONG want %s\n", rank, host, want[0] ? want : "(no line)");
                fflush(stdout);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }

    int nb[6], d = neighbours(rank, nb);
    unsigned char *send = malloc(halo * 6), *recv = malloc(halo * 6);
    MPI_Request req[12];
    MPI_Status st[12];
    uint64_t sum = 0;
    double total = 0;
    for (int it = -1; it < iterations; it++) {
        for (int i = 0; i < d; i++)
            for (size_t j = 0; j < halo; j++) send[i * halo + j] = (unsigned char)(rank * 31 + it * 7 + j);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < d; i++) {
            MPI_Irecv(recv + i * halo, (int)halo, MPI_BYTE, nb[i], 7, MPI_COMM_WORLD, &req[2 * i]);
            MPI_Isend(send + i * halo, (int)halo, MPI_BYTE, nb[i], 7, MPI_COMM_WORLD, &req[2 * i + 1]);
        }
        MPI_Waitall(2 * d, req, st);
        double el = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it >= 0) total += mx;
        for (int i = 0; i < d; i++)
            for (size_t j = 0; j < halo; j += 61) sum = sum * 1099511628211ULL + recv[i * halo + j] + (uint64_t)nb[i];
    }
    unsigned long long mine = sum, *all = rank == 0 ? malloc(sizeof *all * (size_t)size) : NULL;
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("HALO exchange_ms=%.2f\n", iterations > 0 ? 1e3 * total / iterations : 0.0);
        for (int r = 0; r < size; r++) printf("RESULT %d %016llx\n", r, all[r]);
        fflush(stdout);
    }
    free(all);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
