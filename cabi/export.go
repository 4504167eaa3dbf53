// Command cabi is built as libgpumap.so / libgpumap.a (go build
// -buildmode=c-shared / c-archive): the C ABI declared in the handwritten
// include/gpumap.h. Every exported function recovers panics and turns them
// into GPUMAP_ERR_INTERNAL; nothing Go-specific crosses into C.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include "gpumap.h"
void gpumap_set_last_error(const char *msg);
void gpumap_set_last_result(const gpumap_result *r);
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank"
	"github.com/gpumap/gpumap/topology"
)

func main() {}

// setError stores msg as this thread's last error (support.c keeps it in
// thread-local storage: an exported function runs on the caller's thread).
func setError(code mpirank.Code, msg string) C.int {
	cs := C.CString(msg)
	C.gpumap_set_last_error(cs)
	C.free(unsafe.Pointer(cs))
	return C.int(code)
}

// recoverTo turns a panic into GPUMAP_ERR_INTERNAL.
func recoverTo(status *C.int) {
	if p := recover(); p != nil {
		*status = setError(mpirank.ErrInternal, fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
	}
}

// options converts the C options (NULL: defaults). The environment
// (GPUMAP_HIERARCHY, ...) is applied by mpirank at call time; imbalance
// GPUMAP_IMBALANCE_DEFAULT is 0 for a reordering, 0.03 for a graph.
func options(o *C.gpumap_options) (opt mpirank.Options, eps float64, e *mpirank.Error) {
	opt = mpirank.Options{Preset: gpumap.Default}
	eps = C.GPUMAP_IMBALANCE_DEFAULT
	if o != nil {
		if o.version != C.GPUMAP_OPTIONS_VERSION {
			return opt, eps, &mpirank.Error{Code: mpirank.ErrOptions,
				Msg: fmt.Sprintf("options version %d is not supported (want %d): initialise them with gpumap_options_init", int(o.version), C.GPUMAP_OPTIONS_VERSION)}
		}
		opt.Preset = gpumap.Preset(o.preset)
		opt.Backend = gpumap.Backend(o.backend)
		opt.Pattern = mpirank.Pattern(o.pattern)
		opt.Verbosity = int(o.verbosity)
		opt.Threads = int(o.threads)
		opt.Seed = uint64(o.seed)
		opt.Algorithm = gpumap.Algorithm(o.algorithm)
		eps = float64(o.imbalance)
		if o.hierarchy != nil {
			opt.Hierarchy = C.GoString(o.hierarchy)
		}
		if o.distance != nil {
			opt.Distance = C.GoString(o.distance)
		}
	}
	return opt, eps, nil
}

// reorderOptions are the options of gpumap_reorder and gpumap_cost, which
// place one task per process: the default imbalance means 0, anything
// else is passed on (and rejected by mpirank unless 0).
func reorderOptions(o *C.gpumap_options) (mpirank.Options, *mpirank.Error) {
	opt, eps, e := options(o)
	if eps != C.GPUMAP_IMBALANCE_DEFAULT {
		opt.Imbalance = eps
	}
	return opt, e
}

// The exports below are wrapped by the const-correct functions of
// support.c, which are the public ABI (cgo cannot export const pointers).

// pattern checks the C arguments of a pattern and copies them.
func pattern(degree C.int, neighbors *C.int, volumes *C.double, pre *mpirank.Error) ([]int32, []float64, *mpirank.Error) {
	switch {
	case pre != nil:
	case degree < 0:
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: fmt.Sprintf("degree %d is negative", int(degree))}
	case degree > 0 && (neighbors == nil || volumes == nil):
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: fmt.Sprintf("degree %d with a NULL neighbors or volumes array", int(degree))}
	case degree > 0:
		nb := append([]int32(nil), unsafe.Slice((*int32)(unsafe.Pointer(neighbors)), int(degree))...)
		vol := append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(volumes)), int(degree))...)
		return nb, vol, nil
	}
	return nil, nil, pre
}

//export gpumap_go_reorder
func gpumap_go_reorder(comm C.MPI_Fint, degree C.int, neighbors *C.int, volumes *C.double,
	copt *C.gpumap_options, newcomm *C.MPI_Fint) (status C.int) {
	defer recoverTo(&status)
	// CommNull calls no MPI function (MPI may not be initialized).
	if newcomm != nil {
		*newcomm = C.MPI_Fint(mpirank.CommNull())
	}
	opt, pre := reorderOptions(copt)
	if pre == nil && newcomm == nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: "newcomm is NULL"}
	}
	nb, vol, pre := pattern(degree, neighbors, volumes, pre)
	nc, res, err := mpirank.Reorder(mpirank.Comm(comm), nb, vol, opt, pre)
	if err != nil {
		return setError(err.Code, err.Msg)
	}
	setResult(res)
	*newcomm = C.MPI_Fint(nc)
	return C.GPUMAP_OK
}

