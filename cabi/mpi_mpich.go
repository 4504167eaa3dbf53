//go:build mpich

package main

// #cgo pkg-config: mpich
import "C"
