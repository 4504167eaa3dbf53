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

#endif