//export gpumap_go_cost
func gpumap_go_cost(comm C.MPI_Fint, degree C.int, neighbors *C.int, volumes *C.double,
	copt *C.gpumap_options, cost *C.double) (status C.int) {
	defer recoverTo(&status)
	opt, pre := reorderOptions(copt)
	if pre == nil && cost == nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: "cost is NULL"}
	}
	nb, vol, pre := pattern(degree, neighbors, volumes, pre)
	res, err := mpirank.Cost(mpirank.Comm(comm), nb, vol, opt, pre)
	if err != nil {
		return setError(err.Code, err.Msg)
	}
	*cost = C.double(res.JBefore)
	return C.GPUMAP_OK
}

// setResult stores what the last successful reordering on this thread did
// (support.c keeps it in thread-local storage).
func setResult(res mpirank.Result) {
	var r C.gpumap_result
	if res.Reordered {
		r.reordered = 1
	}
	r.cost_before = C.double(res.JBefore)
	r.cost_after = C.double(res.JAfter)
	r.map_seconds = C.double(res.MapSeconds)
	m := res.Machine
	if len(m) >= len(r.machine) {
		m = m[:len(r.machine)-1]
	}
	for i := 0; i < len(m); i++ {
		r.machine[i] = C.char(m[i])
	}
	r.changed = C.int(res.Changed)
	if res.Disabled {
		r.disabled = 1
	}
	r.call_seconds = C.double(res.CallSeconds)
	C.gpumap_set_last_result(&r)
}

//export gpumap_go_map_graph
func gpumap_go_map_graph(n C.int32_t, xadj *C.int64_t, adjncy *C.int32_t, vwgt *C.int64_t, adjwgt *C.int64_t,
	hierarchy *C.char, distance *C.char, copt *C.gpumap_options, pe *C.int32_t, cost *C.int64_t) (status C.int) {
	defer recoverTo(&status)
	opt, eps, oerr := options(copt)
	if oerr != nil {
		return setError(oerr.Code, oerr.Msg)
	}
	if eps == C.GPUMAP_IMBALANCE_DEFAULT {
		eps = gpumap.DefaultOptions().Eps
	}
	switch {
	case n <= 0:
		return setError(mpirank.ErrArgument, fmt.Sprintf("n = %d: the graph needs at least one vertex", int(n)))
	case xadj == nil || pe == nil:
		return setError(mpirank.ErrArgument, "xadj or pe is NULL")
	case hierarchy == nil || distance == nil:
		return setError(mpirank.ErrArgument, "hierarchy or distance is NULL")
	}
	top, err := topology.Parse(C.GoString(hierarchy), C.GoString(distance))
	if err != nil {
		return setError(mpirank.ErrOptions, err.Error())
	}
	g, err := csrGraph(int(n), xadj, adjncy, vwgt, adjwgt)
	if err == nil {
		err = graph.CheckCost(g, top.MaxDistance())
	}
	if err != nil {
		code := mpirank.ErrGraph
		if _, ok := err.(nullError); ok {
			code = mpirank.ErrArgument
		}
		return setError(code, err.Error())
	}
	mo := gpumap.DefaultOptions()
	mo.Preset, mo.Algorithm, mo.Eps, mo.Seed, mo.Threads, mo.Backend = opt.Preset, opt.Algorithm, eps, opt.Seed, opt.Threads, opt.Backend
	if opt.Verbosity >= 2 {
		mo.Progress = os.Stderr
	}
	res, err := gpumap.Map(g, top, mo)
	if err != nil {
		code := mpirank.ErrOptions
		switch {
		case gpumap.IsNoGPU(err):
			code = mpirank.ErrNoGPU
		case strings.HasPrefix(err.Error(), "internal error"):
			code = mpirank.ErrInternal
		}
		return setError(code, err.Error())
	}
	copy(unsafe.Slice((*int32)(unsafe.Pointer(pe)), int(n)), res.PE)
	if cost != nil {
		*cost = C.int64_t(res.Metrics.J)
	}
	if !res.Metrics.Feasible {
		return setError(mpirank.ErrInfeasible, fmt.Sprintf("heaviest PE %d exceeds Lmax %d", res.Metrics.MaxBlock, res.Metrics.Lmax))
	}
	return C.GPUMAP_OK
}

type nullError string

func (e nullError) Error() string { return string(e) }

// csrGraph reads the caller's CSR arrays and validates them (graph.FromCSR,
// messages 0-based). xadj[n] is checked before adjncy and adjwgt are
// looked at.
func csrGraph(n int, xadj *C.int64_t, adjncy *C.int32_t, vwgt, adjwgt *C.int64_t) (*graph.Graph, error) {
	xa := unsafe.Slice((*int64)(unsafe.Pointer(xadj)), n+1)
	m := xa[n]
	if m < 0 || m > graph.MaxCSREdges {
		// FromCSR names what is wrong with the offsets.
		return graph.FromCSR(xa, nil, nil, nil)
	}
	if m > 0 && adjncy == nil {
		return nil, nullError("adjncy is NULL")
	}
	var adj []int32
	var vw, ew []int64
	if m > 0 {
		adj = unsafe.Slice((*int32)(unsafe.Pointer(adjncy)), m)
		if adjwgt != nil {
			ew = unsafe.Slice((*int64)(unsafe.Pointer(adjwgt)), m)
		}
	}
	if vwgt != nil {
		vw = unsafe.Slice((*int64)(unsafe.Pointer(vwgt)), n)
	}
	return graph.FromCSR(xa, adj, vw, ew)
}
