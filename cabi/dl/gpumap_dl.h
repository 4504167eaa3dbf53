/*
 * gpumap_dl.h - how the PMPI libraries written in C (the topology
 * interposer cabi/topo, the recorder cabi/record) load libgpumap.so at
 * run time, so that the Go runtime starts only when gpumap is needed.
 * Compiled into each of them; internal, handwritten.
 */
#ifndef GPUMAP_DL_H
#define GPUMAP_DL_H

#include <stddef.h>

#include <mpi.h>

/* dlopen's libgpumap.so (RTLD_NOW | RTLD_LOCAL): GPUMAP_LIBRARY when it is
 * set; else the one the program is linked with, if any; else the library
 * next to the calling one (its directory found with dladdr, symbolic
 * links resolved): the soname GPUMAP_SONAME first, as installed runtime
 * trees have no development link, then libgpumap.so; last the soname in
 * the directories of the library search path. Each candidate file is read
 * before it is loaded, and refused unless its ELF note (gpumap_abi.h)
 * names the caller's MPI: a library built for the other MPI would pull
 * that MPI and a Go runtime into the process for good. NULL, with the
 * reason of every candidate tried ("path: reason; ...") in why[n], when
 * none loads. */
void *gpumap_dl_open(char *why, size_t n) __attribute__((visibility("hidden")));

/* The next definition of name after the calling library (the MPI
 * library's, for a wrapper of the same name), looked up once into *cache;
 * NULL when there is none. */
void *gpumap_dl_next(const char *name, void **cache) __attribute__((visibility("hidden")));

/* A private copy of comm for the library's own traffic, with
 * MPI_ERRORS_RETURN so that a failure comes back as an error code instead
 * of aborting the program. MPI_Comm_split (colour 0, the given key), not
 * MPI_Comm_dup: a dup would run the program's attribute copy callbacks on
 * comm (and abort the program when one fails). Collective over comm;
 * *out is MPI_COMM_NULL when it fails. */
int gpumap_dl_private_comm(MPI_Comm comm, int key, MPI_Comm *out) __attribute__((visibility("hidden")));

#endif
