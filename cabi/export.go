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
#include "safe.h"
*/
import "C"

import (
	"errors"
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
// GPUMAP_IMBALANCE_DEFAULT is 0 for a reordering, 0.03 for a graph. The
// struct is checked before its strings are read: an uninitialised one
// (reserved fields not zero, enums out of range) never has its pointers
// followed, and a string that cannot be read is an error.
func options(o *C.gpumap_options, strings bool) (opt mpirank.Options, eps float64, e *mpirank.Error) {
	opt = mpirank.Options{Preset: gpumap.Default}
	eps = C.GPUMAP_IMBALANCE_DEFAULT
	if o == nil {
		return opt, eps, nil
	}
	if C.gpumap_readable(unsafe.Pointer(o), C.size_t(unsafe.Sizeof(*o))) == 0 {
		return opt, eps, &mpirank.Error{Code: mpirank.ErrArgument, Msg: fmt.Sprintf("options points to memory that cannot be read (%p)", o)}
	}
	if o.version != C.GPUMAP_OPTIONS_VERSION {
		return opt, eps, &mpirank.Error{Code: mpirank.ErrOptions,
			Msg: fmt.Sprintf("options version %d is not supported (want %d): initialise them with gpumap_options_init", int(o.version), C.GPUMAP_OPTIONS_VERSION)}
	}
	if o.reserved_int != 0 || o.reserved != [4]unsafe.Pointer{} {
		return opt, eps, &mpirank.Error{Code: mpirank.ErrOptions,
			Msg: "options are not initialised (their reserved fields are not zero): start from gpumap_options_init"}
	}
	opt.Preset = gpumap.Preset(o.preset)
	opt.Backend = gpumap.Backend(o.backend)
	opt.Pattern = mpirank.Pattern(o.pattern)
	opt.Verbosity = int(o.verbosity)
	opt.Threads = int(o.threads)
	opt.Seed = uint64(o.seed)
	opt.Algorithm = gpumap.Algorithm(o.algorithm)
	eps = float64(o.imbalance)
	if !strings || !enumsValid(o) {
		return opt, eps, nil // an enum out of range is reported; garbage pointers are not followed
	}
	var err error
	if opt.Hierarchy, err = callerString(o.hierarchy, "options.hierarchy"); err == nil {
		opt.Distance, err = callerString(o.distance, "options.distance")
	}
	if err != nil {
		return opt, eps, &mpirank.Error{Code: mpirank.ErrArgument, Msg: err.Error()}
	}
	return opt, eps, nil
}

// enumsValid: every enum of o is one of its values.
func enumsValid(o *C.gpumap_options) bool {
	return o.preset >= C.GPUMAP_PRESET_FAST && o.preset <= C.GPUMAP_PRESET_STRONG &&
		o.backend >= C.GPUMAP_BACKEND_AUTO && o.backend <= C.GPUMAP_BACKEND_GPU &&
		o.algorithm >= C.GPUMAP_ALGORITHM_AUTO && o.algorithm <= C.GPUMAP_ALGORITHM_HM &&
		o.pattern >= C.GPUMAP_PATTERN_SEND && o.pattern <= C.GPUMAP_PATTERN_EXCHANGE
}

// reorderOptions are the options of gpumap_reorder and gpumap_cost, which
// place one task per process: the default imbalance means 0, anything
// else is passed on (and rejected by mpirank unless 0).
func reorderOptions(o *C.gpumap_options) (mpirank.Options, *mpirank.Error) {
	opt, eps, e := options(o, true)
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
		d := int(degree)
		nb, err := callerSlice[int32](unsafe.Pointer(neighbors), d, fmt.Sprintf("neighbors (degree %d)", d))
		var vol []float64
		if err == nil {
			vol, err = callerSlice[float64](unsafe.Pointer(volumes), d, fmt.Sprintf("volumes (degree %d)", d))
		}
		if err == nil {
			err = fitsMemory(uint64(d)*12, fmt.Sprintf("degree %d", d))
		}
		if err != nil {
			return nil, nil, &mpirank.Error{Code: mpirank.ErrArgument, Msg: err.Error()}
		}
		return append([]int32(nil), nb...), append([]float64(nil), vol...), nil
	}
	return nil, nil, pre
}

