/*
 * gpumap.h - put MPI ranks where they should be.
 *
 * One collective call right after MPI_Init: every rank passes the ranks it
 * sends to and how many bytes; gpumap infers the machine (hosts, sockets,
 * cores), maps the communication graph onto it and returns a communicator
 * in which rank t is played by the process best placed for task t.
 *
 *   gpumap_options opt;
 *   gpumap_options_init(&opt);
 *   MPI_Comm fast;
 *   int rc = gpumap_reorder(MPI_COMM_WORLD, degree, nbrs, bytes, &opt, &fast);
 *   if (rc != GPUMAP_OK)
 *       fprintf(stderr, "%s: %s\n", gpumap_error_string(rc), gpumap_last_error());
 *
 * Every rank returns the same status. On failure *newcomm is
 * MPI_COMM_NULL and the input communicator is untouched; on success
 * *newcomm is an ordinary communicator that the caller frees: comm's
 * group and error handler, none of its attributes or topology (it comes
 * from MPI_Comm_split, so comm's attribute copy callbacks never run). The
 * order changes only when the mapping lowers J by at least 0.1%
 * (GPUMAP_MIN_GAIN); otherwise *newcomm has comm's order.
 *
 * Agreement. The first step of every gpumap_reorder and gpumap_cost is
 * collective: rank 0 broadcasts the call (reorder or cost), its options in
 * canonical form (hierarchy "4", " 4 " and "+4" are the same) and the
 * GPUMAP_* environment it sees; every rank compares them byte by byte
 * with its own. A rank in gpumap_cost while the others are in
 * gpumap_reorder, different seeds, presets, hierarchies or GPUMAP_DISABLE
 * settings give GPUMAP_ERR_INCONSISTENT on every rank, with a message
 * naming the first rank and field that differ. What MPI itself cannot
 * protect against: a rank that never makes the call, or makes it on
 * another communicator (MPI_COMM_NULL on one rank, say), or enters another
 * collective instead; the others then wait in MPI_Comm_dup, as in any
 * mismatched MPI program. A handle that is plainly no communicator (a
 * Fortran index outside OpenMPI's table, an MPICH handle of another kind)
 * gives GPUMAP_ERR_COMM; other invalid handles (a freed communicator, say)
 * are erroneous, as in MPI.
 *
 * Environment, read through getenv at every call on every rank (setenv
 * before the call works) and agreed on like the options:
 *   GPUMAP_DISABLE=1     keep the order: *newcomm has comm's order;
 *                        the arguments are still checked and cost_before
 *                        computed, so invalid input still fails (0/1,
 *                        also true/false, yes/no, on/off, any case;
 *                        anything else leaves it off, with a warning
 *                        on rank 0)
 *   GPUMAP_HIERARCHY, GPUMAP_DISTANCE
 *                        used when options.hierarchy / .distance are NULL
 *                        or ""
 *   GPUMAP_REPORT=f.svg  rank 0 draws the traffic before and after
 *   (GPUMAP_REPORT_LEVEL picks the level; not agreed on: rank 0's count)
 *
 * Limits (input beyond them is an error naming it, never a crash):
 *   hierarchy             at most 64 levels, at most 2^31-1 PEs
 *   distances             0 .. 2^40 per level
 *   threads               at most 4096
 *   gpumap_reorder        volumes finite and >= 0, their sum per pair of
 *                         ranks and J (a double) finite
 *   gpumap_map_graph      n <= 2^31-1, xadj[n] <= 2^40 and the copies of
 *                         the arrays within this machine's memory; vertex
 *                         weights summing to at most 2^61, edge weights
 *                         (each edge once) to at most 2^61, and that sum
 *                         times the largest distance at most 2^62;
 *                         imbalance at most 10^6
 *   gpumap_last_result_size  size at most 4096
 *
 * The caller's memory. Arrays are read as far as their counts say, and
 * only after checking that this much can be read: a count larger than its
 * array (degree beyond neighbors[], xadj[n] beyond adjncy[]) or a pointer
 * into unmapped memory (a garbage options.hierarchy, a string without its
 * NUL before unmapped memory, a read-only pe[]) is GPUMAP_ERR_ARGUMENT
 * naming the argument, not a crash. (The check reads through the kernel,
 * process_vm_readv/writev on the calling process; where a seccomp profile
 * forbids them, memory is read directly as before. A count that is wrong
 * but stays inside readable memory reads whatever is there, as in C.)
 * An options struct that did not come from gpumap_options_init (reserved
 * fields not zero, or an enum out of range) is GPUMAP_ERR_OPTIONS before
 * any of its pointers is followed.
 *
 * Threads. gpumap_last_error() and gpumap_last_result() are per thread:
 * each thread sees the outcome of its own last call. The collective calls
 * follow MPI's rules for the communicator they are given.
 *
 * Versions. Structs only grow at their end. gpumap_options carries a
 * version (set by gpumap_options_init); gpumap_last_result() is a macro
 * that passes sizeof(gpumap_result) as the program was compiled, so a
 * library never writes past an older program's struct (the function
 * gpumap_last_result, which programs built against 0.1 call, fills the
 * 0.1 fields).
 *
 * Link with -lgpumap (pkg-config gpumap). Handwritten; not generated.
 */
