/*
 * gpumap_dl.h - how the PMPI libraries written in C (the topology
 * interposer cabi/topo, the recorder cabi/record) load libgpumap.so at
 * run time, so that the Go runtime starts only when gpumap is needed.
 * Compiled into each of them; internal, handwritten.
 */
#ifndef GPUMAP_DL_H
#define GPUMAP_DL_H

#include <stddef.h>

/* dlopen's libgpumap.so (RTLD_NOW | RTLD_LOCAL): GPUMAP_LIBRARY when it is
 * set, else the library next to the calling one (its directory found with
 * dladdr, symbolic links resolved): the soname GPUMAP_SONAME first, as
 * installed runtime trees have no development link, then libgpumap.so;
 * last the soname on the library search path. A library built for another
 * MPI than the caller (gpumap_mpi_abi differs) is refused. NULL, with the
 * reason in why[n], when none loads. */
void *gpumap_dl_open(char *why, size_t n) __attribute__((visibility("hidden")));

#endif
