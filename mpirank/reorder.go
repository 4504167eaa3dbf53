package mpirank

import (
	"bytes"
	"crypto/sha256"
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
	MapSeconds  float64 // time rank 0 spent building the graph and mapping (0 when Cached)
	CallSeconds float64 // time this process spent in the call
	// Cached: the mapping came from the process's mapping cache (an
	// identical earlier call, see CacheEntries): nothing was gathered or
	// mapped.
	Cached bool
}

// Reorder returns a new communicator in which rank t is played by the
// process best placed for task t of the pattern. It is collective over c;
// every rank gets the same status. On error the returned communicator is
// MPI_COMM_NULL. pre, when not nil, is an argument error the caller found
// on this rank (a null pointer, say): it is agreed on like any other.
// The order changes only when the mapping lowers J by at least MinGain.
func Reorder(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (Comm, Result, *Error) {
	t0 := time.Now()
	key, at, res, e := run(c, false, neighbors, volumes, opt, pre, callReorder)
	if e != nil {
		return CommNull(), res, e
	}
	var nc Comm
	var err error
	if res.Changed == 0 {
		nc, err = Dup(c)
	} else {
		nc, err = split(c, 0, key)
	}
	if err != nil {
		return CommNull(), res, errorf(ErrMPI, "%v", err)
	}
	res.CallSeconds = time.Since(t0).Seconds()
	if at.size > 1 {
		summarize(opt, at, callReorder, res)
	}
	return nc, res, nil
}

// ReorderRank is Reorder on a communicator d that the caller made for
// gpumap alone, with MPI_ERRORS_RETURN: gpumap runs its collectives on d
// itself rather than on a copy, and makes no communicator. It returns the
// rank this process has in the new order (its rank in d when the order is
// kept, Result.Changed == 0); the caller splits d with it. The topology
// interposer's private copy of comm_old is such a communicator: the copy
// and the split are two of the communicators a call makes, and each costs
// a collective.
func ReorderRank(d Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (int, Result, *Error) {
	t0 := time.Now()
	key, at, res, e := run(d, true, neighbors, volumes, opt, pre, callReorder)
	if e != nil {
		return -1, res, e
	}
	res.CallSeconds = time.Since(t0).Seconds()
	if at.size > 1 {
		summarize(opt, at, callReorder, res)
	}
	return key, res, nil
}

// Cost evaluates the current placement: Result.JBefore is the cost of
// running task r of the pattern on the process of rank r of c, with the
// same machine model Reorder uses. Collective like Reorder.
func Cost(c Comm, neighbors []int32, volumes []float64, opt Options, pre *Error) (Result, *Error) {
	t0 := time.Now()
	_, at, res, e := run(c, false, neighbors, volumes, opt, pre, callCost)
	if e != nil {
		return res, e
	}
	res.CallSeconds = time.Since(t0).Seconds()
	summarize(opt, at, callCost, res)
	return res, nil
}

// run is a call of kind on c (on a copy of c unless private): the
// agreement, then the outcome of an identical earlier call or the gather
// and the mapping. It returns the new rank of this process (its rank in c
// when the order is kept or kind is callCost) and where it is in c.
func run(c Comm, private bool, neighbors []int32, volumes []float64, opt Options, pre *Error, kind call) (int, where, Result, *Error) {
	t0 := time.Now()
	var res Result
	if !Ready() {
		return -1, where{}, res, errorf(ErrMPI, "MPI is not initialized (call MPI_Init first) or already finalized")
	}
	isNull, invalid, inter, size, rank := inspect(c)
	if isNull {
		return -1, where{}, res, errorf(ErrComm, "the communicator is MPI_COMM_NULL")
	}
	if invalid {
		return -1, where{}, res, errorf(ErrComm, "handle %d is not a communicator", int32(c))
	}
	if inter {
		return -1, where{}, res, errorf(ErrComm, "inter-communicators are not supported")
	}
	at := where{rank, size}
	trace := func(step string) {
		if opt.Verbosity >= 3 && rank == 0 {
			fmt.Fprintf(logOf(opt), "gpumap: %-10s %8.2f ms\n", step, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	d := c
	if !private {
		var err error
		if d, err = dup(c, true); err != nil {
			return -1, at, res, errorf(ErrMPI, "%v", err)
		}
		defer Free(d)
		trace("dup")
	}
	// 1. Agree on the call, the options and the environment, and on
	// whether every rank holds the outcome of an identical earlier call.
	rec := hwdetect.Locate(ProcessorName())
	cn, hit, fits, e := agree(d, rank, size, kind, rec, neighbors, volumes, opt, pre)
	if e != nil {
		return -1, at, res, e
	}
	trace("agree")
	res.Disabled = cn.disabled
	if kind == callReorder && size == 1 {
		return 0, at, res, nil
	}
	if hit.id != 0 {
		res = hit.res
		res.Cached, res.MapSeconds = true, 0
		return int(hit.key), at, res, nil
	}

	// 2. Gather locations and patterns on rank 0.
	data := encodePayload(payload{Rec: rec, Neighbors: neighbors, Volumes: volumes})
	all, sizes, displs, e := gatherFitting(d, data, rank, size, fits)
	if e != nil {
		return -1, at, res, e
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
		keys, res, e = rootWork(all, sizes, displs, opt, cn, mode, logOf(opt))
		res.MapSeconds = time.Since(start).Seconds()
		encodeHeader(hdr, e, res, newMappingID())
	}
	all = nil
	trace("map")
	if err := bcast(d, hdr, 0); err != nil {
		return -1, at, res, errorf(ErrMPI, "%v", err)
	}
	e, r, id := decodeHeader(hdr)
	if e != nil {
		return -1, at, r, e
	}
	res = r
	res.Disabled = cn.disabled
	res.Reordered = res.Changed > 0

	// 4. Each rank receives its new rank (its own when the order is kept)
	// and remembers the outcome.
	key := int32(rank)
	if kind == callReorder && res.Changed > 0 {
		if err := scatterInt(d, keys, &key, 0); err != nil {
			return -1, at, res, errorf(ErrMPI, "%v", err)
		}
		trace("scatter")
	}
	cache.store(cacheEntry{digest: hit.digest, id: id, key: key, res: res})
	return int(key), at, res, nil
}

// where is a process's rank in a communicator of size processes.
type where struct{ rank, size int }

func logOf(opt Options) io.Writer {
	if opt.Log == nil {
		return os.Stderr
	}
	return opt.Log
}

// summarize prints the summary of a call on rank 0 (verbosity >= 1).
func summarize(opt Options, at where, kind call, res Result) {
	if opt.Verbosity < 1 || at.rank != 0 {
		return
	}
	size := at.size
	what := fmt.Sprintf("J %.6g -> %.6g, %d of %d ranks moved", res.JBefore, res.JAfter, res.Changed, size)
	switch {
	case kind == callCost:
		what = fmt.Sprintf("J %.6g", res.JBefore)
	case res.Disabled:
		what = fmt.Sprintf("J %.6g, order kept (%s)", res.JBefore, envDisable)
	case res.Changed == 0:
		what = fmt.Sprintf("J %.6g, order kept (no mapping %.1f%% cheaper)", res.JBefore, 100*MinGain)
	}
	cached := ""
	if res.Cached {
		cached = "; mapping cached"
	}
	fmt.Fprintf(logOf(opt), "gpumap: %s of %d ranks on %s: %s; map %.3f s, call %.3f s%s\n",
		kind, size, res.Machine, what, res.MapSeconds, res.CallSeconds, cached)
}

// agree runs the first collective step, one reduction: it tells every
// rank whether some rank found an argument error (the lowest one then
// broadcasts its message), whether every rank has the same call and
// options in canonical form (if not, rank 0 broadcasts its own and the
// lowest rank that differs says what differs), and whether the call is a
// cache hit, and whether the patterns of all ranks surely fit in one
// gather (fits: every payloadBound times size). Every rank returns the
// same status. hit holds this rank's digest; its id is not 0 only on a
// hit, on every rank.
func agree(d Comm, rank, size int, kind call, rec hwdetect.Record, neighbors []int32, volumes []float64, opt Options, pre *Error) (cn canon, hit cacheEntry, fits bool, _ *Error) {
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
	sum := sha256.Sum256(mine)
	// vals: the error flag, the miss flag, the payload bound, the id's
	// votes, the options'.
	vals := make([]int32, 3+8+len(sum))
	vals[2] = int32(min(payloadBound(rec, len(neighbors)), math.MaxInt32))
	if local != nil {
		vals[0] = int32(size - rank)
	}
	found := false
	if local == nil {
		hit.digest = digest(cn, opt, size, rank, rec, neighbors, volumes)
		var e cacheEntry
		if e, found = cache.lookup(hit.digest); found {
			hit = e
		}
	}
	if !found {
		vals[1] = 1
	}
	castEqual(vals[3:11], idBytes(hit.id))
	castEqual(vals[11:], sum[:])
	if err := allreduceMax(d, vals); err != nil {
		return cn, cacheEntry{}, false, errorf(ErrMPI, "%v", err)
	}
	switch {
	case vals[0] > 0:
		return cn, cacheEntry{}, false, shareError(d, size-int(vals[0]), rank, local)
	case !allEqual(vals[11:]):
		return cn, cacheEntry{}, false, disagree(d, rank, size, cn, mine)
	}
	if vals[1] != 0 || !allEqual(vals[3:11]) {
		hit.id = 0
	}
	return cn, hit, int64(vals[2])*int64(size) <= math.MaxInt32, nil
}

// disagree, collective, is the error of a call whose ranks differ in their
// options: rank 0 broadcasts its canonical form and the lowest rank whose
// form differs says what differs.
func disagree(d Comm, rank, size int, cn canon, mine []byte) *Error {
	root := append([]byte(nil), mine...)
	if err := bcast(d, root, 0); err != nil {
		return errorf(ErrMPI, "%v", err)
	}
	v := []int32{0}
	if !bytes.Equal(mine, root) {
		v[0] = int32(size - rank)
	}
	if err := allreduceMax(d, v); err != nil {
		return errorf(ErrMPI, "%v", err)
	}
	if v[0] == 0 { // only a collision of the options' digests gets here
		v[0] = int32(size)
	}
	return shareError(d, size-int(v[0]), rank, &Error{Code: ErrInconsistent, Msg: differs(rank, cn, root)})
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
	headerSize = 4 + 4*8 + msgMax + machineMax + 8
)

// encodeHeader writes rank 0's verdict: an error, or the result and the
// id under which every rank caches it.
func encodeHeader(b []byte, e *Error, r Result, id uint64) {
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
	binary.LittleEndian.PutUint64(b[36+msgMax+machineMax:], id)
}

func decodeHeader(b []byte) (*Error, Result, uint64) {
	if c := Code(binary.LittleEndian.Uint32(b)); c != OK {
		return &Error{Code: c, Msg: cstring(b[36 : 36+msgMax])}, Result{}, 0
	}
	return nil, Result{
		JBefore:    math.Float64frombits(binary.LittleEndian.Uint64(b[4:])),
		JAfter:     math.Float64frombits(binary.LittleEndian.Uint64(b[12:])),
		MapSeconds: math.Float64frombits(binary.LittleEndian.Uint64(b[20:])),
		Changed:    int(binary.LittleEndian.Uint64(b[28:])),
		Machine:    cstring(b[36+msgMax : 36+msgMax+machineMax]),
	}, binary.LittleEndian.Uint64(b[36+msgMax+machineMax:])
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
