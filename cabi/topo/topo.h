/*
 * topo.h - internals of libgpumap_topo.so, the PMPI topology interposer.
 *
 * The interposer defines MPI_Cart_create, MPI_Graph_create,
 * MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create (and the
 * Fortran entry points of the stack it is built for, fortran.c). A call
 * with reorder != 0 on an intra-communicator of more than one process
 * builds the communication graph from the call's arguments, maps it with
 * gpumap_reorder (libgpumap.so, loaded with dlopen on the first such
 * call), and creates the topology through the PMPI constructor with
 * reorder = 0 on the reordered communicator. Every other call, and every
 * failure, goes to the PMPI constructor unchanged.
 *
 * Vertex v of the topology (cart index, graph node, dist-graph vertex
 * named by its rank in comm_old) is played by rank v of the new
 * communicator: the reordering moves vertices between processes, as
 * MPI_Cart_create does, and MPI_Dist_graph_neighbors at rank v returns
 * what rank v of comm_old passed (MPI 4.1, 8.5.5). Handwritten, internal.
 */
#ifndef GPUMAP_TOPO_H
#define GPUMAP_TOPO_H

#include <mpi.h>

#define TOPO_EXPORT __attribute__((visibility("default")))

/* What a constructor does after topo_map (topo_parent says on which
 * communicator). Apart from TOPO_PASS the topology communicator is made
 * from a private communicator, never from comm_old: the private copy is
 * then the only communicator made from comm_old, as MPI's own constructor
 * makes one. (OpenMPI 4.1.4's MPI_Dist_graph_create can take a message of
 * the context-id agreement for an edge when the non-blocking collectives
 * of comm_old have reached a certain tag, tests/testdata/topo_nbctag.c: a
 * second creation on comm_old moves programs onto that tag.) */
enum topo_outcome {
    TOPO_PASS = 0,     /* some rank's arguments are wrong: PMPI with the caller's arguments on comm_old */
    TOPO_KEEP = 1,     /* no order is strictly cheaper: PMPI with reorder = 0 on the private copy */
    TOPO_REORDER = 2,  /* PMPI with reorder = 0 on the reordered communicator topo_map returned */
    TOPO_FALLBACK = 3  /* gpumap could not map: PMPI with the caller's arguments on the private copy */
};

/* One intercepted call on one process. */
typedef struct topo_call {
    const char *name;  /* "MPI_Cart_create", or "MPI_CART_CREATE" from Fortran */
    MPI_Comm old;      /* the caller's communicator */
    MPI_Comm d;        /* private copy with MPI_ERRORS_RETURN for our traffic */
    int kept;          /* d is kept on old for the next call (core.c) */
    int found;         /* d was kept by an earlier call */
    int rank, size;
    int verbose;
    double t0;
    /* this rank's pattern: neighbours (ranks of comm_old) and volumes */
    int degree, cap;
    int *nbrs;
    double *vols;
    /* A grid of fewer points than processes (MPI_Cart_create,
     * MPI_Graph_create): the members, ranks 0 .. members-1 of comm_old,
     * get a vertex and the others MPI_COMM_NULL; 0 when every process
     * has a vertex. any_members: GPUMAP_TOPO_SUBSET=any lets the mapper
     * choose which processes are the members. */
    int members, any_members;
    int bad;           /* this rank rejected the arguments (why says why) */
    int libfail;       /* this rank could not load libgpumap.so (why says why) */
    char why[1024];    /* room for the reason of every library candidate (gpumap_dl.h) */
    /* the outcome, the same on every rank */
    int outcome;
    double j_before, j_after, map_seconds;
    int cached;        /* gpumap reused the mapping of an identical earlier call */
    char machine[400];
} topo_call;

/* Starts a call. Returns 0 when the call goes to PMPI untouched (turned
 * off, reorder == 0, one process, MPI_COMM_NULL, inter-communicator,
 * MPI not running, or a Fortran fall-through in progress); no MPI call has
 * then been made on comm. Returns 1 when the caller builds the pattern,
 * calls topo_map and finally topo_end. */
int topo_begin(topo_call *c, const char *name, MPI_Comm old, int reorder);

/* Adds a directed edge of this rank's vertex (self loops are dropped). */
void topo_edge(topo_call *c, int nbr, double vol);

/* Marks this rank's arguments as unusable for mapping, with the reason. */
void topo_reject(topo_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Collective over comm: agrees on the arguments, maps with gpumap and
 * decides. On TOPO_REORDER *nc is the reordered communicator (the caller
 * passes it to topo_end). */
int topo_map(topo_call *c, MPI_Comm *nc);

/* The communicator to call the PMPI constructor on after topo_map, and
 * the reorder flag to pass (*reorder holds the caller's on entry). */
MPI_Comm topo_parent(const topo_call *c, MPI_Comm nc, int *reorder);

/* Ends a call: gives a topology communicator made from a private
 * communicator comm_old's error handler, frees nc and the private copy,
 * prints the verbose line. rc is the PMPI constructor's status; a failure
 * on a private communicator is raised on comm_old. */
int topo_end(topo_call *c, MPI_Comm nc, int rc, MPI_Comm *out);

/* GPUMAP_TOPO turns the interposer off: 0, false, no or off by the rule of
 * gpumap_env.h; unset leaves it on, an unknown value too (with a warning
 * on rank 0 of the first mapped call). */
int topo_disabled(void);

/* For a grid of p < size points (before topo_map): keeps ranks 0 .. p-1
 * of comm_old as the members unless GPUMAP_TOPO_SUBSET=any (subset.c). */
void topo_members(topo_call *c, int p);

/* topo_map's mapping when the members are kept (collective over comm):
 * maps the pattern onto the members' processes only, and on
 * TOPO_REORDER returns in *nc the members in their new order followed by
 * the other processes in their old order. */
int topo_map_members(topo_call *c, MPI_Comm *nc);

/* Agreement helper: 1 on every rank when any rank passed failed != 0. */
int topo_any(topo_call *c, int failed);

/* Failure injection, compiled only into the test build of the interposer
 * (-DGPUMAP_FAULT_INJECT, build/tests/fault/libgpumap_topo.so): 1 when
 * GPUMAP_TEST_FAIL is "site@rank" for this site and this rank of
 * comm_old, so that tests can reach the failure paths that out-of-memory
 * and MPI errors would take. The release build has no such hook: 0. */
#ifdef GPUMAP_FAULT_INJECT
int topo_fault(const topo_call *c, const char *site);
#else
#define topo_fault(c, site) 0
#endif

/* The constructors, shared by the C and Fortran entry points. */
int topo_cart_create(const char *name, MPI_Comm old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *out);
int topo_graph_create(const char *name, MPI_Comm old, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *out);
int topo_dist_graph_create_adjacent(const char *name, MPI_Comm old, int indegree,
                                    const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[],
                                    const int destweights[], MPI_Info info, int reorder,
                                    MPI_Comm *out);
int topo_dist_graph_create(const char *name, MPI_Comm old, int n, const int sources[],
                           const int degrees[], const int destinations[], const int weights[],
                           MPI_Info info, int reorder, MPI_Comm *out);

/* Set while a Fortran entry point hands its call to the MPI library's own
 * Fortran binding, so that a binding that calls the C MPI_ function is not
 * intercepted a second time. */
extern __thread int topo_in_fortran;

#endif
