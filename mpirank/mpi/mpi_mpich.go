//go:build mpich

package mpi

// #cgo pkg-config: mpich
import "C"

// The rank and size that MPICH's hydra sets (Launched).
const (
	rankVar = "PMI_RANK"
	sizeVar = "PMI_SIZE"
)
