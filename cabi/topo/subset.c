/*
 * subset.c - grids of fewer points than processes. MPI_Cart_create and
 * MPI_Graph_create hand MPI_COMM_NULL to the processes beyond the grid,
 * and MPI's own constructors, which do not reorder, make them the ranks
 * P .. size-1 of comm_old. Programs rely on that ("if (rank < P)
 * use(cart)"), so by default the mapping moves vertices among ranks
 * 0 .. P-1 only. GPUMAP_TOPO_SUBSET=any lets it choose the members too,
 * as the standard allows (all processes are then mapped, topo_map).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

void topo_members(topo_call *c, int p) {
    const char *e = getenv("GPUMAP_TOPO_SUBSET"); /* at call time, like every GPUMAP_* variable */
    c->members = p;
    if (e && !strcmp(e, "any"))
        c->any_members = 1;
    else if (e && *e && strcmp(e, "first"))
        topo_reject(c, "GPUMAP_TOPO_SUBSET=%.64s: not first (the default) or any", e);
}

int topo_map_members(topo_call *c, MPI_Comm *nc) {
    MPI_Comm d = c->d, sub = MPI_COMM_NULL, mnc = MPI_COMM_NULL;
    int size = c->size, p = c->members, member = c->rank < p, outcome = TOPO_FALLBACK;
    *nc = MPI_COMM_NULL;
    /* The members map among themselves: their communicator, their machine. */
    if (PMPI_Comm_split(d, member ? 0 : MPI_UNDEFINED, c->rank, &sub) != MPI_SUCCESS) sub = MPI_COMM_NULL;
    if (member && sub != MPI_COMM_NULL) {
        PMPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
        c->d = sub;
        c->size = p;
        c->members = 0;
        outcome = topo_map(c, &mnc);
        c->d = d;
        c->size = size;
        c->members = p;
        PMPI_Comm_free(&sub);
    }
    /* Rank 0 is a member: its outcome is every member's (topo_map agreed
     * on it), and the other processes follow it. */
    if (PMPI_Bcast(&outcome, 1, MPI_INT, 0, d) != MPI_SUCCESS) outcome = TOPO_FALLBACK;
    if (outcome == TOPO_REORDER) {
        int key = c->rank;
        if (member) PMPI_Comm_rank(mnc, &key);
        if (PMPI_Comm_split(d, 0, key, nc) != MPI_SUCCESS) {
            *nc = MPI_COMM_NULL;
            snprintf(c->why, sizeof c->why, "MPI_Comm_split of the reordered members failed");
            outcome = TOPO_FALLBACK;
        }
    }
    if (mnc != MPI_COMM_NULL) PMPI_Comm_free(&mnc);
    return c->outcome = outcome;
}
