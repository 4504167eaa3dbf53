/*
 * topo_stencil: an ordinary halo-exchange program that knows nothing of
 * gpumap. It asks MPI for a topology with reorder = 1 and then takes its
 * place in the grid from its rank in the topology communicator, as such
 * programs do; libgpumap_topo.so, preloaded, makes that reordering real.
 *
 *   topo_stencil NX NY NZ [iterations] [halo-bytes] [cart|graph] [reorder]
 *
 * cart: MPI_Cart_create (not periodic), neighbours from MPI_Cart_shift;
 * graph: MPI_Dist_graph_create_adjacent with each rank's grid neighbours
 * and their halo size in KiB as weights, neighbours from
 * MPI_Dist_graph_neighbors. Checks: coordinates, shifts, the neighbour
 * lists against the grid, and the sender of every halo received.
 * Output: PLACE t=<rank in the topology> world=<w> host=<h> cpu=<c|-1>
 * per rank, EXCHANGE ms=<mean over iterations of the slowest rank>, and
 * FAIL, LOADED and DONE lines as in topocheck.h.
 */
#include "halo.h"
#include "topocheck.h"

/* The CPU this process is bound to, or -1 (from /proc/self/status). */
static int bound_cpu(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[512];
    int cpu = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Cpus_allowed_list:", 18)) continue;
        char *p = line + 18, *end;
        long c = strtol(p, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\n') end++;
        if (end != p && *end == 0) cpu = (int)c;
    }
    if (f) fclose(f);
    return cpu;
}

int main(int argc, char **argv) {
    int dims[3], t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (argc < 4) {
        if (world_rank == 0) fprintf(stderr, "usage: topo_stencil NX NY NZ [iterations] [halo-bytes] [cart|graph] [reorder]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 3; i++) dims[i] = atoi(argv[1 + i]);
    int iterations = argc > 4 ? atoi(argv[4]) : 5;
    size_t halo = argc > 5 ? (size_t)atol(argv[5]) : (size_t)1 << 20;
    int graph = argc > 6 && strcmp(argv[6], "graph") == 0;
    reorder = argc > 7 ? atoi(argv[7]) : 1;
    if (dims[0] * dims[1] * dims[2] != world_size) {
        if (world_rank == 0) fprintf(stderr, "topo_stencil: %dx%dx%d != %d ranks\n", dims[0], dims[1], dims[2], world_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Comm topo;
    int nb[6], want[6], k = 0;
    if (!graph) {
        int periods[3] = {0, 0, 0}, c[3], lo, hi;
        MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, reorder, &topo);
        MPI_Comm_rank(topo, &t);
        MPI_Cart_coords(topo, t, 3, c);
        CHECK(c[0] == t / (dims[1] * dims[2]) && c[1] == (t / dims[2]) % dims[1] && c[2] == t % dims[2],
              "rank %d has coordinates %d %d %d", t, c[0], c[1], c[2]);
        for (int d = 0; d < 3; d++) {
            MPI_Cart_shift(topo, d, 1, &lo, &hi);
            if (lo != MPI_PROC_NULL) nb[k++] = lo;
            if (hi != MPI_PROC_NULL) nb[k++] = hi;
        }
    } else {
        int mine[6], wt[6], m = grid_neighbours(dims, world_rank, mine), in, out, weighted, s[6], sw[6], dw[6];
        for (int i = 0; i < m; i++) wt[i] = halo >= 1024 ? (int)(halo >> 10) : 1;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, m, mine, wt, m, mine, wt, MPI_INFO_NULL, reorder, &topo);
        MPI_Comm_rank(topo, &t);
        MPI_Dist_graph_neighbors_count(topo, &in, &out, &weighted);
        MPI_Dist_graph_neighbors(topo, in, s, sw, out, nb, dw);
        k = out;
        int m2 = grid_neighbours(dims, t, want);
        CHECK(in == m2 && out == m2, "rank %d: degree %d %d, want %d", t, in, out, m2);
        for (int i = 0; i < m2 && i < in; i++) CHECK(s[i] == want[i], "rank %d: source %d is %d, want %d", t, i, s[i], want[i]);
    }
    /* the neighbours this point must have, in any order */
    int m = grid_neighbours(dims, t, want);
    CHECK(k == m, "rank %d: %d neighbours, want %d", t, k, m);
    for (int i = 0; i < m; i++) {
        int found = 0;
        for (int j = 0; j < k; j++) found |= nb[j] == want[i];
        CHECK(found, "rank %d: grid neighbour %d missing", t, want[i]);
    }

    char host[MPI_MAX_PROCESSOR_NAME];
    int len, bad = 0;
    MPI_Get_processor_name(host, &len);
    printf("PLACE t=%d world=%d host=%s cpu=%d\n", t, world_rank, host, bound_cpu());
    fflush(stdout);
    double ms = 1e3 * halo_exchange(topo, nb, k, halo, iterations, &bad);
    CHECK(!bad, "rank %d: %d halos from the wrong sender", t, bad);
    if (t == 0) printf("EXCHANGE ms=%.2f\n", ms);
    MPI_Comm_free(&topo);
    return finish();
}
