/*
 * topo_sub: MPI_Cart_sub for every subset of the dimensions of a 2x3 and
 * a 1x2x3 grid (the empty subset included: a zero-dimensional grid of one
 * process, or MPI_COMM_NULL with MPICH 4.0.2): sizes, ranks, coordinates
 * and an allreduce inside every sub-grid.
 *   topo_sub [reorder]
 */
#include "topocheck.h"

static void subs(const char *name, int nd, const int *dims, const int *periods) {
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, reorder, &cart);
    perm(name, cart);
    int t, c[3];
    MPI_Comm_rank(cart, &t);
    MPI_Cart_coords(cart, t, nd, c);
    for (int mask = 0; mask < 1 << nd; mask++) {
        int remain[3], sd[3], sp[3], sc[3], n = 0, size = 1, rank = 0, sr, ss, snd;
        for (int i = 0; i < nd; i++) {
            remain[i] = mask >> i & 1;
            if (remain[i]) {
                size *= dims[i];
                rank = rank * dims[i] + c[i];
                n++;
            }
        }
        MPI_Comm sub;
        MPI_Cart_sub(cart, remain, &sub);
        if (sub == MPI_COMM_NULL) { /* MPICH 4.0.2 with no dimension left */
            R("%s rank %d mask %d MPI_COMM_NULL", name, t, mask);
            continue;
        }
        MPI_Comm_rank(sub, &sr);
        MPI_Comm_size(sub, &ss);
        MPI_Cartdim_get(sub, &snd);
        CHECK(ss == size && sr == rank && snd == n, "%s mask %d: rank %d size %d ndims %d, want %d %d %d",
              name, mask, sr, ss, snd, rank, size, n);
        if (n > 0) {
            MPI_Cart_get(sub, n, sd, sp, sc);
            for (int i = 0, j = 0; i < nd; i++)
                if (remain[i]) {
                    CHECK(sd[j] == dims[i] && sc[j] == c[i] && (sp[j] != 0) == (periods[i] != 0),
                          "%s mask %d: sub-grid dimension %d differs", name, mask, j);
                    j++;
                }
        }
        /* The cart ranks of one sub-grid: the points sharing the fixed coordinates. */
        int sum = 0, want = 0;
        MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, sub);
        int total = dims[0] * dims[1] * (nd > 2 ? dims[2] : 1);
        for (int r = 0; r < total; r++) {
            int rc[3], same = 1;
            MPI_Cart_coords(cart, r, nd, rc);
            for (int i = 0; i < nd; i++)
                if (!remain[i] && rc[i] != c[i]) same = 0;
            want += same ? r : 0;
        }
        CHECK(sum == want, "%s mask %d: sum of ranks %d, want %d", name, mask, sum, want);
        R("%s rank %d mask %d subrank %d subsize %d sum %d", name, t, mask, sr, ss, sum);
        MPI_Comm_free(&sub);
    }
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    subs("sub2x3", 2, (int[]){2, 3}, (int[]){1, 0});
    subs("sub1x2x3", 3, (int[]){1, 2, 3}, (int[]){0, 1, 1});
    return finish();
}
