// The ELF note that names the MPI this libgpumap.so was built for
// (cabi/dl/gpumap_abi.h), read by the C libraries that load it at run
// time before they load it. "used": nothing refers to it.
#include <mpi.h>
#include "dl/gpumap_abi.h"

__attribute__((section(".note.gpumap"), aligned(4), used))
static const gpumap_abi_note gpumap_abi = GPUMAP_ABI_NOTE_INIT;
