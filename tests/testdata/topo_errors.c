/*
 * topo_errors: erroneous constructor calls under MPI_ERRORS_RETURN. The
 * error class (0 where the library accepts the call: OpenMPI 4.1.4 does
 * not check graph edges, MPICH 4.0.2 takes negative dims) must be what
 * the MPI library returns by itself, and the communicator must work
 * afterwards; then a valid call on a duplicate.
 *   topo_errors [reorder]
 */
#include "topocheck.h"

static void expect_error(const char *name, int rc, MPI_Comm c) {
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) MPI_Comm_free(&c);
    if (world_rank == 0) R("%s error class %d", name, cls);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){3, 3}, (int[]){0, 0}, reorder, &c);
    expect_error("cart-too-large", rc, c);
    c = MPI_COMM_NULL;
    rc = MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){-2, 3}, (int[]){0, 0}, reorder, &c);
    expect_error("cart-negative-dim", rc, c);
    c = MPI_COMM_NULL;
    rc = MPI_Cart_create(MPI_COMM_WORLD, -1, (int[]){2, 3}, (int[]){0, 0}, reorder, &c);
    expect_error("cart-negative-ndims", rc, c);
    c = MPI_COMM_NULL;
    rc = MPI_Graph_create(MPI_COMM_WORLD, 7, (int[]){1, 2, 3, 4, 5, 6, 7}, (int[]){1, 2, 3, 4, 5, 6, 0}, reorder, &c);
    expect_error("graph-too-large", rc, c);
    c = MPI_COMM_NULL;
    rc = MPI_Graph_create(MPI_COMM_WORLD, 6, (int[]){1, 2, 3, 4, 5, 6}, (int[]){1, 2, 3, 4, 5, 9}, reorder, &c);
    expect_error("graph-edge-out-of-range", rc, c);
    c = MPI_COMM_NULL;
    int nb = (world_rank + 1) % 6, w = -1; /* every rank errs alike (MPICH asserts on ranks out of range) */
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &world_rank, (int[]){1}, &nb, &w, MPI_INFO_NULL, reorder, &c);
    expect_error("dist-graph-negative-weight", rc, c);
    c = MPI_COMM_NULL;
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, (int[]){(world_rank + 5) % 6}, MPI_UNWEIGHTED,
                                        1, &nb, MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &c);
    expect_error("dist-graph-adjacent-negative-degree", rc, c);

    /* The communicator still works, and so do valid calls. */
    int sum = 0;
    MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == 15, "MPI_COMM_WORLD damaged: sum %d", sum);
    MPI_Comm d, cart;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    rc = MPI_Cart_create(d, 2, (int[]){2, 3}, (int[]){0, 0}, reorder, &cart);
    CHECK(rc == MPI_SUCCESS, "valid MPI_Cart_create after the errors: %d", rc);
    perm("cart", cart);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(cart, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "the topology communicator does not inherit MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    int t, x[2];
    MPI_Comm_rank(cart, &t);
    MPI_Cart_coords(cart, t, 2, x);
    R("cart rank %d coords %d %d", t, x[0], x[1]);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&d);
    return finish();
}
