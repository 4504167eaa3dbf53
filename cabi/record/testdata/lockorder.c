/*
 * lockorder: the recorder must make no MPI call while holding a lock of
 * its own. MPICH serialises its calls with one global lock; here a mutex
 * stands for it ("big"), taken by the recorder's PMPI_Comm_group (wrapped
 * with -Wl,--wrap for record.c's calls only) and held by a thread
 * freeing a communicator, whose attribute delete callback runs inside
 * MPI_Comm_free. Thread A counts its first send on a new communicator
 * (the recorder builds the translation: PMPI_Comm_group) while thread B,
 * holding big, frees a communicator the recorder knows. A recorder that
 * called MPI under its lock, and took that lock in the delete callback,
 * waits on B while B waits on it: A's wait for big times out after 5 s
 * and the run says so (instead of hanging).
 *   LOCKORDER ok | LOCKORDER FAIL <why>
 * Run with 2 ranks (mpirun -n 2).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include "record.h"

int __real_PMPI_Comm_group(MPI_Comm, MPI_Group *);

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static int armed, inside, deadlock;

int __wrap_PMPI_Comm_group(MPI_Comm comm, MPI_Group *g) {
    if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE)) return __real_PMPI_Comm_group(comm, g);
    __atomic_store_n(&inside, 1, __ATOMIC_RELEASE);
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 5;
    int locked = pthread_mutex_timedlock(&big, &t) == 0;
    if (!locked) __atomic_store_n(&deadlock, 1, __ATOMIC_RELEASE);
    int rc = __real_PMPI_Comm_group(comm, g);
    if (locked) pthread_mutex_unlock(&big);
    return rc;
}

static MPI_Comm fresh, known;
static int other;

static void *sender(void *arg) {
    (void)arg;
    rec_p2p(fresh, other, 8, MPI_BYTE); /* first use: builds the translation */
    return NULL;
}

static void *freer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&big);
    while (!__atomic_load_n(&inside, __ATOMIC_ACQUIRE)) sched_yield();
    PMPI_Comm_free(&known); /* runs the recorder's delete callback */
    pthread_mutex_unlock(&big);
    return NULL;
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "lockorder: 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    other = 1 - rank;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &known);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &fresh);
    rec_p2p(known, 0, 8, MPI_BYTE); /* the recorder now has known's translation */
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
    pthread_t a, b;
    pthread_create(&b, NULL, freer, NULL);
    pthread_create(&a, NULL, sender, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    __atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
    if (deadlock)
        printf("LOCKORDER FAIL rank %d: the recorder held its lock across PMPI_Comm_group while the delete callback waited for it\n", rank);
    else
        printf("LOCKORDER ok rank %d\n", rank);
    MPI_Comm_free(&fresh);
    MPI_Finalize();
    return deadlock;
}
