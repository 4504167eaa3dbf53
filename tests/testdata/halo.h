/*
 * halo.h - the halo exchange of the stencil test programs (stencil.c,
 * topo_stencil.c): grid neighbours and a timed exchange.
 */
#ifndef HALO_H
#define HALO_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* The neighbours of point t of a dims[0] x dims[1] x dims[2] grid in
 * row-major order (no wrap-around): -x +x -y +y -z +z; returns how many. */
__attribute__((unused)) static int grid_neighbours(const int dims[3], int t, int *nb) {
    int x = t / (dims[1] * dims[2]), y = (t / dims[2]) % dims[1], z = t % dims[2], d = 0;
    if (x > 0) nb[d++] = t - dims[1] * dims[2];
    if (x + 1 < dims[0]) nb[d++] = t + dims[1] * dims[2];
    if (y > 0) nb[d++] = t - dims[2];
    if (y + 1 < dims[1]) nb[d++] = t + dims[2];
    if (z > 0) nb[d++] = t - 1;
    if (z + 1 < dims[2]) nb[d++] = t + 1;
    return d;
}

/* Times iterations of a halo exchange with the k (<= 6) ranks nb of comm,
 * after one warm-up round; returns the mean over iterations of the
 * slowest rank's time in seconds. The first int of every halo is its
 * sender's rank: a halo from anyone else is counted in *bad (if bad). */
__attribute__((unused)) static double halo_exchange(MPI_Comm comm, const int *nb, int k, size_t halo, int iterations, int *bad) {
    int t;
    MPI_Comm_rank(comm, &t);
    char *send = malloc(halo * 6 + sizeof t), *recv = malloc(halo * 6 + sizeof t);
    memset(send, t & 0xff, halo * 6);
    for (int i = 0; halo >= sizeof t && i < k; i++) memcpy(send + i * halo, &t, sizeof t);
    MPI_Request req[12];
    MPI_Status st[12];
    double sum = 0;
    for (int it = -1; it < iterations; it++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int i = 0; i < k; i++) {
            MPI_Irecv(recv + i * halo, (int)halo, MPI_BYTE, nb[i], 7, comm, &req[2 * i]);
            MPI_Isend(send + i * halo, (int)halo, MPI_BYTE, nb[i], 7, comm, &req[2 * i + 1]);
        }
        MPI_Waitall(2 * k, req, st);
        double el = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (it >= 0) sum += mx;
        for (int i = 0; bad && halo >= sizeof t && i < k; i++) {
            int from;
            memcpy(&from, recv + i * halo, sizeof from);
            *bad += from != nb[i];
        }
    }
    free(send);
    free(recv);
    return iterations > 0 ? sum / iterations : 0;
}

#endif
