package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "gpumap.h"
#include "safe.h"
*/
import "C"

import (
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/gpumap/gpumap/distmap"
	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// gpumap_map_dist: the distributed mapper (package distmap) behind a
// ParMETIS_V3_PartKway-shaped call. Every step that can fail on one rank
// only (a NULL or unreadable array, bad options) is agreed on before the
// next collective, so every rank returns the same status and message and
// none is left waiting. All traffic runs on a quiet split of comm.

//export gpumap_go_map_dist
func gpumap_go_map_dist(vtxdist, xadj, adjncy, vwgt, adjwgt *C.int64_t, hierarchy, distance *C.char,
	copt *C.gpumap_options, pe, cost *C.int64_t, comm C.MPI_Fint) (status C.int) {
	defer recoverTo(&status)
	t0 := time.Now()
	if !mpi.Ready() {
		return setError(mpirank.ErrMPI, "MPI is not initialized (call MPI_Init first) or already finalized")
	}
	null, invalid, inter, size, rank := mpi.Inspect(mpi.Comm(comm))
	switch {
	case null:
		return setError(mpirank.ErrComm, "the communicator is MPI_COMM_NULL")
	case invalid:
		return setError(mpirank.ErrComm, fmt.Sprintf("handle %d is not a communicator", int32(comm)))
	case inter:
		return setError(mpirank.ErrComm, "inter-communicators are not supported")
	}
	d, err := mpi.Copy(mpi.Comm(comm), true)
	if err != nil {
		return setError(mpirank.ErrMPI, err.Error())
	}
	defer mpi.Free(d)
	// 0. The step every collective gpumap call starts with: ranks in
	// different calls fail together.
	if e := mpirank.AgreeDistCall(d); e != nil {
		return setError(e.Code, e.Msg)
	}
	fail := func(err error) C.int { return setError(distCode(err), err.Error()) }

	// 1. Options, machine and vtxdist's pointer; then vtxdist itself.
	top, opt, verbosity, vd, pre := distOptions(hierarchy, distance, copt, vtxdist, size)
	if pre != nil {
		pre.Msg = fmt.Sprintf("rank %d: %s", rank, pre.Msg)
	}
	if err := distmap.Agree(d, errOrNil(pre)); err != nil {
		return fail(err)
	}
	if err := distmap.CheckVtxdist(d, vd); err != nil {
		return fail(err)
	}
	// 2. The local arrays, now that their lengths are known.
	n := vd[rank+1] - vd[rank]
	in, pre := distArrays(n, xadj, adjncy, vwgt, adjwgt, pe, cost)
	if pre != nil {
		pre.Msg = fmt.Sprintf("rank %d: %s", rank, pre.Msg)
	}
	if err := distmap.Agree(d, errOrNil(pre)); err != nil {
		return fail(err)
	}
	// 3. Build (New checks symmetry and weights) and map.
	g, err := distmap.New(d, vd, in.xadj, in.adjncy, in.vwgt, in.adjwgt)
	if err != nil {
		return fail(err)
	}
	res, err := distmap.Map(g, top, opt)
	if err != nil {
		return fail(err)
	}
	// 4. The output, whose write was checked in step 2 but is agreed on
	// again: a rank that cannot write must not return alone.
	var bad *distmap.Error
	if n > 0 {
		out := make([]int64, n)
		for v, p := range res.PE {
			out[v] = int64(p)
		}
		if C.gpumap_write(unsafe.Pointer(pe), unsafe.Pointer(&out[0]), C.size_t(8*n)) != 0 {
			bad = &distmap.Error{Kind: distmap.KindArgument, Msg: fmt.Sprintf("rank %d: pe (%d local vertices) cannot be written at %p", rank, n, pe)}
		}
	}
	if j := C.int64_t(res.Metrics.J); bad == nil && cost != nil && C.gpumap_write(unsafe.Pointer(cost), unsafe.Pointer(&j), 8) != 0 {
		bad = &distmap.Error{Kind: distmap.KindArgument, Msg: fmt.Sprintf("rank %d: cost cannot be written at %p", rank, cost)}
	}
	if err := distmap.Agree(d, errOrNil(bad)); err != nil {
		return fail(err)
	}
	m := res.Metrics
	if verbosity >= 1 && rank == 0 {
		fmt.Fprintf(os.Stderr, "gpumap: gpumap_map_dist of %d vertices on %d ranks onto %s: J=%d max PE %d (Lmax %d), %d levels, coarsest n=%d; %.3f s\n",
			g.GlobalN(), size, top, m.J, m.MaxBlock, m.Lmax, res.Levels, res.CoarseN, time.Since(t0).Seconds())
	}
	if !m.Feasible {
		return setError(mpirank.ErrInfeasible, fmt.Sprintf("heaviest PE %d exceeds Lmax %d", m.MaxBlock, m.Lmax))
	}
	return C.GPUMAP_OK
}

// errOrNil keeps a nil *distmap.Error from becoming a non-nil error.
func errOrNil(e *distmap.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// distCode is the status of an error of package distmap: its kind. What
// distmap does not classify is a graph that this mapper cannot map (one
// that does not coarsen below the gather's limit, say).
func distCode(err error) mpirank.Code {
	switch distmap.KindOf(err) {
	case distmap.KindArgument:
		return mpirank.ErrArgument
	case distmap.KindComm:
		return mpirank.ErrComm
	case distmap.KindInconsistent:
		return mpirank.ErrInconsistent
	case distmap.KindOptions:
		return mpirank.ErrOptions
	case distmap.KindMPI:
		return mpirank.ErrMPI
	case distmap.KindInternal:
		return mpirank.ErrInternal
	}
	return mpirank.ErrGraph
}

// distOptions reads this rank's options, machine and vtxdist (size+1
// entries) from the caller's memory. The error is this rank's, to be
// agreed on.
func distOptions(hierarchy, distance *C.char, copt *C.gpumap_options, vtxdist *C.int64_t, size int) (
	*topology.Topology, distmap.Options, int, []int64, *distmap.Error) {
	argErr := func(k distmap.Kind, format string, a ...any) *distmap.Error {
		return &distmap.Error{Kind: k, Msg: fmt.Sprintf(format, a...)}
	}
	var opt distmap.Options
	o, eps, oerr := options(copt, false)
	if oerr != nil {
		k := distmap.KindOptions
		if oerr.Code == mpirank.ErrArgument {
			k = distmap.KindArgument
		}
		return nil, opt, 0, nil, &distmap.Error{Kind: k, Msg: oerr.Msg}
	}
	if eps == C.GPUMAP_IMBALANCE_DEFAULT {
		eps = gpumap.DefaultOptions().Eps
	}
	switch {
	case o.Preset < gpumap.Fast || o.Preset > gpumap.Strong:
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "unknown preset %d", int(o.Preset))
	case o.Backend != gpumap.AutoBackend && o.Backend != gpumap.CPU:
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "backend %d: gpumap_map_dist maps on the CPU (use GPUMAP_BACKEND_AUTO or _CPU)", int(o.Backend))
	case o.Algorithm != gpumap.AutoAlgorithm:
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "algorithm %d: gpumap_map_dist runs its own multilevel scheme (use GPUMAP_ALGORITHM_AUTO)", int(o.Algorithm))
	case o.Pattern != mpirank.PatternSend && o.Pattern != mpirank.PatternExchange:
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "unknown pattern kind %d", int(o.Pattern))
	case o.Threads < 0 || o.Threads > gpumap.MaxThreads:
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "thread count %d must be in [0, %d]", o.Threads, gpumap.MaxThreads)
	case !gpumap.ValidEps(eps):
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "imbalance %v must be a finite number in [0, %g]", eps, gpumap.MaxEps)
	case hierarchy == nil || distance == nil:
		return nil, opt, 0, nil, argErr(distmap.KindArgument, "hierarchy or distance is NULL")
	case vtxdist == nil:
		return nil, opt, 0, nil, argErr(distmap.KindArgument, "vtxdist is NULL")
	}
	// One rank per core is MPI's usual layout: 0 threads means 1 here.
	opt = distmap.Options{Eps: eps, Seed: o.Seed, Preset: o.Preset, Threads: max(o.Threads, 1)}
	h, err := callerString(hierarchy, "hierarchy")
	var ds string
	if err == nil {
		ds, err = callerString(distance, "distance")
	}
	if err != nil {
		return nil, opt, 0, nil, argErr(distmap.KindArgument, "%v", err)
	}
	top, err := topology.Parse(h, ds)
	if err != nil {
		return nil, opt, 0, nil, argErr(distmap.KindOptions, "%v", err)
	}
	vd, err := callerSlice[int64](unsafe.Pointer(vtxdist), size+1, fmt.Sprintf("vtxdist (%d ranks)", size))
	if err != nil {
		return nil, opt, 0, nil, argErr(distmap.KindArgument, "%v", err)
	}
	return top, opt, o.Verbosity, vd, nil
}

