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
 * *newcomm is an ordinary communicator that the caller frees.
 *
 * Link with -lgpumap (pkg-config gpumap). Handwritten; not generated.
 */
#ifndef GPUMAP_H
#define GPUMAP_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUMAP_VERSION_MAJOR 0
#define GPUMAP_VERSION_MINOR 1
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

/* Options. Always start from gpumap_options_init(): it sets version and
 * the defaults, so programs built against this header keep working when
 * later versions add fields. All ranks must pass the same options
 * (verbosity and threads excepted). */
typedef struct gpumap_options {
    int version;           /* GPUMAP_OPTIONS_VERSION */
    int preset;            /* gpumap_preset; default GPUMAP_PRESET_DEFAULT */
    int backend;           /* gpumap_backend; default GPUMAP_BACKEND_AUTO */
    int algorithm;         /* gpumap_algorithm; default GPUMAP_ALGORITHM_AUTO */
    int pattern;           /* gpumap_pattern; default GPUMAP_PATTERN_SEND */
    int verbosity;         /* 0 silent, 1 summary on rank 0, 2 phase times */
    int threads;           /* threads of the mapper on rank 0; 0: all cores */
    int reserved_int;
    uint64_t seed;         /* random seed; same seed, same result */
    double imbalance;      /* gpumap_map_graph: eps of Lmax = ceil((1+eps) c(V)/k); default 0.03 */
    const char *hierarchy; /* "a1:a2:...": override detection (else GPUMAP_HIERARCHY); NULL: detect */
    const char *distance;  /* "d1:d2:...": override distances (else GPUMAP_DISTANCE); NULL: 1:10:100[:1000] */
    void *reserved[4];
} gpumap_options;

/* Fills *options with the defaults. */
void gpumap_options_init(gpumap_options *options);

/*
 * gpumap_reorder: collective over comm.
 *   degree      number of neighbours of the calling rank (>= 0)
 *   neighbors   their ranks in comm (0-based, not the rank itself)
 *   volumes     bytes sent to each (finite, >= 0); see gpumap_pattern
 *   options     NULL for the defaults
 *   newcomm     receives the reordered communicator (MPI_COMM_NULL on error)
 * Size-1 communicators and GPUMAP_DISABLE=1 return a duplicate of comm.
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

/* What the last successful gpumap_reorder on this process did. */
typedef struct gpumap_result {
    int reordered;       /* 0 when disabled or for one process */
    double cost_before;  /* J of the original placement (bytes x distance) */
    double cost_after;   /* J after reordering */
    double map_seconds;  /* time rank 0 spent building the graph and mapping */
    char machine[400];   /* the inferred machine, e.g. "2 hosts, 16 PEs, ..." */
} gpumap_result;

int gpumap_last_result(gpumap_result *result);

/*
 * gpumap_map_graph: map a graph in CSR form (METIS conventions, 0-based)
 * onto a hierarchy; not collective, needs no MPI.
 *   n, xadj[n+1], adjncy[xadj[n]]   symmetric adjacency, no self loops
 *   vwgt, adjwgt                    weights (NULL: all 1)
 *   hierarchy, distance             e.g. "4:8:6" and "1:10:100"
 *   pe[n]                           receives the PE of every vertex
 *   cost                            receives J (may be NULL)
 */
int gpumap_map_graph(int32_t n, const int64_t xadj[], const int32_t adjncy[],
                     const int64_t vwgt[], const int64_t adjwgt[],
                     const char *hierarchy, const char *distance,
                     const gpumap_options *options, int32_t pe[], int64_t *cost);

/* Short description of a status code (static storage). */
const char *gpumap_error_string(int status);

/* The detailed message of the last failure on this process, naming what
 * was wrong and on which rank (valid until the next gpumap call). */
const char *gpumap_last_error(void);

/* The library version, "0.2.0": also the name of the shared library
 * (libgpumap.so.0.2.0, soname libgpumap.so.0) and the version pkg-config and
 * find_package(gpumap) report. */
const char *gpumap_version(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUMAP_H */
