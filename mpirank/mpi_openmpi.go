//go:build !mpich

package mpirank

// #cgo pkg-config: ompi-c
import "C"