#ifndef GPUMAP_H
#define GPUMAP_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUMAP_VERSION_MAJOR 0
#define GPUMAP_VERSION_MINOR 2
#define GPUMAP_VERSION_PATCH 0

/* Status codes. The values are stable. */
typedef enum gpumap_status {
    GPUMAP_OK = 0,
    GPUMAP_ERR_ARGUMENT = 1,     /* null pointer, negative degree, bad sizes */
    GPUMAP_ERR_NEIGHBOR = 2,     /* neighbour out of range or equal to the rank */
    GPUMAP_ERR_VOLUME = 3,       /* negative, NaN or infinite volume */
    GPUMAP_ERR_COMM = 4,         /* MPI_COMM_NULL or an inter-communicator */
    GPUMAP_ERR_INCONSISTENT = 5, /* options or patterns differ across ranks */
    GPUMAP_ERR_OPTIONS = 6,      /* invalid options, or options that do not fit the allocation */
    GPUMAP_ERR_GRAPH = 7,        /* malformed graph (gpumap_map_graph) */
    GPUMAP_ERR_INFEASIBLE = 8,   /* no mapping meets the balance constraint */
    GPUMAP_ERR_NO_GPU = 9,       /* backend GPU requested and no usable GPU */
    GPUMAP_ERR_MPI = 10,         /* MPI not initialized, or an MPI call failed */
    GPUMAP_ERR_INTERNAL = 11     /* a bug inside gpumap was caught */
} gpumap_status;

typedef enum gpumap_preset {
    GPUMAP_PRESET_FAST = 0,
    GPUMAP_PRESET_DEFAULT = 1,
    GPUMAP_PRESET_STRONG = 2
} gpumap_preset;

typedef enum gpumap_backend {
    GPUMAP_BACKEND_AUTO = 0, /* the GPU when rank 0 has a usable one, else the CPU */
    GPUMAP_BACKEND_CPU = 1,
    GPUMAP_BACKEND_GPU = 2   /* fail with GPUMAP_ERR_NO_GPU when there is none */
} gpumap_backend;

typedef enum gpumap_algorithm {
    GPUMAP_ALGORITHM_AUTO = 0, /* chosen by the preset */
    GPUMAP_ALGORITHM_IM = 1,   /* integrated multilevel mapping */
    GPUMAP_ALGORITHM_HM = 2    /* hierarchical multisection */
} gpumap_algorithm;

/* How the volumes of the ranks combine (gpumap_reorder). */
typedef enum gpumap_pattern {
    /* volumes are bytes sent: edge {a,b} weighs vol(a->b) + vol(b->a) */
    GPUMAP_PATTERN_SEND = 0,
    /* volumes are bytes exchanged (halo swaps): both sides must list each
       other with the same volume, counted once; else GPUMAP_ERR_INCONSISTENT */
    GPUMAP_PATTERN_EXCHANGE = 1
} gpumap_pattern;

