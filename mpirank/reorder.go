package mpirank

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/gpumap/gpumap/hwdetect"
)

// Result describes what a call did. Every field but CallSeconds is the
// same on every rank.
type Result struct {
	Reordered   bool    // the new communicator's order differs from the input's (Changed > 0)
	Changed     int     // ranks whose rank differs in the new communicator
	Disabled    bool    // GPUMAP_DISABLE was set: the order was kept, the cost still computed
	JBefore     float64 // cost of the original placement, bytes x distance
	JAfter      float64 // cost after reordering (JBefore when the order was kept)
	Machine     string  // the inferred machine
	MapSeconds  float64 // time rank 0 spent building the graph and mapping
	CallSeconds float64 // time this process spent in the call
}

// Reorder returns a new communicator in which rank t is played by the
// process best placed for task t of the pattern. It is collective over c;
// every rank gets the same status. On error the returned communicator is
// MPI_COMM_NULL. pre, when not nil, is an argument error the caller found
// on this rank (a null pointer, say): it is agreed on like any other.
// The order changes only when the mapping lowers J by at least MinGain.
func Reorder(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (Comm, Result, *Error) {
	return run(c, neighbors, volumes, opt, pre, callReorder)
}

// Cost evaluates the current placement: Result.JBefore is the cost of
// running task r of the pattern on the process of rank r of c, with the
// same machine model Reorder uses. Collective like Reorder.
func Cost(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (Result, *Error) {
	_, res, err := run(c, neighbors, volumes, opt, pre, callCost)
	return res, err
}

func run(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error, kind call) (Comm, Result, *Error) {
	t0 := time.Now()
	var res Result
	null := CommNull()
	if !Ready() {
		return null, res, errorf(ErrMPI, "MPI is not initialized (call MPI_Init first) or already finalized")
	}
	isNull, invalid, inter, size, rank := inspect(c)
	if isNull {
		return null, res, errorf(ErrComm, "the communicator is MPI_COMM_NULL")
	}
	if invalid {
		return null, res, errorf(ErrComm, "handle %d is not a communicator", int32(c))
	}
	if inter {
		return null, res, errorf(ErrComm, "inter-communicators are not supported")
	}
	log := opt.Log
	if log == nil {
		log = os.Stderr
	}
	trace := func(step string) {
		if opt.Verbosity >= 3 && rank == 0 {
			fmt.Fprintf(log, "gpumap: %-10s %8.2f ms\n", step, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	d, err := dup(c, true)
	if err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	defer Free(d)
	trace("dup")

	// 1. Agree on the call, the options and the environment.
	cn, e := agree(d, rank, size, kind, neighbors, volumes, opt, pre)
	if e != nil {
		return null, res, e
	}
	trace("agree")
	res.Disabled = cn.disabled
	if kind == callReorder && size == 1 {
		nc, err := Dup(c)
		if err != nil {
			return null, res, errorf(ErrMPI, "%v", err)
		}
		res.CallSeconds = time.Since(t0).Seconds()
		return nc, res, nil
	}

	// 2. Gather locations and patterns on rank 0.
	all, sizes, displs, e := gather(d, rank, size, neighbors, volumes)
	if e != nil {
		return null, res, e
	}
	trace("gather")

	// 3. Map on rank 0 (or only evaluate); broadcast status and result.
	mode := modeMap
	if kind == callCost || cn.disabled {
		mode = modeCost
	}
	hdr := make([]byte, headerSize)
	var keys []int32
	if rank == 0 {
		start := time.Now()
		var e *Error
		keys, res, e = rootWork(all, sizes, displs, opt, cn, mode, log)
		res.MapSeconds = time.Since(start).Seconds()
		encodeHeader(hdr, e, res)
	}
	all = nil
	trace("map")
	if err := bcast(d, hdr, 0); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	e, r := decodeHeader(hdr)
	if e != nil {
		return null, r, e
	}
	res = r
	res.Disabled = cn.disabled
	if kind == callCost {
		res.CallSeconds = time.Since(t0).Seconds()
		summarize(log, rank, kind, size, res, opt)
		return null, res, nil
	}

	// 4. Each rank receives its new rank; split (in the same order when the
	// order is kept).
	var nc Comm
	if res.Changed == 0 {
		nc, err = Dup(c)
	} else {
		var key int32
		if err := scatterInt(d, keys, &key, 0); err != nil {
			return null, res, errorf(ErrMPI, "%v", err)
		}
		trace("scatter")
		nc, err = split(c, 0, int(key))
	}
	if err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	trace("split")
	res.Reordered = res.Changed > 0
	res.CallSeconds = time.Since(t0).Seconds()
	summarize(log, rank, kind, size, res, opt)
	return nc, res, nil
}

// summarize prints the summary of a call on rank 0 (verbosity >= 1).
func summarize(log io.Writer, rank int, kind call, size int, res Result, opt Options) {
	if opt.Verbosity < 1 || rank != 0 {
		return
	}
	what := fmt.Sprintf("J %.6g -> %.6g, %d of %d ranks moved", res.JBefore, res.JAfter, res.Changed, size)
	switch {
	case kind == callCost:
		what = fmt.Sprintf("J %.6g", res.JBefore)
	case res.Disabled:
		what = fmt.Sprintf("J %.6g, order kept (%s)", res.JBefore, envDisable)
	case res.Changed == 0:
		what = fmt.Sprintf("J %.6g, order kept (no mapping %.1f%% cheaper)", res.JBefore, 100*MinGain)
	}
	fmt.Fprintf(log, "gpumap: %s of %d ranks on %s: %s; map %.3f s, call %.3f s\n",
		kind, size, res.Machine, what, res.MapSeconds, res.CallSeconds)
}

// agree runs the first collective steps: rank 0 broadcasts the canonical
// form of its call and options, every rank compares it with its own, and
// one reduction tells every rank whether some rank found an argument error
// (the lowest one then broadcasts its message) or different options (the
// lowest such rank says what differs). Every rank returns the same status.
func agree(d Comm, rank, size int, kind call, neighbors []int32, volumes []float64, opt Options, pre *Error) (canon, *Error) {
	local := pre
	if local != nil {
		local = &Error{Code: pre.Code, Msg: fmt.Sprintf("rank %d: %s", rank, pre.Msg)}
	} else {
		local = checkLocal(rank, size, neighbors, volumes)
	}
	cn, oe := canonical(kind, opt)
	if local == nil && oe != nil {
		local = &Error{Code: oe.Code, Msg: fmt.Sprintf("rank %d: %s", rank, oe.Msg)}
	}
	mine := cn.encode()
	root := append([]byte(nil), mine...)
	if err := bcast(d, root, 0); err != nil {
		return cn, errorf(ErrMPI, "%v", err)
	}
	vals := []int32{0, 0}
	if local != nil {
		vals[0] = int32(size - rank)
	}
	if !bytes.Equal(mine, root) {
		vals[1] = int32(size - rank)
	}
	if err := allreduceMax(d, vals); err != nil {
		return cn, errorf(ErrMPI, "%v", err)
	}
	switch {
	case vals[0] > 0:
		return cn, shareError(d, size-int(vals[0]), rank, local)
	case vals[1] > 0:
		return cn, shareError(d, size-int(vals[1]), rank, &Error{Code: ErrInconsistent, Msg: differs(rank, cn, root)})
	}
	return cn, nil
}

// gather collects every rank's location and compressed pattern on rank 0.
func gather(d Comm, rank, size int, neighbors []int32, volumes []float64) ([]byte, []int32, []int32, *Error) {
	data := encodePayload(payload{Rec: hwdetect.Locate(ProcessorName()), Neighbors: neighbors, Volumes: volumes})
	return gatherOnRoot(d, data, rank, size)
}

// shareError broadcasts the error of rank root so that every rank returns
// the same code and message.
func shareError(d Comm, root, rank int, local *Error) *Error {
	buf := make([]byte, 4+msgMax)
	if rank == root && local != nil {
		binary.LittleEndian.PutUint32(buf, uint32(local.Code))
		copy(buf[4:], truncate(local.Msg, msgMax))
	}
	if err := bcast(d, buf, root); err != nil {
		return errorf(ErrMPI, "%v", err)
	}
	return &Error{Code: Code(binary.LittleEndian.Uint32(buf)), Msg: cstring(buf[4:])}
}

const (
	msgMax     = 512
	machineMax = 400
	headerSize = 4 + 4*8 + msgMax + machineMax
)

func encodeHeader(b []byte, e *Error, r Result) {
	if e != nil {
		binary.LittleEndian.PutUint32(b, uint32(e.Code))
		copy(b[36:36+msgMax], truncate(e.Msg, msgMax))
		return
	}
	binary.LittleEndian.PutUint64(b[4:], math.Float64bits(r.JBefore))
	binary.LittleEndian.PutUint64(b[12:], math.Float64bits(r.JAfter))
	binary.LittleEndian.PutUint64(b[20:], math.Float64bits(r.MapSeconds))
	binary.LittleEndian.PutUint64(b[28:], uint64(r.Changed))
	copy(b[36+msgMax:], truncate(r.Machine, machineMax))
}

func decodeHeader(b []byte) (*Error, Result) {
	if c := Code(binary.LittleEndian.Uint32(b)); c != OK {
		return &Error{Code: c, Msg: cstring(b[36 : 36+msgMax])}, Result{}
	}
	return nil, Result{
		JBefore:    math.Float64frombits(binary.LittleEndian.Uint64(b[4:])),
		JAfter:     math.Float64frombits(binary.LittleEndian.Uint64(b[12:])),
		MapSeconds: math.Float64frombits(binary.LittleEndian.Uint64(b[20:])),
		Changed:    int(binary.LittleEndian.Uint64(b[28:])),
		Machine:    cstring(b[36+msgMax:]),
	}
}

func truncate(s string, n int) string {
	if len(s) >= n {
		return s[:n-1]
	}
	return s
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
