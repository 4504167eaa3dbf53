/*
 * fortran.c - the Fortran entry points of the constructors.
 *
 * How the stacks route a Fortran call (nm -D / objdump -d of the
 * installed libraries):
 *  - OpenMPI 4.1.4: mpif.h and "use mpi" call mpi_cart_create_ (also
 *    exported as mpi_cart_create, mpi_cart_create__, MPI_CART_CREATE,
 *    MPI_Cart_create_f, MPI_Cart_create_f08) in libmpi_mpifh, which calls
 *    PMPI_Cart_create; "use mpi_f08" calls mpi_cart_create_f08_ in
 *    libmpi_usempif08, which calls pmpi_cart_create_ and so
 *    PMPI_Cart_create. Neither reaches the C MPI_Cart_create, so every
 *    one of these names is intercepted here.
 *  - MPICH 4.0.2: mpif.h and "use mpi" call mpi_cart_create_ (and its
 *    manglings) in libmpifort, which calls the C MPI_Cart_create: that
 *    path is already intercepted, with the library's own conversion of
 *    handles, LOGICALs and MPI_UNWEIGHTED. "use mpi_f08" calls
 *    mpi_cart_create_f08_, which calls PMPI_Cart_create: intercepted here.
 * The same holds for the other three constructors.
 *
 * A call that does not ask for a reordering (or GPUMAP_TOPO=0) goes to
 * the library's own Fortran binding, found with dlsym(RTLD_NEXT), so it
 * runs exactly as without the interposer. Otherwise the arguments are
 * converted here (handles, LOGICAL != 0, the Fortran MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY, which are addresses of the library's variables) and
 * the C constructor of topo.h does the rest.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "gpumap_dl.h"
#include "topo.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER and C int differ");

typedef MPI_Fint F; /* INTEGER, LOGICAL and handles of the default kind */

#if defined(OPEN_MPI)
static const char *unweighted_names[] = {"mpi_fortran_unweighted_", "mpi_fortran_unweighted",
                                         "mpi_fortran_unweighted__", "MPI_FORTRAN_UNWEIGHTED", NULL};
static const char *empty_names[] = {"mpi_fortran_weights_empty_", "mpi_fortran_weights_empty",
                                    "mpi_fortran_weights_empty__", "MPI_FORTRAN_WEIGHTS_EMPTY", NULL};
#else /* MPICH: only mpi_f08 comes here */
static const char *unweighted_names[] = {"__mpi_f08_link_constants_MOD_mpi_unweighted", NULL};
static const char *empty_names[] = {"__mpi_f08_link_constants_MOD_mpi_weights_empty", NULL};
#endif

static int is_constant(const void *p, const char **names) {
    for (; *names; names++) {
        void *s = dlsym(RTLD_DEFAULT, *names);
        if (s && s == p) return 1;
    }
    return 0;
}

static const int *c_weights(const F *w) {
    if (is_constant(w, unweighted_names)) return MPI_UNWEIGHTED;
    if (is_constant(w, empty_names)) return MPI_WEIGHTS_EMPTY;
    return (const int *)w;
}

static int off(const F *reorder) {
    return !*reorder || topo_disabled() || topo_in_fortran;
}

static void result(int rc, MPI_Comm out, F *newcomm, F *ierr) {
    if (ierr) *ierr = rc; /* mpi_f08's ierror is OPTIONAL: NULL when absent */
    if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(out);
}

/* ---- one function per constructor ---- */

/* Hands the call to the library's own binding, unchanged, when it does not
 * ask for a reordering (and returns). */