#define GPUMAP_OPTIONS_VERSION 1

/* The least relative drop of J for which gpumap_reorder changes the order. */
#define GPUMAP_MIN_GAIN 0.001

/* options.imbalance left at its default: 0.03 for gpumap_map_graph, 0 for
 * gpumap_reorder and gpumap_cost (one task per process; any other value
 * is GPUMAP_ERR_OPTIONS there). */
#define GPUMAP_IMBALANCE_DEFAULT (-1.0)

/* Options. Always start from gpumap_options_init(): it sets version and
 * the defaults, so programs built against this header keep working when
 * later versions add fields. All ranks must pass the same options
 * (verbosity and threads excepted); see "Agreement" above. */
typedef struct gpumap_options {
    int version;           /* GPUMAP_OPTIONS_VERSION */
    int preset;            /* gpumap_preset; default GPUMAP_PRESET_DEFAULT */
    int backend;           /* gpumap_backend; default GPUMAP_BACKEND_AUTO */
    int algorithm;         /* gpumap_algorithm; default GPUMAP_ALGORITHM_AUTO; gpumap_reorder
                              runs HM (IM cannot map one task per process: GPUMAP_ERR_OPTIONS) */
    int pattern;           /* gpumap_pattern; default GPUMAP_PATTERN_SEND */
    int verbosity;         /* 0 silent, 1 summary and times on rank 0, 2 phase times */
    int threads;           /* threads of the mapper on rank 0; 0: all cores; at most 4096
                              (fast and default map graphs below 65,536 vertices that are
                              not one-to-one on one thread) */
    int reserved_int;
    uint64_t seed;         /* random seed; same seed, same result */
    double imbalance;      /* eps of Lmax = ceil((1+eps) c(V)/k), finite, >= 0; default
                              GPUMAP_IMBALANCE_DEFAULT */
    const char *hierarchy; /* "a1:a2:...": override detection (else GPUMAP_HIERARCHY); NULL: detect */
    const char *distance;  /* "d1:d2:...": override distances (else GPUMAP_DISTANCE); NULL: 1:10:100[:1000] */
    void *reserved[4];
} gpumap_options;

/* Fills *options with the defaults (NULL: does nothing). */
void gpumap_options_init(gpumap_options *options);

/*
 * gpumap_reorder: collective over comm.
 *   degree      number of neighbours of the calling rank (>= 0)
 *   neighbors   their ranks in comm (0-based, not the rank itself)
 *   volumes     bytes sent to each (finite, >= 0); see gpumap_pattern
 *   options     NULL for the defaults
 *   newcomm     receives the reordered communicator (MPI_COMM_NULL on error)
 * Size-1 communicators and GPUMAP_DISABLE=1 return comm's order.
 * Before MPI_Init and after MPI_Finalize every entry point returns
 * GPUMAP_ERR_MPI having called only MPI_Initialized and MPI_Finalized
 * (the _f variants set *newcomm to the Fortran MPI_COMM_NULL).
 * Every process keeps the outcome of its last 8 calls: a call whose every
 * rank passes what it passed to one of them (same pattern, same options
 * and GPUMAP_ and HWLOC_ environment, same process location and rank)
 * reuses that mapping at the cost of one agreement and the new
 * communicator (gpumap_result.cached).
 */
int gpumap_reorder(MPI_Comm comm, int degree, const int neighbors[], const double volumes[],
                   const gpumap_options *options, MPI_Comm *newcomm);

/* Fortran-handle variant (what the Fortran module calls). */
int gpumap_reorder_f(MPI_Fint comm, int degree, const int neighbors[], const double volumes[],
                     const gpumap_options *options, MPI_Fint *newcomm);

/*
 * gpumap_cost: collective like gpumap_reorder; *cost receives J of the
 * current placement (task r of the pattern on the process of rank r of
 * comm), with the machine model gpumap_reorder uses. Useful to compare
 * placements made by other means.
 */
