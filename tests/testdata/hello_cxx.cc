// hello_cxx: gpumap.h in a C++ program compiled with mpicxx (-Wall
// -Wextra -pedantic -Werror): the header must be valid C++ and declare
// its functions extern "C", else this does not compile or link. Ring
// pattern as in hello.c; gpumap_cost of the launch placement, then a
// reordering.
// OpenMPI's C++ bindings (in mpi.h) fail -Wextra: only gpumap.h is held
// to it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-function-type"
#include <mpi.h>
#pragma GCC diagnostic pop
#include "gpumap.h"

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> nb{(rank + 1) % size, (rank + size - 1) % size};
    std::vector<double> vol(2, 1 << 20);
    const int degree = size > 2 ? 2 : (size == 2 ? 1 : 0);
    gpumap_options opt;
    gpumap_options_init(&opt);
    double cost = -1;
    int rc = gpumap_cost(MPI_COMM_WORLD, degree, nb.data(), vol.data(), &opt, &cost);
    MPI_Comm fast = MPI_COMM_NULL;
    if (rc == GPUMAP_OK)
        rc = gpumap_reorder(MPI_COMM_WORLD, degree, nb.data(), vol.data(), &opt, &fast);
    if (rc != GPUMAP_OK) {
        std::printf("rank %d: status %d (%s): %s\n", rank, rc, gpumap_error_string(rc), gpumap_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nr = -1;
    MPI_Comm_rank(fast, &nr);
    gpumap_result res;
    gpumap_last_result(&res);
    std::printf("CXX RANK %d NEW %d COST %.0f BEFORE %.0f\n", rank, nr, cost, res.cost_before);
    MPI_Comm_free(&fast);
    MPI_Finalize();
    return 0;
}
