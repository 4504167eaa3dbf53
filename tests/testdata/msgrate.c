/*
 * msgrate: a message-rate benchmark, run with and without
 * libgpumap_record.so preloaded to see what recording costs per message.
 *
 *   msgrate pair|self [messages] [window] [bytes]
 *
 * pair (2 ranks): rank 0 sends windows of MPI_Isend to rank 1, which has
 * the matching MPI_Irecv posted, and a zero-byte reply closes each window
 * (the osu_mbw_mr pattern). self (any number of ranks): every rank sends
 * to itself on MPI_COMM_SELF, the cheapest message MPI has, so the
 * recorder's share shows most. Five rounds; rank 0 prints the best:
 *   MSGRATE mode=<mode> ns_per_message=<ns> messages=<n>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "pair";
    long messages = argc > 2 ? atol(argv[2]) : 1000000;
    int window = argc > 3 ? atoi(argv[3]) : 64, bytes = argc > 4 ? atoi(argv[4]) : 8;
    int pair = strcmp(mode, "pair") == 0;
    if ((pair && size != 2) || (!pair && strcmp(mode, "self") != 0) || window < 1 || window > 1024 || bytes < 0) {
        if (rank == 0) fprintf(stderr, "usage: msgrate pair|self [messages] [window 1..1024] [bytes] (pair: 2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *sbuf = calloc((size_t)window, (size_t)bytes + 1), *rbuf = calloc((size_t)window, (size_t)bytes + 1);
    MPI_Request req[2048];
    MPI_Status st[2048];
    long windows = messages / window;
    double best = 1e30;
    for (int round = 0; round < 6; round++) { /* round 0 warms up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long w = 0; w < windows; w++) {
            if (!pair) {
                for (int i = 0; i < window; i++) {
                    MPI_Irecv(rbuf + (size_t)i * bytes, bytes, MPI_BYTE, 0, i, MPI_COMM_SELF, &req[2 * i]);
                    MPI_Isend(sbuf + (size_t)i * bytes, bytes, MPI_BYTE, 0, i, MPI_COMM_SELF, &req[2 * i + 1]);
                }
                MPI_Waitall(2 * window, req, st);
            } else if (rank == 0) {
                for (int i = 0; i < window; i++)
                    MPI_Isend(sbuf + (size_t)i * bytes, bytes, MPI_BYTE, 1, i, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(window, req, st);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, window, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (int i = 0; i < window; i++)
                    MPI_Irecv(rbuf + (size_t)i * bytes, bytes, MPI_BYTE, 0, i, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(window, req, st);
                MPI_Send(NULL, 0, MPI_BYTE, 0, window, MPI_COMM_WORLD);
            }
        }
        double el = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (round > 0 && mx < best) best = mx;
    }
    if (rank == 0) {
        printf("MSGRATE mode=%s ns_per_message=%.1f messages=%ld\n", mode, 1e9 * best / (double)(windows * window), windows * window);
        fflush(stdout);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
