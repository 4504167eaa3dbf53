/*
 * gpumap_abi.h - how a libgpumap.so says which MPI it was built for
 * before it is loaded: an ELF note (owner "gpumap", type GPUMAP_NOTE_MPI)
 * holding the MPI's name. libgpumap.so carries it (cabi/abinote.c); the C
 * libraries that load libgpumap.so at run time (gpumap_dl.c) read it from
 * the file first, because loading one built for the other MPI pulls that
 * MPI into the process and starts gpumap's Go runtime, and neither can be
 * unloaded again. A note rather than a symbol: it sits in a program
 * header (PT_NOTE) near the start of the file, found without the section
 * or symbol tables. Internal, handwritten; include after mpi.h.
 */
#ifndef GPUMAP_ABI_H
#define GPUMAP_ABI_H

#include <stdint.h>

/* The MPI of this compilation, as mpi.h says. */
#if defined(OPEN_MPI)
#define GPUMAP_MPI_ABI "Open MPI"
#elif defined(MPICH)
#define GPUMAP_MPI_ABI "MPICH"
#else
#define GPUMAP_MPI_ABI "unknown MPI"
#endif

#define GPUMAP_NOTE_OWNER "gpumap"
#define GPUMAP_NOTE_MPI 1

/* One ELF note: the header, the owner padded to 4 bytes, the name of the
 * MPI NUL-padded (fixed length: one layout for every MPI). */
typedef struct gpumap_abi_note {
    uint32_t namesz, descsz, type;
    char owner[8];
    char mpi[24];
} gpumap_abi_note;

#define GPUMAP_ABI_NOTE_INIT \
    {sizeof GPUMAP_NOTE_OWNER, sizeof(((gpumap_abi_note *)0)->mpi), GPUMAP_NOTE_MPI, GPUMAP_NOTE_OWNER, GPUMAP_MPI_ABI}

#endif
