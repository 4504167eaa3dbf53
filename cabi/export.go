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
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank"
	"github.com/gpumap/gpumap/topology"
)

func main() {}

var lastResult mpirank.Result

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

// options converts the C options (NULL: defaults) and applies the
// GPUMAP_HIERARCHY / GPUMAP_DISTANCE environment where fields are unset.
func options(o *C.gpumap_options) (mpirank.Options, gpumap.Algorithm, float64, *mpirank.Error) {
	opt := mpirank.Options{Preset: gpumap.Default}
	alg := gpumap.AutoAlgorithm
	eps := 0.03
	if o != nil {
		if o.version != C.GPUMAP_OPTIONS_VERSION {
			return opt, alg, eps, &mpirank.Error{Code: mpirank.ErrOptions,
				Msg: fmt.Sprintf("options version %d is not supported (want %d): initialise them with gpumap_options_init", int(o.version), C.GPUMAP_OPTIONS_VERSION)}
		}
		opt.Preset = gpumap.Preset(o.preset)
		opt.Backend = gpumap.Backend(o.backend)
		opt.Pattern = mpirank.Pattern(o.pattern)
		opt.Verbosity = int(o.verbosity)
		opt.Threads = int(o.threads)
		opt.Seed = uint64(o.seed)
		alg = gpumap.Algorithm(o.algorithm)
		eps = float64(o.imbalance)
		if o.hierarchy != nil {
			opt.Hierarchy = C.GoString(o.hierarchy)
		}
		if o.distance != nil {
			opt.Distance = C.GoString(o.distance)
		}
	}
	if opt.Hierarchy == "" {
		opt.Hierarchy = os.Getenv("GPUMAP_HIERARCHY")
	}
	if opt.Distance == "" {
		opt.Distance = os.Getenv("GPUMAP_DISTANCE")
	}
	if alg < gpumap.AutoAlgorithm || alg > gpumap.Multisection {
		return opt, alg, eps, &mpirank.Error{Code: mpirank.ErrOptions, Msg: fmt.Sprintf("unknown algorithm %d", int(alg))}
	}
	return opt, alg, eps, nil
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
	if newcomm != nil {
		*newcomm = C.MPI_Fint(mpirank.CommNull())
	}
	opt, _, _, pre := options(copt)
	if pre == nil && newcomm == nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: "newcomm is NULL"}
	}
	nb, vol, pre := pattern(degree, neighbors, volumes, pre)
	nc, res, err := mpirank.Reorder(mpirank.Comm(comm), nb, vol, opt, pre)
	if err != nil {
		return setError(err.Code, err.Msg)
	}
	lastResult = res
	*newcomm = C.MPI_Fint(nc)
	return C.GPUMAP_OK
}

//export gpumap_go_cost
func gpumap_go_cost(comm C.MPI_Fint, degree C.int, neighbors *C.int, volumes *C.double,
	copt *C.gpumap_options, cost *C.double) (status C.int) {
	defer recoverTo(&status)
	opt, _, _, pre := options(copt)
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

//export gpumap_go_last_result
func gpumap_go_last_result(r *C.gpumap_result) (status C.int) {
	defer recoverTo(&status)
	if r == nil {
		return setError(mpirank.ErrArgument, "result is NULL")
	}
	r.reordered = 0
	if lastResult.Reordered {
		r.reordered = 1
	}
	r.cost_before = C.double(lastResult.JBefore)
	r.cost_after = C.double(lastResult.JAfter)
	r.map_seconds = C.double(lastResult.MapSeconds)
	m := lastResult.Machine
	if len(m) >= len(r.machine) {
		m = m[:len(r.machine)-1]
	}
	for i := range r.machine {
		r.machine[i] = 0
	}
	for i := 0; i < len(m); i++ {
		r.machine[i] = C.char(m[i])
	}
	return C.GPUMAP_OK
}

//export gpumap_go_map_graph
func gpumap_go_map_graph(n C.int32_t, xadj *C.int64_t, adjncy *C.int32_t, vwgt *C.int64_t, adjwgt *C.int64_t,
	hierarchy *C.char, distance *C.char, copt *C.gpumap_options, pe *C.int32_t, cost *C.int64_t) (status C.int) {
	defer recoverTo(&status)
	opt, alg, eps, oerr := options(copt)
	if oerr != nil {
		return setError(oerr.Code, oerr.Msg)
	}
	switch {
	case n <= 0:
		return setError(mpirank.ErrArgument, fmt.Sprintf("n = %d: the graph needs at least one vertex", int(n)))
	case xadj == nil || pe == nil:
		return setError(mpirank.ErrArgument, "xadj or pe is NULL")
	case hierarchy == nil || distance == nil:
		return setError(mpirank.ErrArgument, "hierarchy or distance is NULL")
	}
	nv := int(n)
	xa := unsafe.Slice((*int64)(unsafe.Pointer(xadj)), nv+1)
	m := xa[nv]
	if xa[0] != 0 || m < 0 || m > 1<<40 {
		return setError(mpirank.ErrGraph, fmt.Sprintf("xadj spans [%d,%d)", xa[0], m))
	}
	if m > 0 && adjncy == nil {
		return setError(mpirank.ErrArgument, "adjncy is NULL")
	}
	g := &graph.Graph{XAdj: append([]int64(nil), xa...), VW: make([]int64, nv)}
	if m > 0 {
		g.Adj = append([]int32(nil), unsafe.Slice((*int32)(unsafe.Pointer(adjncy)), m)...)
	}
	if adjwgt != nil && m > 0 {
		g.SetEdgeWeights(append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(adjwgt)), m)...))
	}
	if vwgt != nil {
		copy(g.VW, unsafe.Slice((*int64)(unsafe.Pointer(vwgt)), nv))
	} else {
		for i := range g.VW {
			g.VW[i] = 1
		}
	}
	if err := g.Validate(); err != nil {
		return setError(mpirank.ErrGraph, err.Error())
	}
	top, err := topology.Parse(C.GoString(hierarchy), C.GoString(distance))
	if err != nil {
		return setError(mpirank.ErrOptions, err.Error())
	}
	mo := gpumap.DefaultOptions()
	mo.Preset, mo.Algorithm, mo.Eps, mo.Seed, mo.Threads, mo.Backend = opt.Preset, alg, eps, opt.Seed, opt.Threads, opt.Backend
	if opt.Verbosity >= 2 {
		mo.Progress = os.Stderr
	}
	res, err := gpumap.Map(g, top, mo)
	if err != nil {
		code := mpirank.ErrOptions
		if gpumap.IsNoGPU(err) {
			code = mpirank.ErrNoGPU
		}
		return setError(code, err.Error())
	}
	copy(unsafe.Slice((*int32)(unsafe.Pointer(pe)), nv), res.PE)
	if cost != nil {
		*cost = C.int64_t(res.Metrics.J)
	}
	if !res.Metrics.Feasible {
		return setError(mpirank.ErrInfeasible, fmt.Sprintf("heaviest PE %d exceeds Lmax %d", res.Metrics.MaxBlock, res.Metrics.Lmax))
	}
	return C.GPUMAP_OK
}
