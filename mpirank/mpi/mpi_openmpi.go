//go:build !mpich

package mpi

// #cgo pkg-config: ompi-c
import "C"

// The rank and size that OpenMPI's mpirun sets (Launched).
const (
	rankVar = "OMPI_COMM_WORLD_RANK"
	sizeVar = "OMPI_COMM_WORLD_SIZE"
)
