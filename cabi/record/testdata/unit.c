/*
 * unit: the counting core (record.c, linked in) called directly, with its
 * allocations made to fail on demand (-Wl,--wrap=malloc,... :
 * only the calls from our own objects are wrapped, not MPI's), checking
 * exact counts:
 *   - a neighbourhood collective on a communicator whose translation
 *     cannot be built counts its messages as lost, at once and at every
 *     start of a persistent one;
 *   - the tables of several threads merge exactly;
 *   - when the table cannot be handed over (no memory), the messages it
 *     held count as lost, not the number of peers.
 * Prints "UNIT <check> ok" or "UNIT <check> FAIL ..." on every rank and
 * exits non-zero on a failure. Run with 2 ranks (mpirun -n 2).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "record.h"

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_aligned_alloc(size_t, size_t);
static int fail_malloc, fail_calloc;
void *__wrap_malloc(size_t n) { return fail_malloc ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t s) { return fail_calloc ? NULL : __real_calloc(n, s); }
void *__wrap_aligned_alloc(size_t a, size_t n) { return fail_malloc ? NULL : __real_aligned_alloc(a, n); }

static int rank, other, failed;

static void expect(const char *what, unsigned long long got, unsigned long long want) {
    if (got == want) {
        printf("UNIT rank %d %s ok\n", rank, what);
    } else {
        printf("UNIT rank %d %s FAIL got %llu want %llu\n", rank, what, got, want);
        failed = 1;
    }
}

/* the table now: bytes and messages to other and to self, and lost */
static void table(const char *what, uint64_t ob, uint64_t om, uint64_t sb, uint64_t sm, uint64_t lost) {
    int *peers;
    uint64_t *bytes, *msgs, l;
    int n = rec_table(&peers, &bytes, &msgs, &l);
    uint64_t got[4] = {0};
    for (int i = 0; i < n; i++) {
        int j = peers[i] == other ? 0 : peers[i] == rank ? 2 : -1;
        if (j < 0) {
            printf("UNIT rank %d %s FAIL peer %d\n", rank, what, peers[i]);
            failed = 1;
            continue;
        }
        got[j] += bytes[i], got[j + 1] += msgs[i];
    }
    free(peers), free(bytes), free(msgs);
    char name[128];
    const char *field[] = {"bytes to other", "messages to other", "bytes to self", "messages to self"};
    uint64_t want[4] = {ob, om, sb, sm};
    for (int j = 0; j < 4; j++) {
        snprintf(name, sizeof name, "%s: %s", what, field[j]);
        expect(name, got[j], want[j]);
    }
    snprintf(name, sizeof name, "%s: lost", what);
    expect(name, l, lost);
}

#define PER_THREAD 1000
static void *sender(void *arg) {
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++) rec_p2p(MPI_COMM_WORLD, other, 100, MPI_BYTE);
    for (int i = 0; i < 10; i++) rec_p2p(MPI_COMM_WORLD, rank, 1, MPI_BYTE);
    return NULL;
}

int main(int argc, char **argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "unit: 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    other = 1 - rank;
    MPI_Comm ring;
    int dims = 2, periods = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring);

    for (int i = 0; i < 3; i++) rec_p2p(MPI_COMM_WORLD, other, 8, MPI_BYTE);
    rec_p2p(MPI_COMM_WORLD, rank, 5, MPI_BYTE);
    table("sends", 24, 3, 5, 1, 0);

    /* The ring's translation cannot be built: its two neighbours' messages
     * are lost, now, and at each of two starts of a persistent one. */
    char buf[1];
    MPI_Request req;
    MPI_Recv_init(buf, 1, MPI_BYTE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req); /* a handle to key on */
    /* (the table of persistent requests is allocated beforehand) */
    rec_persist_p2p(req, MPI_COMM_WORLD, MPI_PROC_NULL, 1, MPI_BYTE);
    rec_request_free(req);
    fail_calloc = 1;
    rec_neighbors(ring, 4, MPI_BYTE, NULL, 0, NULL, NULL, NULL);
    rec_neighbors(ring, 4, MPI_BYTE, NULL, 0, NULL, NULL, &req);
    fail_calloc = 0;
    rec_start(req);
    rec_start(req);
    rec_request_free(req);
    rec_start(req); /* forgotten: counts nothing */
    MPI_Request_free(&req);
    table("neighbours without a translation", 24, 3, 5, 1, 2 + 2 * 2);

    /* and with one: both shifts of a periodic ring of two reach the other */
    rec_neighbors(ring, 4, MPI_BYTE, NULL, 0, NULL, NULL, NULL);
    table("neighbours", 32, 5, 5, 1, 6);

    /* no memory to hand the (one thread's) table over */
    fail_malloc = 1;
    table("no memory for the table", 0, 0, 0, 0, 6 + 5 + 1);
    fail_malloc = 0;

    pthread_t th[3];
    for (int t = 0; t < 3; t++) pthread_create(&th[t], NULL, sender, NULL);
    for (int t = 0; t < 3; t++) pthread_join(th[t], NULL);
    table("threads merged", 32 + 3 * 100 * PER_THREAD, 5 + 3 * PER_THREAD, 5 + 30, 1 + 30, 6);
    fail_malloc = 1;
    table("no memory to merge", 0, 0, 0, 0, 6 + 5 + 3 * PER_THREAD + 1 + 30);
    fail_malloc = 0;

    MPI_Comm_free(&ring);
    MPI_Finalize();
    return failed;
}