// distInput is one rank's part of the graph, in the caller's memory.
type distInput struct{ xadj, adjncy, vwgt, adjwgt []int64 }

// distArrays reads this rank's arrays for n local vertices (vtxdist is
// valid): each is checked to be readable for its length, and pe to be
// writable, before anything is read; xadj may be NULL when n is 0, and
// adjncy and adjwgt when xadj[n] is 0.
func distArrays(n int64, xadj, adjncy, vwgt, adjwgt, pe, cost *C.int64_t) (distInput, *distmap.Error) {
	argErr := func(k distmap.Kind, format string, a ...any) (distInput, *distmap.Error) {
		return distInput{}, &distmap.Error{Kind: k, Msg: fmt.Sprintf(format, a...)}
	}
	var in distInput
	if n > graph.MaxVertices {
		return argErr(distmap.KindGraph, "%d local vertices: at most %d per rank", n, graph.MaxVertices)
	}
	if n > 0 && (xadj == nil || pe == nil) {
		return argErr(distmap.KindArgument, "xadj or pe is NULL with %d local vertices", n)
	}
	in.xadj = []int64{0}
	if xadj != nil {
		xa, err := callerSlice[int64](unsafe.Pointer(xadj), int(n)+1, fmt.Sprintf("xadj (%d local vertices)", n))
		if err != nil {
			return argErr(distmap.KindArgument, "%v", err)
		}
		in.xadj = xa
	}
	m := in.xadj[n]
	switch {
	case in.xadj[0] != 0:
		return argErr(distmap.KindGraph, "xadj[0] is %d, not 0 (xadj holds local offsets)", in.xadj[0])
	case m < 0 || m > graph.MaxCSREdges:
		return argErr(distmap.KindGraph, "xadj[%d] = %d: the number of local edge entries must be in [0, %d]", n, m, int64(graph.MaxCSREdges))
	case m > 0 && adjncy == nil:
		return argErr(distmap.KindArgument, "adjncy is NULL with xadj[%d] = %d", n, m)
	}
	size := uint64(8*(n+1)+8*n) + 12*uint64(m)
	if err := fitsMemory(size, fmt.Sprintf("%d local vertices, xadj[%d] = %d", n, n, m)); err != nil {
		return argErr(distmap.KindArgument, "%v", err)
	}
	var err error
	if m > 0 {
		if in.adjncy, err = callerSlice[int64](unsafe.Pointer(adjncy), int(m), fmt.Sprintf("adjncy (xadj[%d] = %d)", n, m)); err != nil {
			return argErr(distmap.KindArgument, "%v", err)
		}
		if adjwgt != nil {
			if in.adjwgt, err = callerSlice[int64](unsafe.Pointer(adjwgt), int(m), fmt.Sprintf("adjwgt (xadj[%d] = %d)", n, m)); err != nil {
				return argErr(distmap.KindArgument, "%v", err)
			}
		}
	}
	if vwgt != nil && n > 0 {
		if in.vwgt, err = callerSlice[int64](unsafe.Pointer(vwgt), int(n), fmt.Sprintf("vwgt (%d local vertices)", n)); err != nil {
			return argErr(distmap.KindArgument, "%v", err)
		}
	}
	if n > 0 {
		if err := writableBack(pe, n, fmt.Sprintf("pe (%d local vertices)", n)); err != nil {
			return argErr(distmap.KindArgument, "%v", err)
		}
	}
	// cost too: written directly, a read-only cost faulted (the job
	// died) and a small garbage one gave its rank alone status 11.
	if cost != nil {
		if err := writableBack(cost, 1, "cost"); err != nil {
			return argErr(distmap.KindArgument, "%v", err)
		}
	}
	return in, nil
}

// writableBack reads the n entries at p and writes them back unchanged:
// a read-only or short output array fails before any mapping, rather
// than after it on one rank.
func writableBack(p *C.int64_t, n int64, what string) error {
	cur, err := callerSlice[int64](unsafe.Pointer(p), int(n), what)
	if err == nil && C.gpumap_write(unsafe.Pointer(p), unsafe.Pointer(&cur[0]), C.size_t(8*n)) != 0 {
		err = fmt.Errorf("%s: %d entries cannot be written at %p", what, n, p)
	}
	return err
}
