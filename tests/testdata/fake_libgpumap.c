/*
 * fake_libgpumap.c - a libgpumap.so of another gpumap version, for the
 * loader's tests (tests/dl_test.go): it passes the MPI check (the note
 * and gpumap_mpi_abi of this MPI) and exports the recorder's finalize
 * step under the name it had before the name carried a version, with
 * other arguments: calling it is what a recorder without the version
 * check did, and it crashes.
 */
#include <mpi.h>
#include <stdlib.h>

#include "gpumap_abi.h"

__attribute__((section(".note.gpumap"), aligned(4), used))
static const gpumap_abi_note note = GPUMAP_ABI_NOTE_INIT;

const char *gpumap_mpi_abi(void) { return GPUMAP_MPI_ABI; }

int gpumap_record_write(void) { abort(); }
