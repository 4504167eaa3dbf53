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
 * per rank, EXCHANGE ms=<mean over iterations of the slowest rank>,
 * LOADED, DONE errors <n>.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dims[3], errors;

/* the grid neighbours of point t: -x +x -y +y -z +z, borders skipped */
static int grid_neighbours(int t, int *nb) {
    int x = t / (dims[1] * dims[2]), y = (t / dims[2]) % dims[1], z = t % dims[2], d = 0;
    if (x > 0) nb[d++] = t - dims[1] * dims[2];
    if (x + 1 < dims[0]) nb[d++] = t + dims[1] * dims[2];
    if (y > 0) nb[d++] = t - dims[2];
    if (y + 1 < dims[1]) nb[d++] = t + dims[2];
    if (z > 0) nb[d++] = t - 1;
    if (z + 1 < dims[2]) nb[d++] = t + 1;
    return d;
}

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

static int loaded(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int yes = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "/libgpumap.so")) yes = 1;
    if (f) fclose(f);
    return yes;
}

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %d: ", t); printf(__VA_ARGS__); printf("\n"); errors++; } } while (0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int w, size, t;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (w == 0) fprintf(stderr, "usage: topo_stencil NX NY NZ [iterations] [halo-bytes] [cart|graph] [reorder]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 3; i++) dims[i] = atoi(argv[1 + i]);
    int iterations = argc > 4 ? atoi(argv[4]) : 5;
    size_t halo = argc > 5 ? (size_t)atol(argv[5]) : (size_t)1 << 20;
    int graph = argc > 6 && strcmp(argv[6], "graph") == 0;
    int reorder = argc > 7 ? atoi(argv[7]) : 1;
    if (dims[0] * dims[1] * dims[2] != size) {
        if (w == 0) fprintf(stderr, "topo_stencil: %dx%dx%d != %d ranks\n", dims[0], dims[1], dims[2], size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Comm topo;
    int lo[3], hi[3], nb[6], want[6], k = 0, c[3];
    t = w;
    if (!graph) {
        int periods[3] = {0, 0, 0};
        MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, reorder, &topo);
        MPI_Comm_rank(topo, &t);
        MPI_Cart_coords(topo, t, 3, c);
        CHECK(c[0] == t / (dims[1] * dims[2]) && c[1] == (t / dims[2]) % dims[1] && c[2] == t % dims[2],
              "coordinates %d %d %d", c[0], c[1], c[2]);
        for (int d = 0; d < 3; d++) {
            MPI_Cart_shift(topo, d, 1, &lo[d], &hi[d]);
            if (lo[d] != MPI_PROC_NULL) nb[k++] = lo[d];
            if (hi[d] != MPI_PROC_NULL) nb[k++] = hi[d];
        }
    } else {
        int mine[6], wt[6], m = grid_neighbours(w, mine), in, out, weighted, s[6], sw[6], dw[6];
        for (int i = 0; i < m; i++) wt[i] = (int)(halo >> 10) > 0 ? (int)(halo >> 10) : 1;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, m, mine, wt, m, mine, wt, MPI_INFO_NULL, reorder, &topo);
        MPI_Comm_rank(topo, &t);
        MPI_Dist_graph_neighbors_count(topo, &in, &out, &weighted);
        MPI_Dist_graph_neighbors(topo, in, s, sw, out, nb, dw);
        k = out;
        int m2 = grid_neighbours(t, want);
        CHECK(in == m2 && out == m2, "degree %d %d, want %d", in, out, m2);
        for (int i = 0; i < m2 && i < in; i++) CHECK(s[i] == want[i], "source %d is %d, want %d", i, s[i], want[i]);
    }
    /* the neighbours this point must have, in any order */
    int m = grid_neighbours(t, want);
    CHECK(k == m, "%d neighbours, want %d", k, m);
    for (int i = 0; i < m; i++) {
        int found = 0;
        for (int j = 0; j < k; j++) found |= nb[j] == want[i];
        CHECK(found, "grid neighbour %d missing", want[i]);
    }

    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    printf("PLACE t=%d world=%d host=%s cpu=%d\n", t, w, host, bound_cpu());
    fflush(stdout);

    /* the halo exchange: the first int of every halo is the sender */
    char *send = malloc(halo * 6 + 8), *recv = malloc(halo * 6 + 8);
    memset(send, t & 0xff, halo * 6);
    for (int i = 0; i < k; i++) memcpy(send + i * halo, &t, sizeof t);
    MPI_Request req[12];
    double sum = 0;
    for (int it = -1; it < iterations; it++) { /* one warm-up round */
        MPI_Barrier(topo);
        double t0 = MPI_Wtime();
        for (int i = 0; i < k; i++) {
            MPI_Irecv(recv + i * halo, (int)halo, MPI_BYTE, nb[i], 7, topo, &req[2 * i]);
            MPI_Isend(send + i * halo, (int)halo, MPI_BYTE, nb[i], 7, topo, &req[2 * i + 1]);
        }
        MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
        double el = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, topo);
        if (it >= 0) sum += mx;
        for (int i = 0; i < k && halo >= sizeof(int); i++) {
            int from;
            memcpy(&from, recv + i * halo, sizeof from);
            CHECK(from == nb[i], "halo from %d carries %d", nb[i], from);
        }
    }
    if (t == 0) printf("EXCHANGE ms=%.2f\n", iterations > 0 ? 1e3 * sum / iterations : 0);
    printf("LOADED %d %s\n", w, loaded() ? "yes" : "no");
    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, topo);
    if (t == 0) printf("DONE errors %d\n", total);
    fflush(stdout);
    free(send);
    free(recv);
    MPI_Comm_free(&topo);
    MPI_Finalize();
    return total != 0;
}
