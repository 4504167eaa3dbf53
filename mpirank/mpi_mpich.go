//go:build mpich

package mpirank

// #cgo pkg-config: mpich
import "C"
