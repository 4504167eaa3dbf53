/*
 * topo_shift: MPI_Cart_shift in every direction with displacements
 * -2..2 on periodic and non-periodic dimensions (MPI_PROC_NULL at the
 * borders), checked against the coordinates and by a sendrecv along it.
 *   topo_shift [reorder]
 */
#include "topocheck.h"

static void shifts(const char *name, const int *dims, const int *periods) {
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &cart);
    perm(name, cart);
    int t, c[2];
    MPI_Comm_rank(cart, &t);
    MPI_Cart_coords(cart, t, 2, c);
    for (int d = 0; d < 2; d++) {
        for (int disp = -2; disp <= 2; disp++) {
            if (!disp) continue;
            int src, dst, want[2];
            MPI_Cart_shift(cart, d, disp, &src, &dst);
            for (int k = 0; k < 2; k++) { /* k = 0: destination, k = 1: source */
                int x[2] = {c[0], c[1]}, r = MPI_PROC_NULL;
                x[d] += k ? -disp : disp;
                if (periods[d]) x[d] = ((x[d] % dims[d]) + dims[d]) % dims[d];
                if (x[d] >= 0 && x[d] < dims[d]) MPI_Cart_rank(cart, x, &r);
                want[k] = r;
            }
            CHECK(dst == want[0] && src == want[1], "%s: rank %d dim %d disp %d: shift %d %d, want %d %d",
                  name, t, d, disp, src, dst, want[1], want[0]);
            int got = -7;
            MPI_Sendrecv(&t, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, cart, MPI_STATUS_IGNORE);
            CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "%s: rank %d received %d from %d", name, t, got, src);
            R("%s rank %d dim %d disp %d src %d dst %d got %d", name, t, d, disp,
              src == MPI_PROC_NULL ? -1 : src, dst == MPI_PROC_NULL ? -1 : dst, got);
        }
    }
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    if (world_size != 6) MPI_Abort(MPI_COMM_WORLD, 2);
    shifts("shift2x3", (int[]){2, 3}, (int[]){1, 0});
    shifts("shift3x2", (int[]){3, 2}, (int[]){0, 1});
    return finish();
}
