package main

/*
#include "gpumap.h"
*/
import "C"

import "github.com/gpumap/gpumap/mpirank"

// gpumap_topo_reorder is gpumap_reorder for libgpumap_topo.so, not part of
// gpumap.h: comm (a Fortran handle) is the interposer's private copy of
// comm_old with MPI_ERRORS_RETURN, on which gpumap runs its collectives
// directly; *newrank receives this process's rank in the new order (its
// rank in comm when the order is kept), with which the interposer splits
// comm itself. A call thus makes no communicator of its own
// (mpirank.ReorderRank). reject, when not NULL, is why this rank rejects
// the call's arguments: every rank then returns GPUMAP_ERR_ARGUMENT with
// the lowest such rank's reason, agreed in gpumap's first collective (the
// interposer needs no agreement of its own). gpumap_last_result describes
// the call.
//
//export gpumap_topo_reorder
func gpumap_topo_reorder(comm C.MPI_Fint, degree C.int, neighbors *C.int, volumes *C.double,
	copt *C.gpumap_options, reject *C.char, newrank *C.int) (status C.int) {
	defer recoverTo(&status)
	opt, pre := reorderOptions(copt)
	if pre == nil && reject != nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: C.GoString(reject)}
	}
	if pre == nil && newrank == nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: "newrank is NULL"}
	}
	nb, vol, pre := pattern(degree, neighbors, volumes, pre)
	key, res, err := mpirank.ReorderRank(mpirank.Comm(comm), nb, vol, opt, pre)
	if err != nil {
		return setError(err.Code, err.Msg)
	}
	setResult(res)
	*newrank = C.int(key)
	return C.GPUMAP_OK
}
