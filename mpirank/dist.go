package mpirank

import (
	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/hwdetect"
)

// AgreeDistCall is the first collective of gpumap_map_dist on its private
// communicator d (from Dup's split, as Reorder's): the agreement that
// Reorder and Cost start with, carrying only the kind of call. A rank in
// gpumap_reorder or gpumap_cost while the others call gpumap_map_dist
// then fails with them, ErrInconsistent naming the rank and both calls,
// instead of waiting in a collective the others never enter (before, the
// ranks of one call returned MPI_ERR_TRUNCATE and the others hung).
func AgreeDistCall(d Comm) *Error {
	_, _, _, size, rank := inspect(d)
	_, _, _, e := agree(d, rank, size, callDist, hwdetect.Record{}, nil, nil, Options{Preset: gpumap.Default}, nil)
	return e
}
