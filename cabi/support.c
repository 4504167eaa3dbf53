// C side of the ABI: static strings, the last error and result of every
// thread, and the const-correct public entry points.
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "gpumap.h"
#include "safe.h"
#include "dl/gpumap_abi.h"
#include "_cgo_export.h"

static const char *messages[] = {
    "success",
    "invalid argument",
    "invalid neighbour rank",
    "invalid communication volume",
    "invalid communicator",
    "arguments differ across ranks",
    "invalid options",
    "invalid graph",
    "no feasible mapping",
    "no usable GPU",
    "MPI error",
    "internal error",
};

const char *gpumap_error_string(int status) {
    if (status < 0 || status >= (int)(sizeof messages / sizeof messages[0]))
        return "unknown gpumap status";
    return messages[status];
}

// Per thread: an exported Go function runs on the thread that called it,
// so the C calls it makes store into the caller's own copy.
static __thread char last_error[1024];
static __thread gpumap_result last_result;

const char *gpumap_last_error(void) { return last_error; }

void gpumap_set_last_error(const char *msg) {
    strncpy(last_error, msg, sizeof last_error - 1);
    last_error[sizeof last_error - 1] = 0;
}

const char *gpumap_version(void) { return "0.2.0"; }

// The MPI this library was built for, as its ELF note says it (abinote.c).
// Not in gpumap.h: the C libraries that load libgpumap.so at run time
// (cabi/dl) read the note before loading a file, and call this on a
// libgpumap.so the program itself had already loaded.
const char *gpumap_mpi_abi(void) { return GPUMAP_MPI_ABI; }

void gpumap_options_init(gpumap_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->version = GPUMAP_OPTIONS_VERSION;
    o->preset = GPUMAP_PRESET_DEFAULT;
    o->backend = GPUMAP_BACKEND_AUTO;
    o->algorithm = GPUMAP_ALGORITHM_AUTO;
    o->pattern = GPUMAP_PATTERN_SEND;
    o->imbalance = GPUMAP_IMBALANCE_DEFAULT;
}

// The public, const-correct entry points over the Go exports.

int gpumap_reorder_f(MPI_Fint comm, int degree, const int neighbors[], const double volumes[],
                     const gpumap_options *options, MPI_Fint *newcomm) {
    return gpumap_go_reorder(comm, degree, (int *)neighbors, (double *)volumes,
                             (gpumap_options *)options, newcomm);
}

int gpumap_reorder(MPI_Comm comm, int degree, const int neighbors[], const double volumes[],
                   const gpumap_options *options, MPI_Comm *newcomm) {
    MPI_Fint nf;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    MPI_Comm null = MPI_COMM_NULL;
    // A newcomm that cannot be written (probed with MPI_COMM_NULL) reaches
    // the Go side as a read-only handle, which every rank then refuses:
    // written directly after the mapping, it faulted on its rank alone.
    static const MPI_Fint read_only;
    int writable = !newcomm || gpumap_write(newcomm, &null, sizeof null) == 0;
    if (!initialized || finalized) {
        // MPI_Comm_c2f is not defined before MPI_Init.
        gpumap_set_last_error("MPI is not initialized (call MPI_Init first) or already finalized");
        return GPUMAP_ERR_MPI;
    }
    int rc = gpumap_reorder_f(MPI_Comm_c2f(comm), degree, neighbors, volumes, options,
                              !newcomm ? NULL : writable ? &nf : (MPI_Fint *)&read_only);
    if (newcomm && writable) *newcomm = MPI_Comm_f2c(nf);
    return rc;
}

void gpumap_set_last_result(const gpumap_result *r) { last_result = *r; }

// The struct only grows at its end and will never reach this: a larger
// size is a wrong argument, not a newer header.
enum { RESULT_SIZE_MAX = 4096 };

int gpumap_last_result_size(gpumap_result *result, size_t size) {
    if (!result) {
        gpumap_set_last_error("result is NULL");
        return GPUMAP_ERR_ARGUMENT;
    }
    if (size > RESULT_SIZE_MAX) {
        char msg[160];
        snprintf(msg, sizeof msg, "size %zu is not the size of a gpumap_result (%zu in this library; at most %d)",
                 size, sizeof last_result, RESULT_SIZE_MAX);
        gpumap_set_last_error(msg);
        return GPUMAP_ERR_ARGUMENT;
    }
    char buf[RESULT_SIZE_MAX];
    memset(buf, 0, sizeof buf); // a newer header: fields this library does not know are 0
    memcpy(buf, &last_result, sizeof last_result < size ? sizeof last_result : size);
    if (gpumap_write(result, buf, size) != 0) {
        gpumap_set_last_error("result points to memory that cannot be written");
        return GPUMAP_ERR_ARGUMENT;
    }
    return GPUMAP_OK;
}

// The symbol programs built against the 0.1 header call: it fills the
// fields that header declared.
int (gpumap_last_result)(gpumap_result *result) {
    return gpumap_last_result_size(result, offsetof(gpumap_result, changed));
}

int gpumap_cost_f(MPI_Fint comm, int degree, const int neighbors[], const double volumes[],
                  const gpumap_options *options, double *cost) {
    return gpumap_go_cost(comm, degree, (int *)neighbors, (double *)volumes,
                          (gpumap_options *)options, cost);
}

int gpumap_cost(MPI_Comm comm, int degree, const int neighbors[], const double volumes[],
                const gpumap_options *options, double *cost) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        gpumap_set_last_error("MPI is not initialized (call MPI_Init first) or already finalized");
        return GPUMAP_ERR_MPI;
    }
    return gpumap_go_cost(MPI_Comm_c2f(comm), degree, (int *)neighbors, (double *)volumes,
                          (gpumap_options *)options, cost);
}

int gpumap_map_graph(int32_t n, const int64_t xadj[], const int32_t adjncy[],
                     const int64_t vwgt[], const int64_t adjwgt[],
                     const char *hierarchy, const char *distance,
                     const gpumap_options *options, int32_t pe[], int64_t *cost) {
    return gpumap_go_map_graph(n, (int64_t *)xadj, (int32_t *)adjncy, (int64_t *)vwgt,
                               (int64_t *)adjwgt, (char *)hierarchy, (char *)distance,
                               (gpumap_options *)options, pe, cost);
}

int gpumap_map_dist_f(const int64_t vtxdist[], const int64_t xadj[], const int64_t adjncy[],
                      const int64_t vwgt[], const int64_t adjwgt[],
                      const char *hierarchy, const char *distance,
                      const gpumap_options *options, int64_t pe[], int64_t *cost, MPI_Fint comm) {
    return gpumap_go_map_dist((int64_t *)vtxdist, (int64_t *)xadj, (int64_t *)adjncy, (int64_t *)vwgt,
                              (int64_t *)adjwgt, (char *)hierarchy, (char *)distance,
                              (gpumap_options *)options, pe, cost, comm);
}

int gpumap_map_dist(const int64_t vtxdist[], const int64_t xadj[], const int64_t adjncy[],
                    const int64_t vwgt[], const int64_t adjwgt[],
                    const char *hierarchy, const char *distance,
                    const gpumap_options *options, int64_t pe[], int64_t *cost, MPI_Comm comm) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        // MPI_Comm_c2f is not defined before MPI_Init.
        gpumap_set_last_error("MPI is not initialized (call MPI_Init first) or already finalized");
        return GPUMAP_ERR_MPI;
    }
    return gpumap_map_dist_f(vtxdist, xadj, adjncy, vwgt, adjwgt, hierarchy, distance, options, pe, cost,
                             MPI_Comm_c2f(comm));
}
