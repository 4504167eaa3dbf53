//go:build mpich

package mpi

// #cgo pkg-config: mpich
import "C"

// The rank, size and ranks on this node that MPICH's hydra sets
// (Launched, LaunchedOnOneNode; mpiexec.mpich -np 2 env: PMI_RANK,
// PMI_SIZE=2, MPI_LOCALRANKID, MPI_LOCALNRANKS=2).
const (
	rankVar  = "PMI_RANK"
	sizeVar  = "PMI_SIZE"
	localVar = "MPI_LOCALNRANKS"
)
