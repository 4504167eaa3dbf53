package mpirank

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"runtime/debug"
	"time"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/hwdetect"
	"github.com/gpumap/gpumap/topology"
)

// Options configure Reorder. They must agree on every rank (Verbosity and
// Log excepted).
type Options struct {
	Preset    gpumap.Preset
	Seed      uint64
	Hierarchy string // override of the detected hierarchy ("" = detect)
	Distance  string // override of the default distances ("" = default)
	Backend   gpumap.Backend
	Pattern   Pattern
	Threads   int
	Verbosity int       // 0 silent, 1 summary on rank 0, 2 also the mapper's phases
	Log       io.Writer // where rank 0 reports (nil: stderr)
}

// Result describes a reordering (the same on every rank).
type Result struct {
	Reordered  bool    // false when disabled (GPUMAP_DISABLE=1) or for a single process
	JBefore    float64 // cost of the original placement, bytes x distance
	JAfter     float64 // cost after reordering
	Machine    string  // the inferred machine
	MapSeconds float64 // time spent on rank 0 building the graph and mapping
}

// Reorder returns a new communicator in which rank t is played by the
// process best placed for task t of the pattern. It is collective over c;
// every rank gets the same status. On error the returned communicator is
// MPI_COMM_NULL. pre, when not nil, is an argument error the caller found
// on this rank (a null pointer, say): it is agreed on like any other.
func Reorder(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (Comm, Result, *Error) {
	return run(c, neighbors, volumes, opt, pre, false)
}

// Cost evaluates the current placement: Result.JBefore is the cost of
// running task r of the pattern on the process of rank r of c, with the
// same machine model Reorder uses. Collective like Reorder.
func Cost(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (Result, *Error) {
	_, res, err := run(c, neighbors, volumes, opt, pre, true)
	return res, err
}

func run(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error, evalOnly bool) (Comm, Result, *Error) {
	var res Result
	null := CommNull()
	if !Ready() {
		return null, res, errorf(ErrMPI, "MPI is not initialized (call MPI_Init first) or already finalized")
	}
	isNull, inter, size, rank := inspect(c)
	if isNull {
		return null, res, errorf(ErrComm, "the communicator is MPI_COMM_NULL")
	}
	if inter {
		return null, res, errorf(ErrComm, "inter-communicators are not supported")
	}
	t0 := time.Now()
	trace := func(step string) {
		if opt.Verbosity >= 3 && rank == 0 {
			fmt.Fprintf(os.Stderr, "gpumap: %-10s %8.2f ms\n", step, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	d, err := dup(c, true)
	if err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	defer Free(d)
	trace("dup")

	// 1. Agree on the arguments.
	local := pre
	if local != nil {
		local = &Error{Code: pre.Code, Msg: fmt.Sprintf("rank %d: %s", rank, pre.Msg)}
	} else {
		local = checkLocal(rank, size, neighbors, volumes)
	}
	if local == nil {
		if local = checkOptions(opt); local != nil {
			local.Msg = fmt.Sprintf("rank %d: %s", rank, local.Msg)
		}
	}
	vals := []int32{0, 0, 0, 0}
	if local != nil {
		vals[0] = int32(size - rank)
	}
	h := optionsHash(opt)
	vals[1], vals[2] = h, 0x3fffffff-h
	if os.Getenv("GPUMAP_DISABLE") == "1" {
		vals[3] = 1
	}
	if err := allreduceMax(d, vals); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	trace("agree")
	if vals[0] > 0 {
		e := shareError(d, int(size-int(vals[0])), rank, local)
		return null, res, e
	}
	if vals[1] != 0x3fffffff-vals[2] {
		return null, res, errorf(ErrInconsistent, "options differ across ranks (preset, seed, hierarchy, distance, backend or pattern)")
	}
	if !evalOnly && (vals[3] == 1 || size == 1) {
		nc, err := Dup(c)
		if err != nil {
			return null, res, errorf(ErrMPI, "%v", err)
		}
		return nc, res, nil
	}

	// 2. Gather locations and patterns on rank 0.
	data := encodePayload(payload{Rec: hwdetect.Locate(ProcessorName()), Neighbors: neighbors, Volumes: volumes})
	trace("locate")
	var sizes []int32
	if rank == 0 {
		sizes = make([]int32, size)
	}
	if err := gatherInt(d, int32(len(data)), sizes, 0); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	var all []byte
	var displs []int32
	flag := []byte{0}
	if rank == 0 {
		displs = make([]int32, size)
		total := int64(0)
		for r, s := range sizes {
			displs[r] = int32(min(total, math.MaxInt32))
			total += int64(s)
		}
		if total > math.MaxInt32 {
			flag[0] = 1
		} else {
			all = make([]byte, total)
		}
	}
	if err := bcast(d, flag, 0); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	if flag[0] == 1 {
		return null, res, errorf(ErrArgument, "the patterns of all ranks exceed 2 GiB even compressed")
	}
	if err := gatherv(d, data, all, sizes, displs, 0); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	trace("gather")

	// 3. Map on rank 0; 4. broadcast status, costs and permutation.
	hdr := make([]byte, headerSize)
	var keys []int32
	if rank == 0 {
		start := time.Now()
		var e *Error
		keys, res, e = mapOnRoot(all, sizes, displs, opt, evalOnly)
		res.MapSeconds = time.Since(start).Seconds()
		encodeHeader(hdr, e, res)
	}
	trace("map")
	if err := bcast(d, hdr, 0); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	e, r := decodeHeader(hdr)
	if e != nil {
		return null, r, e
	}
	res = r
	if evalOnly {
		return null, res, nil
	}
	kb := make([]byte, 4*size)
	if rank == 0 {
		for i, k := range keys {
			binary.LittleEndian.PutUint32(kb[4*i:], uint32(k))
		}
	}
	if err := bcast(d, kb, 0); err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	key := int(binary.LittleEndian.Uint32(kb[4*rank:]))
	trace("bcast")
	nc, err := split(c, 0, key)
	if err != nil {
		return null, res, errorf(ErrMPI, "%v", err)
	}
	trace("split")
	res.Reordered = true
	return nc, res, nil
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

func checkOptions(opt Options) *Error {
	switch {
	case opt.Preset < gpumap.Fast || opt.Preset > gpumap.Strong:
		return errorf(ErrOptions, "unknown preset %d", int(opt.Preset))
	case opt.Backend < gpumap.AutoBackend || opt.Backend > gpumap.GPU:
		return errorf(ErrOptions, "unknown backend %d", int(opt.Backend))
	case opt.Pattern != PatternSend && opt.Pattern != PatternExchange:
		return errorf(ErrOptions, "unknown pattern kind %d", int(opt.Pattern))
	case opt.Threads < 0:
		return errorf(ErrOptions, "negative thread count %d", opt.Threads)
	}
	if opt.Hierarchy != "" {
		if _, err := topology.ParseHierarchy(opt.Hierarchy); err != nil {
			return errorf(ErrOptions, "%v", err)
		}
	}
	if opt.Distance != "" {
		if _, err := topology.ParseDistances(opt.Distance); err != nil {
			return errorf(ErrOptions, "%v", err)
		}
	}
	return nil
}

// optionsHash condenses the options that must agree into 30 bits.
func optionsHash(opt Options) int32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d|%d|%s|%s|%d|%d", opt.Preset, opt.Seed, opt.Hierarchy, opt.Distance, opt.Backend, opt.Pattern)
	return int32(h.Sum32() & 0x3fffffff)
}

// mapOnRoot decodes the patterns, builds the task graph and the machine
// and maps; every failure, panics included, becomes an *Error.
func mapOnRoot(all []byte, sizes, displs []int32, opt Options, evalOnly bool) (keys []int32, res Result, e *Error) {
	defer func() {
		if p := recover(); p != nil {
			e = errorf(ErrInternal, "panic on rank 0: %v\n%s", p, debug.Stack())
		}
	}()
	size := len(sizes)
	pats := make([]payload, size)
	recs := make([]hwdetect.Record, size)
	for r := range pats {
		p, err := decodePayload(all[displs[r] : displs[r]+sizes[r]])
		if err != nil {
			return nil, res, errorf(ErrInternal, "pattern of rank %d: %v", r, err)
		}
		if le := checkLocal(r, size, p.Neighbors, p.Volumes); le != nil {
			return nil, res, le
		}
		pats[r], recs[r] = p, p.Rec
	}
	w, me := merge(pats, opt.Pattern)
	if me != nil {
		return nil, res, me
	}
	g, err := w.taskGraph()
	if err != nil {
		return nil, res, errorf(ErrInternal, "task graph: %v", err)
	}
	m, err := hwdetect.Infer(recs, hwdetect.Spec{Hierarchy: opt.Hierarchy, Distance: opt.Distance})
	if err != nil {
		return nil, res, errorf(ErrOptions, "%v", err)
	}
	res.Machine = m.Describe()
	res.JBefore = w.cost(m.Top, func(t int32) int { return m.Slot[t] })
	if evalOnly {
		res.JAfter = res.JBefore
		return nil, res, nil
	}
	mo := gpumap.DefaultOptions()
	mo.Preset, mo.Seed, mo.Eps, mo.Threads, mo.Backend = opt.Preset, opt.Seed, 0, opt.Threads, opt.Backend
	log := opt.Log
	if log == nil {
		log = os.Stderr
	}
	if opt.Verbosity >= 2 {
		mo.Progress = log
	}
	out, err := gpumap.Map(g, m.Top, mo)
	if err != nil {
		code := ErrInternal
		if gpumap.IsNoGPU(err) {
			code = ErrNoGPU
		}
		return nil, res, errorf(code, "%v", err)
	}
	if !out.Metrics.Feasible {
		return nil, res, errorf(ErrInfeasible, "the mapping is not a permutation (max load %d)", out.Metrics.MaxBlock)
	}
	// Task t runs on PE out.PE[t], played by process m.Rank[PE]: that
	// process gets new rank t.
	keys = make([]int32, size)
	for t, p := range out.PE {
		keys[m.Rank[p]] = int32(t)
	}
	res.JAfter = w.cost(m.Top, func(t int32) int { return int(out.PE[t]) })
	if res.JAfter > res.JBefore {
		// Never make things worse: keep the original order.
		for r := range keys {
			keys[r] = int32(r)
		}
		res.JAfter = res.JBefore
	}
	if opt.Verbosity >= 1 {
		fmt.Fprintf(log, "gpumap: reorder of %d ranks on %s: J %.6g -> %.6g\n", size, res.Machine, res.JBefore, res.JAfter)
	}
	writeReport(log, w, m, recs, keys)
	return keys, res, nil
}

const (
	msgMax     = 512
	machineMax = 400
	headerSize = 4 + 3*8 + msgMax + machineMax
)

func encodeHeader(b []byte, e *Error, r Result) {
	if e != nil {
		binary.LittleEndian.PutUint32(b, uint32(e.Code))
		copy(b[28:28+msgMax], truncate(e.Msg, msgMax))
		return
	}
	binary.LittleEndian.PutUint64(b[4:], math.Float64bits(r.JBefore))
	binary.LittleEndian.PutUint64(b[12:], math.Float64bits(r.JAfter))
	binary.LittleEndian.PutUint64(b[20:], math.Float64bits(r.MapSeconds))
	copy(b[28+msgMax:], truncate(r.Machine, machineMax))
}

func decodeHeader(b []byte) (*Error, Result) {
	if c := Code(binary.LittleEndian.Uint32(b)); c != OK {
		return &Error{Code: c, Msg: cstring(b[28 : 28+msgMax])}, Result{}
	}
	return nil, Result{
		JBefore:    math.Float64frombits(binary.LittleEndian.Uint64(b[4:])),
		JAfter:     math.Float64frombits(binary.LittleEndian.Uint64(b[12:])),
		MapSeconds: math.Float64frombits(binary.LittleEndian.Uint64(b[20:])),
		Machine:    cstring(b[28+msgMax:]),
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
