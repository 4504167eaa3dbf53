package mpi

// #include <stdlib.h>
import "C"

import (
	"strconv"
	"unsafe"
)

// Launched returns the rank and size in MPI_COMM_WORLD that the launcher
// gave this process in its environment, readable before MPI_Init: mpirun
// of OpenMPI sets OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE, MPICH's
// hydra PMI_RANK and PMI_SIZE (rankVar, sizeVar). ok is false where they
// are absent or no valid pair (0 <= rank < size). A caller may only
// guess with them: another launcher, or a user, may set them to
// anything, so whatever it starts on them it checks against MPI's
// answer once MPI is up (gpumap-mpi starts its share of a small graph's
// mapping while MPI_Init runs: distmap.StartWhole).
func Launched() (rank, size int, ok bool) {
	rank, okR := envInt(rankVar)
	size, okS := envInt(sizeVar)
	if !okR || !okS || rank < 0 || size < 1 || rank >= size {
		return 0, 0, false
	}
	return rank, size, true
}

// envInt is the decimal value of the environment variable name, read
// with C's getenv at call time (Go's os.Getenv sees the environment as
// it was when the program started).
func envInt(name string) (int, bool) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	v := C.getenv(cs)
	if v == nil {
		return 0, false
	}
	n, err := strconv.Atoi(C.GoString(v))
	return n, err == nil
}