#define PASS_ON(fn_type, sym, cache, reorder, ...)                             \
    do {                                                                       \
        fn_type *lib_ = off(reorder) ? (fn_type *)gpumap_dl_next(sym, cache) : NULL;     \
        if (lib_) {                                                            \
            topo_in_fortran = 1;                                               \
            lib_(__VA_ARGS__);                                                 \
            topo_in_fortran = 0;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

typedef void cart_fn(F *, F *, F *, F *, F *, F *, F *);
static void f_cart(const char *sym, void **cache, F *comm, F *ndims, F *dims, F *periods, F *reorder,
                   F *newcomm, F *ierr) {
    PASS_ON(cart_fn, sym, cache, reorder, comm, ndims, dims, periods, reorder, newcomm, ierr);
    int n = *ndims > 0 ? *ndims : 0, *p = malloc((size_t)n * sizeof(int) + 1);
    for (int i = 0; p && periods && i < n; i++) p[i] = periods[i] != 0;
    MPI_Comm out = MPI_COMM_NULL;
    int rc = topo_cart_create("MPI_CART_CREATE", PMPI_Comm_f2c(*comm), *ndims, dims, periods ? p : NULL,
                              *reorder != 0, &out);
    free(p);
    result(rc, out, newcomm, ierr);
}

typedef void graph_fn(F *, F *, F *, F *, F *, F *, F *);
static void f_graph(const char *sym, void **cache, F *comm, F *nnodes, F *index, F *edges, F *reorder,
                    F *newcomm, F *ierr) {
    PASS_ON(graph_fn, sym, cache, reorder, comm, nnodes, index, edges, reorder, newcomm, ierr);
    MPI_Comm out = MPI_COMM_NULL;
    int rc = topo_graph_create("MPI_GRAPH_CREATE", PMPI_Comm_f2c(*comm), *nnodes, index, edges,
                               *reorder != 0, &out);
    result(rc, out, newcomm, ierr);
}

typedef void adjacent_fn(F *, F *, F *, F *, F *, F *, F *, F *, F *, F *, F *);
static void f_adjacent(const char *sym, void **cache, F *comm, F *indegree, F *sources, F *sourceweights,
                       F *outdegree, F *destinations, F *destweights, F *info, F *reorder,
                       F *newcomm, F *ierr) {
    PASS_ON(adjacent_fn, sym, cache, reorder, comm, indegree, sources, sourceweights, outdegree, destinations,
            destweights, info, reorder, newcomm, ierr);
    MPI_Comm out = MPI_COMM_NULL;
    int rc = topo_dist_graph_create_adjacent("MPI_DIST_GRAPH_CREATE_ADJACENT", PMPI_Comm_f2c(*comm),
                                             *indegree, sources, c_weights(sourceweights), *outdegree,
                                             destinations, c_weights(destweights),
                                             PMPI_Info_f2c(*info), *reorder != 0, &out);
    result(rc, out, newcomm, ierr);
}

typedef void dist_fn(F *, F *, F *, F *, F *, F *, F *, F *, F *, F *);
static void f_dist(const char *sym, void **cache, F *comm, F *n, F *sources, F *degrees, F *destinations,
                   F *weights, F *info, F *reorder, F *newcomm, F *ierr) {
    PASS_ON(dist_fn, sym, cache, reorder, comm, n, sources, degrees, destinations, weights, info, reorder, newcomm, ierr);
    MPI_Comm out = MPI_COMM_NULL;
    int rc = topo_dist_graph_create("MPI_DIST_GRAPH_CREATE", PMPI_Comm_f2c(*comm), *n, sources, degrees,
                                    destinations, c_weights(weights), PMPI_Info_f2c(*info),
                                    *reorder != 0, &out);
    result(rc, out, newcomm, ierr);
}

/* ---- the exported names ---- */

#define CART(sym)                                                                            \
    static void *next_##sym;                                                                 \
    TOPO_EXPORT void sym(F *comm, F *ndims, F *dims, F *periods, F *reorder, F *nc, F *ierr) { \
        f_cart(#sym, &next_##sym, comm, ndims, dims, periods, reorder, nc, ierr);            \
    }
#define GRAPH(sym)                                                                           \
    static void *next_##sym;                                                                 \
    TOPO_EXPORT void sym(F *comm, F *nnodes, F *index, F *edges, F *reorder, F *nc, F *ierr) { \
        f_graph(#sym, &next_##sym, comm, nnodes, index, edges, reorder, nc, ierr);           \
    }
#define ADJACENT(sym)                                                                        \
    static void *next_##sym;                                                                 \
    TOPO_EXPORT void sym(F *comm, F *indeg, F *src, F *sw, F *outdeg, F *dst, F *dw, F *info,  \
                         F *reorder, F *nc, F *ierr) {                                       \
        f_adjacent(#sym, &next_##sym, comm, indeg, src, sw, outdeg, dst, dw, info, reorder, nc, ierr); \
    }
#define DIST(sym)                                                                            \
    static void *next_##sym;                                                                 \
    TOPO_EXPORT void sym(F *comm, F *n, F *src, F *deg, F *dst, F *w, F *info, F *reorder,     \
                         F *nc, F *ierr) {                                                   \
        f_dist(#sym, &next_##sym, comm, n, src, deg, dst, w, info, reorder, nc, ierr);       \
    }

/* mpi_f08 (both stacks) */
CART(mpi_cart_create_f08_)
GRAPH(mpi_graph_create_f08_)
ADJACENT(mpi_dist_graph_create_adjacent_f08_)
DIST(mpi_dist_graph_create_f08_)

#if defined(OPEN_MPI)
/* mpif.h and use mpi: every name libmpi_mpifh exports for them */
CART(mpi_cart_create_)
CART(mpi_cart_create)
CART(mpi_cart_create__)
CART(MPI_CART_CREATE)
CART(MPI_Cart_create_f)
CART(MPI_Cart_create_f08)
GRAPH(mpi_graph_create_)
GRAPH(mpi_graph_create)
GRAPH(mpi_graph_create__)
GRAPH(MPI_GRAPH_CREATE)
GRAPH(MPI_Graph_create_f)
GRAPH(MPI_Graph_create_f08)
ADJACENT(mpi_dist_graph_create_adjacent_)
ADJACENT(mpi_dist_graph_create_adjacent)
ADJACENT(mpi_dist_graph_create_adjacent__)
ADJACENT(MPI_DIST_GRAPH_CREATE_ADJACENT)
ADJACENT(MPI_Dist_graph_create_adjacent_f)
ADJACENT(MPI_Dist_graph_create_adjacent_f08)
DIST(mpi_dist_graph_create_)
DIST(mpi_dist_graph_create)
DIST(mpi_dist_graph_create__)
DIST(MPI_DIST_GRAPH_CREATE)
DIST(MPI_Dist_graph_create_f)
DIST(MPI_Dist_graph_create_f08)
#endif
