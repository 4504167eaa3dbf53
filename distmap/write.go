package distmap

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// WriteMapping writes the PEs of all vertices, one per line in vertex
// order, to path: rank 0 gathers them and writes the file (through
// graph.WriteFile: the old file stays until the new one is complete).
// Collective; every rank returns the same error.
func WriteMapping(g *Graph, pe []int32, path string) error {
	if err := noGraph(g); err != nil {
		return err
	}
	defer func() { abortOnPanic(g.c, recover()) }()
	var bad error
	if len(pe) != g.N() {
		bad = fmt.Errorf("rank %d: %d PEs for %d local vertices", g.rank, len(pe), g.N())
	}
	if err := agree(g.c, bad); err != nil {
		return err
	}
	if 4*g.GlobalN() > 1<<31-1 {
		return agree(g.c, errors.New("writing the mapping: more than 2^29 vertices need a gather in pieces (not yet written)"))
	}
	var all []int32
	var counts, displs []int32
	if g.rank == 0 {
		all = make([]int32, g.GlobalN())
		counts, displs = make([]int32, g.size), make([]int32, g.size)
		for r := range g.size {
			counts[r] = int32(4 * (g.VtxDist[r+1] - g.VtxDist[r]))
			displs[r] = int32(4 * g.VtxDist[r])
		}
	}
	if err := mpi.Gatherv(g.c, mpi.AsBytes(pe), mpi.AsBytes(all), counts, displs, 0); err != nil {
		return err
	}
	var err error
	if g.rank == 0 {
		err = write(path, all)
	}
	return agree(g.c, err)
}

func write(path string, pe []int32) error {
	// graph.WriteFile: the old file stays until the new one is complete,
	// and a failed write leaves nothing behind.
	return graph.WriteFile(path, func(w io.Writer) error { return graph.WriteMapping(w, pe) })
}

// WriteWhole writes the mapping pe of all vertices, the same on every
// rank (MapWhole), to path: rank 0 writes it as WriteMapping does.
// Collective; every rank returns the same error.
func WriteWhole(c mpi.Comm, pe []int32, path string) error {
	if err := unusable(c); err != nil {
		return err
	}
	defer func() { abortOnPanic(c, recover()) }()
	var err error
	if _, _, _, _, rank := mpi.Inspect(c); rank == 0 {
		err = write(path, pe)
	}
	return agree(c, err)
}