int gpumap_cost(MPI_Comm comm, int degree, const int neighbors[], const double volumes[],
                const gpumap_options *options, double *cost);
int gpumap_cost_f(MPI_Fint comm, int degree, const int neighbors[], const double volumes[],
                  const gpumap_options *options, double *cost);

/* What the last successful gpumap_reorder of the calling thread did. Every
 * field but call_seconds is the same on every rank. */
typedef struct gpumap_result {
    int reordered;       /* 1 when the order changed (changed > 0) */
    double cost_before;  /* J of the original placement (bytes x distance), also when disabled */
    double cost_after;   /* J of the new order (= cost_before when the order was kept) */
    double map_seconds;  /* time rank 0 spent building the graph and mapping */
    char machine[400];   /* the inferred machine, e.g. "2 hosts, 16 PEs, ..." */
    /* since 0.2 */
    int changed;         /* ranks whose rank differs in *newcomm */
    int disabled;        /* 1 when GPUMAP_DISABLE kept the order */
    double call_seconds; /* time this process spent in the call */
    /* after 0.2.0 */
    int cached;          /* 1 when the outcome came from the process's cache of
                            identical earlier calls: nothing was gathered or mapped */
} gpumap_result;

/* Fills the first size bytes of *result (fields beyond this library's
 * struct are zeroed; size at most 4096, else GPUMAP_ERR_ARGUMENT). Use the
 * macro gpumap_last_result. */
int gpumap_last_result_size(gpumap_result *result, size_t size);
int (gpumap_last_result)(gpumap_result *result); /* the 0.1 fields only */
#define gpumap_last_result(result) gpumap_last_result_size((result), sizeof(gpumap_result))

/*
 * gpumap_map_graph: map a graph in CSR form (METIS conventions, 0-based)
 * onto a hierarchy; not collective, needs no MPI.
 *   n, xadj[n+1], adjncy[xadj[n]]   symmetric adjacency, no self loops
 *   vwgt, adjwgt                    weights (NULL: all 1)
 *   hierarchy, distance             e.g. "4:8:6" and "1:10:100"
 *   pe[n]                           receives the PE of every vertex
 *   cost                            receives J (may be NULL)
 * Messages name vertices and neighbours 0-based, as the arrays do. Input
 * errors are GPUMAP_ERR_GRAPH (the arrays, their weights and sums),
 * GPUMAP_ERR_OPTIONS (hierarchy, distance, options), GPUMAP_ERR_ARGUMENT
 * (NULL pointers, n <= 0).
 */
int gpumap_map_graph(int32_t n, const int64_t xadj[], const int32_t adjncy[],
                     const int64_t vwgt[], const int64_t adjwgt[],
                     const char *hierarchy, const char *distance,
                     const gpumap_options *options, int32_t pe[], int64_t *cost);

