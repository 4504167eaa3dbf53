//go:build !mpich

package main

// #cgo pkg-config: ompi-c
import "C"
