/*
 * libgpumap_record.so: a PMPI recorder of who sends how much to whom.
 *
 * Preloaded (LD_PRELOAD) into an unmodified MPI program, it wraps the
 * sending calls (wrap_c.c; wrap_fortran.c for OpenMPI's Fortran bindings,
 * which call PMPI_ directly), adds up bytes and messages per destination
 * in MPI_COMM_WORLD ranks (record.c), and at MPI_Finalize hands the table
 * to libgpumap.so, loaded from the recorder's own directory, which gathers
 * every rank's table on rank 0 and writes the METIS graph (GPUMAP_RECORD,
 * default gpumap-pattern.graph).
 *
 * Counting never changes what the program does: every wrapper calls the
 * PMPI function with the caller's arguments and returns its result; it
 * counts only calls that succeeded. Internal MPI calls go to PMPI_
 * functions (the communicator lookups) or to a duplicate of
 * MPI_COMM_WORLD with MPI_ERRORS_RETURN (the gather at finalize).
 */
#ifndef GPUMAP_RECORD_H
#define GPUMAP_RECORD_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* The recorder's own functions stay inside it: a program with a function
 * of the same name must neither call them nor be called instead. */
#pragma GCC visibility push(hidden)

/* One point-to-point message of count elements of type to dest of comm. */
void rec_p2p(MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type);

/* Neighbourhood collectives: what each out-neighbour of comm's topology
 * gets. counts/types are per neighbour (NULL: count/type for everyone);
 * wide says the counts are MPI_Count (MPI 4 large-count calls), not int;
 * ftypes are Fortran handles (OpenMPI's Fortran alltoallw). A non-NULL
 * req registers a persistent collective instead of counting. */
void rec_neighbors(MPI_Comm comm, MPI_Count count, MPI_Datatype type, const void *counts, int wide,
                   const MPI_Datatype *types, const MPI_Fint *ftypes, const MPI_Request *req);

/* Persistent sends: registered at *_init, counted at every start, forgotten
 * at MPI_Request_free. */
void rec_persist_p2p(MPI_Request req, MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type);
void rec_start(MPI_Request req);
void rec_request_free(MPI_Request req);

/* At MPI_Finalize, before PMPI_Finalize: gather and write (collective). */
void rec_finalize(void);

/* rec_table merges the counts of every thread: the n peers it returns
 * with their bytes and messages (malloc'd arrays, NULL when n is 0), and
 * in *lost the messages not recorded, those no memory could hold
 * included. Call it when no other thread counts (at finalize). */
int rec_table(int **peers, uint64_t **bytes, uint64_t **msgs, uint64_t *lost);

/* The next definition of a symbol (the MPI library's), looked up once into
 * *cache, for the Fortran wrappers; aborts with a message when there is
 * none. */
void *rec_next(const char *name, void **cache);

/* The export of libgpumap.so (cabi/record_export.go) that gathers the
 * tables on rank 0 of comm and writes the pattern. Collective; returns 0
 * or writes a message to err. Not public, so not kept stable: the number
 * in its name is the version of this interface, changed with any change
 * of its arguments or meaning, so that a libgpumap.so of another gpumap
 * version has no such symbol and is refused, not called with arguments it
 * reads differently. */
typedef int (*rec_write_fn)(int comm, int n, int *peers, uint64_t *bytes, uint64_t *msgs, uint64_t lost,
                            char *program, char *path, char *msgpath, char *err, int errlen);
#define REC_WRITE_SYMBOL "gpumap_record_write_v2"

#pragma GCC visibility pop

#endif