//export gpumap_go_reorder
func gpumap_go_reorder(comm C.MPI_Fint, degree C.int, neighbors *C.int, volumes *C.double,
	copt *C.gpumap_options, newcomm *C.MPI_Fint) (status C.int) {
	defer recoverTo(&status)
	// CommNull calls no MPI function (MPI may not be initialized). A
	// newcomm that cannot be written fails on every rank before the
	// mapping: written directly, it faulted on its rank alone after the
	// others had their communicator.
	var unwritable *mpirank.Error
	if null := C.MPI_Fint(mpirank.CommNull()); newcomm != nil &&
		C.gpumap_write(unsafe.Pointer(newcomm), unsafe.Pointer(&null), C.size_t(unsafe.Sizeof(null))) != 0 {
		unwritable = &mpirank.Error{Code: mpirank.ErrArgument, Msg: "newcomm points to memory that cannot be written"}
	}
	opt, pre := reorderOptions(copt)
	if pre == nil && newcomm == nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: "newcomm is NULL"}
	}
	if pre == nil && unwritable != nil {
		pre = unwritable
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
	// A cost that cannot be written gave its rank alone status 11.
	if err := writableBack((*C.int64_t)(unsafe.Pointer(cost)), 1, "cost"); pre == nil && err != nil {
		pre = &mpirank.Error{Code: mpirank.ErrArgument, Msg: err.Error()}
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
	if res.Cached {
		r.cached = 1
	}
	C.gpumap_set_last_result(&r)
}

//export gpumap_go_map_graph
func gpumap_go_map_graph(n C.int32_t, xadj *C.int64_t, adjncy *C.int32_t, vwgt *C.int64_t, adjwgt *C.int64_t,
	hierarchy *C.char, distance *C.char, copt *C.gpumap_options, pe *C.int32_t, cost *C.int64_t) (status C.int) {
	defer recoverTo(&status)
	opt, eps, oerr := options(copt, false)
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
	case opt.Pattern != mpirank.PatternSend && opt.Pattern != mpirank.PatternExchange:
		return setError(mpirank.ErrOptions, fmt.Sprintf("unknown pattern kind %d", int(opt.Pattern)))
	}
	h, err := callerString(hierarchy, "hierarchy")
	var d string
	if err == nil {
		d, err = callerString(distance, "distance")
	}
	if err != nil {
		return setError(mpirank.ErrArgument, err.Error())
	}
	top, err := topology.Parse(h, d)
	if err != nil {
		return setError(mpirank.ErrOptions, err.Error())
	}
	out, err := callerSlice[int32](unsafe.Pointer(pe), int(n), fmt.Sprintf("pe (n = %d)", int(n)))
	if err != nil {
		return setError(mpirank.ErrArgument, err.Error())
	}
	g, err := csrGraph(int(n), xadj, adjncy, vwgt, adjwgt)
	if err == nil {
		err = graph.CheckCost(g, top.MaxDistance())
	}
	if err != nil {
		code := mpirank.ErrGraph
		if _, ok := err.(argError); ok {
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
		return setError(mpirank.MapCode(err), err.Error())
	}
	if C.gpumap_write(unsafe.Pointer(&out[0]), unsafe.Pointer(&res.PE[0]), C.size_t(4*len(res.PE))) != 0 {
		return setError(mpirank.ErrArgument, fmt.Sprintf("pe (n = %d): %d entries cannot be written at %p", int(n), int(n), pe))
	}
	// Written directly, a cost that cannot be written gave status 11.
	if j := C.int64_t(res.Metrics.J); cost != nil && C.gpumap_write(unsafe.Pointer(cost), unsafe.Pointer(&j), 8) != 0 {
		return setError(mpirank.ErrArgument, fmt.Sprintf("cost cannot be written at %p", cost))
	}
	if !res.Metrics.Feasible {
		return setError(mpirank.ErrInfeasible, fmt.Sprintf("heaviest PE %d exceeds Lmax %d", res.Metrics.MaxBlock, res.Metrics.Lmax))
	}
	return C.GPUMAP_OK
}

// argError is an error in an argument as such (a NULL or unreadable
// array): GPUMAP_ERR_ARGUMENT rather than GPUMAP_ERR_GRAPH.
type argError struct{ error }

// csrGraph reads the caller's CSR arrays and validates them (graph.FromCSR,
// messages 0-based). xadj[n] is checked before adjncy and adjwgt are
// looked at, each array is checked to be readable for its length, and
// the copies to fit in memory, before anything is copied.
func csrGraph(n int, xadj *C.int64_t, adjncy *C.int32_t, vwgt, adjwgt *C.int64_t) (*graph.Graph, error) {
	xa, err := callerSlice[int64](unsafe.Pointer(xadj), n+1, fmt.Sprintf("xadj (n = %d)", n))
	if err != nil {
		return nil, argError{err}
	}
	m := xa[n]
	if m < 0 || m > graph.MaxCSREdges {
		// FromCSR names what is wrong with the offsets.
		return graph.FromCSR(xa, nil, nil, nil)
	}
	if m > 0 && adjncy == nil {
		return nil, argError{errors.New("adjncy is NULL")}
	}
	size := uint64(8*(n+1)+8*n) + 4*uint64(m)
	if adjwgt != nil {
		size += 8 * uint64(m)
	}
	if err := fitsMemory(size, fmt.Sprintf("n = %d, xadj[n] = %d", n, m)); err != nil {
		return nil, argError{err}
	}
	var adj []int32
	var vw, ew []int64
	if m > 0 {
		if adj, err = callerSlice[int32](unsafe.Pointer(adjncy), int(m), fmt.Sprintf("adjncy (xadj[n] = %d)", m)); err != nil {
			return nil, argError{err}
		}
		if adjwgt != nil {
			if ew, err = callerSlice[int64](unsafe.Pointer(adjwgt), int(m), fmt.Sprintf("adjwgt (xadj[n] = %d)", m)); err != nil {
				return nil, argError{err}
			}
		}
	}
	if vwgt != nil {
		if vw, err = callerSlice[int64](unsafe.Pointer(vwgt), n, fmt.Sprintf("vwgt (n = %d)", n)); err != nil {
			return nil, argError{err}
		}
	}
	return graph.FromCSR(xa, adj, vw, ew)
}
