package mpi

// #include <stdlib.h>
import "C"

import (
	"strconv"
	"strings"
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
	rank, okR := EnvInt(Getenv, rankVar)
	size, okS := EnvInt(Getenv, sizeVar)
	if !okR || !okS || rank < 0 || size < 1 || rank >= size {
		return 0, 0, false
	}
	return rank, size, true
}

// LaunchedOnOneNode reports whether the launcher says that every rank of
// the job runs on this node: the ranks it started here (localVar:
// OpenMPI's OMPI_COMM_WORLD_LOCAL_SIZE, hydra's MPI_LOCALNRANKS) are as
// many as Launched's size. A guess, as Launched's.
func LaunchedOnOneNode() bool {
	_, size, ok := Launched()
	local, okL := EnvInt(Getenv, localVar)
	return ok && okL && local == size
}

// Getenv returns the value of the environment variable name, and whether
// it is set, as C's getenv reads it at call time. Go's os.LookupEnv
// reads Go's own copy of the environment, taken when the Go runtime
// started and changed by os.Setenv alone: a setenv of C code (the MPI
// program that loaded libgpumap_mpi, after the load) is seen here, not
// there. MPI reads its parameters with getenv too.
func Getenv(name string) (string, bool) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	v := C.getenv(cs)
	if v == nil {
		return "", false
	}
	return C.GoString(v), true
}

// EnvInt is the decimal value of the environment variable name as lookup
// returns it (Getenv, or a test's), spaces around it ignored; ok is
// false where it is unset or no integer.
func EnvInt(lookup func(string) (string, bool), name string) (int, bool) {
	v, set := lookup(name)
	if !set {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil
}