/*
 * gpumap_map_dist: map a graph that is spread over the ranks of comm, in
 * ParMETIS's distributed CSR form, onto a hierarchy (the distributed
 * mapper of gpumap-mpi). Collective over comm; every rank returns the
 * same status and message, and comm is only ever split (all traffic runs
 * on the split, which is freed).
 *   vtxdist[size+1]   rank r owns the global vertices vtxdist[r] ..
 *                     vtxdist[r+1]-1; the same on every rank, vtxdist[0]
 *                     = 0, never decreasing (ranks may own no vertices)
 *   xadj[n+1]         local offsets, xadj[0] = 0, n = vtxdist[rank+1] -
 *                     vtxdist[rank] (NULL when n = 0)
 *   adjncy[xadj[n]]   global ids of the neighbours (NULL when xadj[n] = 0);
 *                     every edge listed by both ends' owners, with the
 *                     same weight; no self loops or duplicates
 *   vwgt[n], adjwgt[xadj[n]]  weights >= 0 (NULL: all 1)
 *   hierarchy, distance       e.g. "4:8:6" and "1:10:100"; at most 2^24 PEs
 *                     (every rank keeps every PE's load)
 *   options           NULL for the defaults; used: preset, seed,
 *                     imbalance (default 0.03), threads (per process;
 *                     0 means 1 here), verbosity (1: a summary on rank 0);
 *                     backend AUTO or CPU, algorithm AUTO
 *   pe[n]             receives the PE of every local vertex (NULL when n = 0)
 *   cost              receives J of the whole mapping, the same on every
 *                     rank (may be NULL)
 * The same comm size, seed, options and arrays give the same mapping.
 * Its first step is the agreement gpumap_reorder and gpumap_cost start
 * with: a rank in one of those while the others call gpumap_map_dist
 * gives GPUMAP_ERR_INCONSISTENT on every rank.
 * Statuses: GPUMAP_ERR_ARGUMENT (a NULL or unreadable array, a pe[] or
 * cost that cannot be written), GPUMAP_ERR_GRAPH (vtxdist, xadj or adjncy malformed,
 * an edge its other end's owner does not list or lists with another
 * weight, negative weights, weight sums beyond the limits of
 * gpumap_map_graph, and graphs this mapper cannot map),
 * GPUMAP_ERR_INCONSISTENT (vtxdist, hierarchy, distance, imbalance, seed
 * or preset differ between ranks), GPUMAP_ERR_OPTIONS, GPUMAP_ERR_COMM
 * (MPI_COMM_NULL on every rank; on some ranks only, the others wait in
 * MPI_Comm_split, as in any mismatched MPI call), GPUMAP_ERR_MPI,
 * GPUMAP_ERR_INFEASIBLE (pe[] and cost are still filled). Messages name
 * the rank and global vertex ids (0-based).
 *
 * From ParMETIS_V3_PartKway(vtxdist, xadj, adjncy, vwgt, adjwgt, &wgtflag,
 * &numflag, &ncon, &nparts, tpwgts, ubvec, options, &edgecut, part, &comm):
 *   idx_t of 64 bits (IDXTYPEWIDTH 64): pass the arrays as they are.
 *     32-bit idx_t: copy vtxdist, xadj, adjncy (and weights) into int64_t
 *     arrays first, and part from pe after.
 *   wgtflag           pass NULL for the weights ParMETIS would ignore
 *   numflag           0 only: for 1-based arrays subtract 1 from every
 *                     entry of vtxdist, xadj and adjncy (and add 1 to pe)
 *   ncon              1 only (one vertex weight)
 *   nparts, tpwgts    the hierarchy: hierarchy "nparts" with distance "1"
 *                     is ParMETIS's problem, J is then the edge cut;
 *                     blocks have equal target weights
 *   ubvec[0]          options.imbalance = ubvec[0] - 1 (1.05 -> 0.05)
 *   options[]         gpumap_options (options[2], the seed, -> seed)
 *   edgecut           cost (J: the edge cut under "nparts"/"1")
 *   part              pe;  comm is passed by value
 */
int gpumap_map_dist(const int64_t vtxdist[], const int64_t xadj[], const int64_t adjncy[],
                    const int64_t vwgt[], const int64_t adjwgt[],
                    const char *hierarchy, const char *distance,
                    const gpumap_options *options, int64_t pe[], int64_t *cost, MPI_Comm comm);

/* Fortran-handle variant (what the Fortran module calls). */
int gpumap_map_dist_f(const int64_t vtxdist[], const int64_t xadj[], const int64_t adjncy[],
                      const int64_t vwgt[], const int64_t adjwgt[],
                      const char *hierarchy, const char *distance,
                      const gpumap_options *options, int64_t pe[], int64_t *cost, MPI_Fint comm);

/* Short description of a status code (static storage). */
const char *gpumap_error_string(int status);

/* The detailed message of the calling thread's last failure, naming what
 * was wrong and on which rank (valid until that thread's next gpumap call). */
const char *gpumap_last_error(void);

/* The library version, "0.2.0": also the name of the shared library
 * (libgpumap.so.0.2.0, soname libgpumap.so.0) and the version pkg-config and
 * find_package(gpumap) report. */
const char *gpumap_version(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUMAP_H */
