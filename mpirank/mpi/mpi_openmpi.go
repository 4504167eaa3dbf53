//go:build !mpich

package mpi

// #cgo pkg-config: ompi-c
import "C"

// The rank, size and ranks on this node that OpenMPI's mpirun sets
// (Launched, LaunchedOnOneNode).
const (
	rankVar  = "OMPI_COMM_WORLD_RANK"
	sizeVar  = "OMPI_COMM_WORLD_SIZE"
	localVar = "OMPI_COMM_WORLD_LOCAL_SIZE"
)
