/*
 * countbench: what the recorder adds to one message, measured without the
 * message: rank 0 calls the counting path (rec_p2p, linked in from
 * record.c) for 8-byte sends to six peers in turn (a lookup table, so the loop adds ~1 ns), on MPI_COMM_WORLD (no
 * translation) and on a communicator in reverse order (one translation
 * lookup more). Best of five rounds of 10^7 calls:
 *   COUNT comm=world|other ns_per_message=<ns>
 * Run with several ranks (mpirun -np 8): peers must exist.
 */
#include <stdio.h>
#include <time.h>
#include "../record.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    if (rank == 0) {
        const long n = 10000000;
        MPI_Comm comms[2] = {MPI_COMM_WORLD, rev};
        int peer[8];
        for (int i = 0; i < 8; i++) peer[i] = 1 + i % 6 % (size - 1);
        for (int c = 0; c < 2; c++) {
            double best = 1e30;
            for (int round = 0; round < 5; round++) {
                double t0 = now();
                for (long i = 0; i < n; i++) rec_p2p(comms[c], peer[i & 7], 8, MPI_BYTE);
                double el = now() - t0;
                if (el < best) best = el;
            }
            printf("COUNT comm=%s ns_per_message=%.1f\n", c ? "other" : "world", 1e9 * best / (double)n);
        }
        fflush(stdout);
    }
    /* the other ranks wait asleep, not spinning on the cores rank 0 times */
    MPI_Request done;
    MPI_Ibarrier(MPI_COMM_WORLD, &done);
    for (int flag = 0; !flag;) {
        MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
        if (!flag) nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
