//go:build !mpich

package mpi

// #cgo pkg-config: ompi-c
import "C"
