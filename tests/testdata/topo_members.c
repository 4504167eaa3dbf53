/*
 * topo_members: a 2x3 MPI_Cart_create and MPI_Graph_create (the same
 * grid) on 8 processes, each process bound before MPI_Init to the CPU its
 * world rank picks from the list given, so that the machine gpumap
 * detects is not in rank order. Prints, per call and process:
 *   MEMBER <call> <world rank> <rank in the topology, or -1>
 * and checks the topology of every member (row-major coordinates,
 * neighbours of the grid).
 *   topo_members reorder cpu0,cpu1,...,cpu7
 */
#define _GNU_SOURCE
#include <sched.h>

#include "topocheck.h"

/* Before MPI_Init: every thread MPI starts inherits the binding. */
static void bind(const char *list) {
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    int rank = r ? atoi(r) : -1, cpu = -1;
    for (int i = 0; list && *list; i++) {
        if (i == rank) cpu = atoi(list);
        list = strchr(list, ',');
        if (list) list++;
    }
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu < 0 ? 0 : cpu, &s);
    if (cpu < 0 || sched_setaffinity(0, sizeof s, &s) != 0) {
        fprintf(stderr, "topo_members: cannot bind rank %d to CPU %d\n", rank, cpu);
        exit(2);
    }
}

static void member(const char *name, MPI_Comm c, int cart) {
    int t = -1;
    if (c != MPI_COMM_NULL) MPI_Comm_rank(c, &t);
    printf("MEMBER %s %d %d\n", name, world_rank, t);
    fflush(stdout);
    if (c == MPI_COMM_NULL) return;
    int size;
    MPI_Comm_size(c, &size);
    CHECK(size == 6, "%s: size %d", name, size);
    if (cart) {
        int co[2], src, dst;
        MPI_Cart_coords(c, t, 2, co);
        CHECK(co[0] == t / 3 && co[1] == t % 3, "%s: rank %d has coordinates %d %d", name, t, co[0], co[1]);
        MPI_Cart_shift(c, 0, 1, &src, &dst);
        CHECK(src == (t >= 3 ? t - 3 : MPI_PROC_NULL) && dst == (t < 3 ? t + 3 : MPI_PROC_NULL),
              "%s: rank %d shifts to %d %d in dimension 0", name, t, src, dst);
        MPI_Cart_shift(c, 1, 1, &src, &dst);
        CHECK(src == (t % 3 ? t - 1 : MPI_PROC_NULL) && dst == (t % 3 < 2 ? t + 1 : MPI_PROC_NULL),
              "%s: rank %d shifts to %d %d in dimension 1", name, t, src, dst);
    } else {
        int nb[4], want[4], k = 0, w = 0;
        for (int u = 0; u < 6; u++) {
            int dx = u / 3 - t / 3, dy = u % 3 - t % 3;
            if (dx * dx + dy * dy == 1) want[w++] = u;
        }
        MPI_Graph_neighbors_count(c, t, &k);
        MPI_Graph_neighbors(c, t, 4, nb);
        CHECK(k == w && !memcmp(nb, want, (size_t)w * sizeof(int)), "%s: neighbours of %d differ", name, t);
    }
    R("%s rank %d", name, t);
}

int main(int argc, char **argv) {
    bind(argc > 2 ? argv[2] : NULL);
    start(&argc, &argv);
    if (world_size != 8) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){0, 0}, reorder, &c);
    member("cart", c, 1);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);

    int index[6], edges[14], m = 0;
    for (int v = 0; v < 6; v++) {
        for (int u = 0; u < 6; u++) {
            int dx = u / 3 - v / 3, dy = u % 3 - v % 3;
            if (dx * dx + dy * dy == 1) edges[m++] = u;
        }
        index[v] = m;
    }
    MPI_Graph_create(MPI_COMM_WORLD, 6, index, edges, reorder, &c);
    member("graph", c, 0);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    return finish();
}
