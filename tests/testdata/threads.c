/*
 * threads: two threads fail gpumap_map_graph at the same time, each with a
 * hierarchy naming it, and check that gpumap_last_error() shows their own
 * message (issue 8, D12: the buffer was shared by the process). Needs no
 * MPI_Init (gpumap_map_graph is not collective).
 *   threads [iterations]   prints "THREADS mismatches <n> of <calls>"
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpumap.h"

static int iterations = 2000;

static void *worker(void *arg) {
    const char *hier = arg; /* "7:thread-a" or "7:thread-b": field 2 is not an integer */
    static const int64_t xadj[3] = {0, 1, 2};
    static const int32_t adjncy[2] = {1, 0};
    int32_t pe[2];
    long bad = 0;
    for (int i = 0; i < iterations; i++) {
        int rc = gpumap_map_graph(2, xadj, adjncy, NULL, NULL, hier, "1:1", NULL, pe, NULL);
        if (rc != GPUMAP_ERR_OPTIONS || !strstr(gpumap_last_error(), hier)) bad++;
    }
    return (void *)bad;
}

int main(int argc, char **argv) {
    if (argc > 1) iterations = atoi(argv[1]);
    pthread_t a, b;
    pthread_create(&a, NULL, worker, "7:thread-a");
    pthread_create(&b, NULL, worker, "7:thread-b");
    void *ra, *rb;
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    printf("THREADS mismatches %ld of %d calls\n", (long)ra + (long)rb, 2 * iterations);
    return 0;
}
