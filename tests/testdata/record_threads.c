/*
 * record_threads: 2 ranks x THREADS threads under MPI_THREAD_MULTIPLE,
 * each thread creating, using and freeing its own communicators while the
 * others send: the case where a recorder that held its lock across MPI
 * calls (the communicator lookup, the attribute delete callback inside
 * MPI_Comm_free) could deadlock against the MPI library's own lock.
 *
 *   record_threads <iterations>
 *
 * Thread t of each rank, per iteration, on a fresh communicator c (its own
 * base communicator split in reverse rank order, so the recorder must
 * translate) and then freed, sends to the other rank:
 *   MPI_Sendrecv on c        8 (t+1) bytes
 *   MPI_Isend on its base    16 bytes
 *   MPI_Send on the world    4 ints (16 bytes), tag 100+t
 *   MPI_Send_init/Start on c 24 bytes (then MPI_Request_free)
 * so each direction carries iterations x 16 messages and
 * iterations x (80 + 4 x 56) bytes. tests/record_test.go checks the
 * recorded pattern against these counts. Prints "THREADS ok" on rank 0.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* MPICH's MPI_STATUSES_IGNORE is an address gcc warns about */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define THREADS 4

static int iters, wrank;
static MPI_Comm base[THREADS];

static void check(int rc, const char *what) {
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed\n", wrank, what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void *work(void *arg) {
    int t = (int)(long)arg, other = 1 - wrank;
    char sbuf[64] = {0}, rbuf[64];
    for (int it = 0; it < iters; it++) {
        MPI_Comm c;
        /* reverse order: rank 1 of c is world rank 0 */
        check(MPI_Comm_split(base[t], 0, 1 - wrank, &c), "MPI_Comm_split");
        int me, peer;
        MPI_Comm_rank(c, &me);
        peer = 1 - me;
        check(MPI_Sendrecv(sbuf, 8 * (t + 1), MPI_BYTE, peer, 1, rbuf, 64, MPI_BYTE, peer, 1, c,
                           MPI_STATUS_IGNORE), "MPI_Sendrecv");
        MPI_Request r[2];
        check(MPI_Irecv(rbuf, 64, MPI_BYTE, other, 2, base[t], &r[0]), "MPI_Irecv");
        check(MPI_Isend(sbuf, 16, MPI_BYTE, other, 2, base[t], &r[1]), "MPI_Isend");
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        check(MPI_Irecv(rbuf, 4, MPI_INT, other, 100 + t, MPI_COMM_WORLD, &r[0]), "MPI_Irecv");
        check(MPI_Send(sbuf, 4, MPI_INT, other, 100 + t, MPI_COMM_WORLD), "MPI_Send");
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        check(MPI_Irecv(rbuf, 64, MPI_BYTE, peer, 3, c, &r[0]), "MPI_Irecv");
        check(MPI_Send_init(sbuf, 24, MPI_BYTE, peer, 3, c, &r[1]), "MPI_Send_init");
        check(MPI_Start(&r[1]), "MPI_Start");
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        check(MPI_Request_free(&r[1]), "MPI_Request_free");
        check(MPI_Comm_free(&c), "MPI_Comm_free");
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2 || argc != 2 || (iters = atoi(argv[1])) < 1) {
        if (wrank == 0) fprintf(stderr, "record_threads: 2 ranks, MPI_THREAD_MULTIPLE (got %d), <iterations>\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* one base communicator per thread: collectives of different threads
     * must not share a communicator */
    for (int t = 0; t < THREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &base[t]);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) MPI_Comm_free(&base[t]);
    if (wrank == 0) printf("THREADS ok\n");
    MPI_Finalize();
    return 0;
}
