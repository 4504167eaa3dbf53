/*
 * invalid: the table of invalid inputs. Every case calls gpumap_reorder on
 * all ranks with one bad argument (often on one rank only); every rank
 * prints the status it got, and the communicator is checked to be intact
 * (an MPI_Allreduce on it) before the next case. Needs >= 4 ranks.
 *   CASE <name> rank <r> status <s> <message>
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpumap.h"

static int rank, size;

static void report(const char *name, int rc, MPI_Comm got) {
    printf("CASE %s rank %d status %d %s\n", name, rank, rc, rc ? gpumap_last_error() : "");
    fflush(stdout);
    if (rc != GPUMAP_OK && got != MPI_COMM_NULL) {
        printf("CASE %s rank %d ERROR newcomm not MPI_COMM_NULL on failure\n", name, rank);
    }
    if (rc == GPUMAP_OK && got != MPI_COMM_NULL) MPI_Comm_free(&got);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) printf("CASE %s rank %d ERROR communicator damaged\n", name, rank);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nb[2] = {(rank + 1) % size, (rank + size - 1) % size};
    double vol[2] = {1000, 1000};
    gpumap_options opt;
    MPI_Comm out;
    int rc;

#define CALL(name, deg, n, v, o, newp) \
    do { out = MPI_COMM_NULL; rc = gpumap_reorder(MPI_COMM_WORLD, deg, n, v, o, newp); report(name, rc, out); } while (0)

    CALL("valid", 2, nb, vol, NULL, &out);

    double neg[2] = {1000, rank == 1 ? -5 : 1000};
    CALL("negative-volume", 2, nb, neg, NULL, &out);

    double nan_[2] = {rank == 2 ? NAN : 1000, 1000};
    CALL("nan-volume", 2, nb, nan_, NULL, &out);

    double inf_[2] = {rank == 2 ? INFINITY : 1000, 1000};
    CALL("infinite-volume", 2, nb, inf_, NULL, &out);

    int far[2] = {nb[0], rank == 0 ? size : nb[1]};
    CALL("neighbour-out-of-range", 2, far, vol, NULL, &out);

    int minus[2] = {nb[0], rank == 0 ? -1 : nb[1]};
    CALL("negative-neighbour", 2, minus, vol, NULL, &out);

    int self[2] = {nb[0], rank == 3 ? 3 : nb[1]};
    CALL("self-neighbour", 2, self, vol, NULL, &out);

    CALL("negative-degree", rank == 1 ? -1 : 2, nb, vol, NULL, &out);

    CALL("null-arrays", 2, rank == 2 ? NULL : nb, vol, NULL, &out);

    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, rank == 1 ? NULL : &out);
    report("null-newcomm", rc, out);

    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_NULL, 2, nb, vol, NULL, &out);
    report("comm-null", rc, out);

    /* An inter-communicator between the even and the odd ranks. */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 99, &inter);
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(inter, 0, NULL, NULL, NULL, &out);
    report("inter-communicator", rc, out);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    gpumap_options_init(&opt);
    if (rank == 0) opt.preset = GPUMAP_PRESET_STRONG;
    CALL("options-differ-across-ranks", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.hierarchy = "3:3";
    CALL("hierarchy-does-not-fit", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.distance = "1:10";
    CALL("distance-levels-mismatch", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.hierarchy = "4:x";
    CALL("hierarchy-malformed", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.version = 99;
    CALL("options-version", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.preset = 42;
    CALL("unknown-preset", 2, nb, vol, &opt, &out);

    gpumap_options_init(&opt);
    opt.pattern = GPUMAP_PATTERN_EXCHANGE;
    int one_way[1] = {(rank + 1) % size};
    CALL("exchange-asymmetric", 1, one_way, vol, &opt, &out);

    double lopsided[2] = {1000, rank == 0 ? 2000 : 1000};
    CALL("exchange-volumes-differ", 2, nb, lopsided, &opt, &out);

    gpumap_options_init(&opt);
    opt.backend = GPUMAP_BACKEND_GPU;
    CALL("backend-gpu-without-gpu", 2, nb, vol, &opt, &out);

    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_SELF, 0, NULL, NULL, NULL, &out);
    report("size-one-communicator", rc, out);

    setenv("GPUMAP_DISABLE", "1", 1);
    out = MPI_COMM_NULL;
    rc = gpumap_reorder(MPI_COMM_WORLD, 2, nb, vol, NULL, &out);
    int r2 = -1, same = 0;
    if (rc == GPUMAP_OK) {
        MPI_Comm_rank(out, &r2);
        MPI_Comm_compare(out, MPI_COMM_WORLD, &same);
    }
    printf("CASE disabled-keeps-order rank %d status %d %s\n", rank, rc,
           r2 == rank && same == MPI_CONGRUENT ? "congruent duplicate" : "ERROR not a duplicate");
    if (rc == GPUMAP_OK) MPI_Comm_free(&out);
    unsetenv("GPUMAP_DISABLE");

    MPI_Finalize();
    return 0;
}
