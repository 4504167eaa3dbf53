/*
 * topo_cart: MPI_Cart_create conformance (2-D, periodic, degenerate
 * dimensions of size 1, fewer grid points than processes, zero
 * dimensions, a ring that must keep the world order) and MPI_Dims_create.
 *   topo_cart [reorder]     (see topocheck.h for the output)
 */
#include "topocheck.h"

static void rowmajor(int t, int ndims, const int *dims, int *coords) {
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = t % dims[i];
        t /= dims[i];
    }
}

static void check_cart(const char *name, MPI_Comm cart, int ndims, const int *dims, const int *periods) {
    int members = cart != MPI_COMM_NULL, total = 0;
    MPI_Allreduce(&members, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) R("%s members %d", name, total);
    if (cart == MPI_COMM_NULL) return;
    perm(name, cart);
    int t, size, type, nd, gd[8], gp[8], gc[8], want[8], back;
    MPI_Comm_rank(cart, &t);
    MPI_Comm_size(cart, &size);
    MPI_Topo_test(cart, &type);
    CHECK(type == MPI_CART, "%s: MPI_Topo_test %d, want MPI_CART", name, type);
    MPI_Cartdim_get(cart, &nd);
    CHECK(nd == ndims, "%s: MPI_Cartdim_get %d, want %d", name, nd, ndims);
    MPI_Cart_get(cart, ndims, gd, gp, gc);
    rowmajor(t, ndims, dims, want);
    char c[256] = "";
    for (int i = 0; i < ndims; i++) {
        CHECK(gd[i] == dims[i] && (gp[i] != 0) == (periods[i] != 0), "%s: MPI_Cart_get dims/periods differ in dimension %d", name, i);
        CHECK(gc[i] == want[i], "%s: rank %d has coordinate %d in dimension %d, want %d", name, t, gc[i], i, want[i]);
        add(c, sizeof c, "%d ", gc[i]);
    }
    for (int r = 0; r < size; r++) { /* coords and rank are inverse for every rank */
        int rc[8];
        MPI_Cart_coords(cart, r, ndims, rc);
        MPI_Cart_rank(cart, rc, &back);
        CHECK(back == r, "%s: MPI_Cart_rank(MPI_Cart_coords(%d)) = %d", name, r, back);
        for (int i = 0; i < ndims; i++)
            if (periods[i]) rc[i] += dims[i]; /* periodic: out of range wraps */
        MPI_Cart_rank(cart, rc, &back);
        CHECK(back == r, "%s: periodic wrap of rank %d gives %d", name, r, back);
    }
    R("%s size %d rank %d coords %s", name, size, t, c);
}

static void cart(const char *name, int ndims, const int *dims, const int *periods) {
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, reorder, &c);
    check_cart(name, c, ndims, dims, periods);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) {
        if (world_rank == 0) fprintf(stderr, "topo_cart: run with 6 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cart("grid2x3", 2, (int[]){2, 3}, (int[]){0, 0});
    cart("torus3x2", 2, (int[]){3, 2}, (int[]){1, 1});
    cart("degenerate1x6x1", 3, (int[]){1, 6, 1}, (int[]){1, 0, 1});
    cart("fewer2x2", 2, (int[]){2, 2}, (int[]){0, 1});
    cart("line5", 1, (int[]){5}, (int[]){0});

    /* Zero dimensions: one process gets a zero-dimensional grid. */
    MPI_Comm z;
    MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, reorder, &z);
    int zm = z != MPI_COMM_NULL, ztotal = 0;
    MPI_Allreduce(&zm, &ztotal, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) R("zero-dims members %d", ztotal);
    if (z != MPI_COMM_NULL) {
        int nd = -1, size = 0;
        MPI_Cartdim_get(z, &nd);
        MPI_Comm_size(z, &size);
        R("zero-dims ndims %d size %d", nd, size);
        MPI_Comm_free(&z);
    }

    /* A periodic ring: no order is cheaper than the world order, so the
     * ranks stay what they were, and a program may rely on it. */
    MPI_Comm ring;
    int n = world_size, per = 1, t, src, dst;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &per, reorder, &ring);
    MPI_Comm_rank(ring, &t);
    MPI_Cart_shift(ring, 0, 1, &src, &dst);
    CHECK(t == world_rank, "ring: world rank %d became %d", world_rank, t);
    CHECK(src == (world_rank + n - 1) % n && dst == (world_rank + 1) % n, "ring: shift gives %d %d", src, dst);
    R("ring rank %d world %d src %d dst %d", t, world_rank, src, dst);
    MPI_Comm_free(&ring);

    /* MPI_Dims_create, zeros are free entries. */
    if (world_rank == 0) {
        int d1[2] = {0, 0}, d2[3] = {0, 3, 0}, d3[2] = {6, 0}, d4[3] = {0, 0, 0}, d5[1] = {0};
        MPI_Dims_create(6, 2, d1);
        MPI_Dims_create(6, 3, d2);
        MPI_Dims_create(6, 2, d3);
        MPI_Dims_create(1, 3, d4);
        MPI_Dims_create(7, 1, d5);
        R("dims_create %d %d | %d %d %d | %d %d | %d %d %d | %d", d1[0], d1[1], d2[0], d2[1], d2[2],
          d3[0], d3[1], d4[0], d4[1], d4[2], d5[0]);
        CHECK(d1[0] * d1[1] == 6 && d2[1] == 3 && d2[0] * d2[2] == 2 && d3[1] == 1, "MPI_Dims_create");
    }
    return finish();
}
