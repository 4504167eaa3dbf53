// Package mpi is gpumap's one cgo layer over MPI, shared by the rank
// reordering (mpirank) and the distributed mapper (distmap): small C
// wrappers and the Go functions over them. Communicators cross the Go
// boundary as Fortran handles (MPI_Comm_c2f), plain integers in every MPI.
//
// Every function here must be called from the goroutine (and so the OS
// thread) that owns MPI: the caller's, locked with runtime.LockOSThread.
// Counts are 64-bit: where MPI takes an int, the data moves in pieces
// (Bcast, Allgatherv, Alltoallv), so that no count passes 2^31-1.
package mpi

/*
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int g_ready(void) {
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	return init && !fin;
}
// The Fortran handle of MPI_COMM_NULL without calling MPI, which may not
// be initialized: OpenMPI's MPI_Comm_c2f needs MPI_Init, its mpif.h fixes
// MPI_COMM_NULL at 2; MPICH's MPI_Comm_c2f is a cast of a constant.
static MPI_Fint g_null(void) {
#if defined(OPEN_MPI)
	return 2;
#else
	return MPI_Comm_c2f(MPI_COMM_NULL);
#endif
}
static MPI_Fint g_world(void) { return MPI_Comm_c2f(MPI_COMM_WORLD); }
// A handle that cannot be a communicator: MPI would abort on it (its
// errors on an invalid communicator go to MPI_COMM_WORLD's handler). Only
// the obvious cases are caught: OpenMPI's f2c gives NULL for an index out
// of its table, MPICH's handles carry their kind in bits 26-29 and their
// type in bits 30-31.
static int g_invalid(MPI_Fint f, MPI_Comm c) {
#if defined(OPEN_MPI)
	(void)f;
	return c == NULL;
#elif defined(MPICH)
	unsigned h = (unsigned)f;
	(void)c;
	return (h & 0x3c000000u) != 0x04000000u || (h >> 30) == 0;
#else
	(void)f; (void)c;
	return 0;
#endif
}
static int g_inspect(MPI_Fint f, int *size, int *rank, int *inter) {
	MPI_Comm c = MPI_Comm_f2c(f);
	if (c == MPI_COMM_NULL) return 1;
	if (g_invalid(f, c)) return 2;
	MPI_Comm_test_inter(c, inter);
	if (*inter) return 0;
	MPI_Comm_size(c, size);
	MPI_Comm_rank(c, rank);
	return 0;
}
// A new communicator with c's group in c's order. MPI_Comm_split, not
// MPI_Comm_dup: a dup would run the caller's attribute copy callbacks
// (and fail when one fails), and carry c's topology.
static int g_copy(MPI_Fint f, int quiet, MPI_Fint *out) {
	MPI_Comm c = MPI_Comm_f2c(f), d;
	int rank = 0;
	MPI_Comm_rank(c, &rank);
	int rc = MPI_Comm_split(c, 0, rank, &d);
	if (rc != MPI_SUCCESS) return rc;
	if (quiet) MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
	*out = MPI_Comm_c2f(d);
	return MPI_SUCCESS;
}
static int g_free(MPI_Fint f) { MPI_Comm c = MPI_Comm_f2c(f); return MPI_Comm_free(&c); }

// Element types and reductions by small codes, so that Go passes ints.
static MPI_Datatype g_type(int t) {
	switch (t) {
	case 1: return MPI_INT32_T;
	case 2: return MPI_INT64_T;
	case 3: return MPI_DOUBLE;
	default: return MPI_BYTE;
	}
}
static MPI_Op g_op(int op) {
	switch (op) {
	case 1: return MPI_MIN;
	case 2: return MPI_MAX;
	default: return MPI_SUM;
	}
}
static int g_allreduce(MPI_Fint f, void *v, int n, int t, int op) {
	return MPI_Allreduce(MPI_IN_PLACE, v, n, g_type(t), g_op(op), MPI_Comm_f2c(f));
}
static int g_scan(MPI_Fint f, void *in, void *out, int n, int t, int op, int ex) {
	if (ex) return MPI_Exscan(in, out, n, g_type(t), g_op(op), MPI_Comm_f2c(f));
	return MPI_Scan(in, out, n, g_type(t), g_op(op), MPI_Comm_f2c(f));
}
// The smallest v and the lowest rank holding it (MPI_MINLOC on long int).
static int g_minloc(MPI_Fint f, long v, long *min, int *rank) {
	struct { long v; int r; } in, out;
	MPI_Comm c = MPI_Comm_f2c(f);
	in.v = v;
	MPI_Comm_rank(c, &in.r);
	int rc = MPI_Allreduce(&in, &out, 1, MPI_LONG_INT, MPI_MINLOC, c);
	*min = out.v;
	*rank = out.r;
	return rc;
}
static int g_gather(MPI_Fint f, void *v, int n, int t, void *all, int root) {
	return MPI_Gather(v, n, g_type(t), all, n, g_type(t), root, MPI_Comm_f2c(f));
}
static int g_allgather(MPI_Fint f, void *v, int n, int t, void *all) {
	return MPI_Allgather(v, n, g_type(t), all, n, g_type(t), MPI_Comm_f2c(f));
}
static int g_alltoall(MPI_Fint f, void *v, int n, int t, void *all) {
	return MPI_Alltoall(v, n, g_type(t), all, n, g_type(t), MPI_Comm_f2c(f));
}
static int g_gatherv(MPI_Fint f, void *buf, int len, void *all, int *counts, int *displs, int root) {
	return MPI_Gatherv(buf, len, MPI_BYTE, all, counts, displs, MPI_BYTE, root, MPI_Comm_f2c(f));
}
static int g_allgatherv(MPI_Fint f, void *buf, int len, void *all, int *counts, int *displs) {
	return MPI_Allgatherv(buf, len, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_Comm_f2c(f));
}
static int g_alltoallv(MPI_Fint f, void *sb, int *sc, int *sd, void *rb, int *rc, int *rd) {
	return MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, MPI_Comm_f2c(f));
}
static int g_scatter_int(MPI_Fint f, int *all, int *v, int root) {
	return MPI_Scatter(all, 1, MPI_INT, v, 1, MPI_INT, root, MPI_Comm_f2c(f));
}
static int g_bcast(MPI_Fint f, void *buf, int len, int root) {
	return MPI_Bcast(buf, len, MPI_BYTE, root, MPI_Comm_f2c(f));
}
static int g_send(MPI_Fint f, void *buf, int len, int dest, int tag) {
	return MPI_Send(buf, len, MPI_BYTE, dest, tag, MPI_Comm_f2c(f));
}
static int g_recv(MPI_Fint f, void *buf, int len, int src, int tag) {
	return MPI_Recv(buf, len, MPI_BYTE, src, tag, MPI_Comm_f2c(f), MPI_STATUS_IGNORE);
}
// Whether a message from src with tag waits to be received.
static int g_iprobe(MPI_Fint f, int src, int tag, int *flag) {
	return MPI_Iprobe(src, tag, MPI_Comm_f2c(f), flag, MPI_STATUS_IGNORE);
}
// A barrier that this rank tests for (requests cross as Fortran handles).
static int g_ibarrier(MPI_Fint f, MPI_Fint *req) {
	MPI_Request r;
	int rc = MPI_Ibarrier(MPI_Comm_f2c(f), &r);
	*req = MPI_Request_c2f(r);
	return rc;
}
static int g_test(MPI_Fint *req, int *flag) {
	MPI_Request r = MPI_Request_f2c(*req);
	int rc = MPI_Test(&r, flag, MPI_STATUS_IGNORE);
	*req = MPI_Request_c2f(r);
	return rc;
}
static int g_split(MPI_Fint f, int color, int key, MPI_Fint *out) {
	MPI_Comm n;
	int rc = MPI_Comm_split(MPI_Comm_f2c(f), color, key, &n);
	*out = MPI_Comm_c2f(n);
	return rc;
}
static int g_processor_name(char *buf, int *len) { return MPI_Get_processor_name(buf, len); }
static void g_error_string(int code, char *buf, int *len) {
	if (MPI_Error_string(code, buf, len) != MPI_SUCCESS) { buf[0] = 0; *len = 0; }
}
static int g_max_name(void) { return MPI_MAX_PROCESSOR_NAME; }
static int g_max_err(void) { return MPI_MAX_ERROR_STRING; }
// Programs of our own (gpumap-mpi) start MPI with the main thread making
// every call: the Go side locks it.
static int g_init(void) {
	int provided = 0;
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
}
static int g_finalize(void) { return MPI_Finalize(); }
static void g_abort(MPI_Fint f, int code) { MPI_Abort(MPI_Comm_f2c(f), code); }
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// Comm is an MPI communicator as a Fortran handle (MPI_Comm_c2f), the one
// representation that is a plain integer in every MPI implementation.
type Comm int32

// CommNull is MPI_COMM_NULL; it calls no MPI function, so it may be used
// before MPI_Init and after MPI_Finalize.
func CommNull() Comm { return Comm(C.g_null()) }

// World is MPI_COMM_WORLD.
func World() Comm { return Comm(C.g_world()) }

// Ready reports whether MPI is initialized and not finalized.
func Ready() bool { return C.g_ready() != 0 }

// Init starts MPI (MPI_THREAD_FUNNELED) for a program of gpumap's own.
func Init() error { return errOf("MPI_Init_thread", C.g_init()) }

// Finalize ends MPI.
func Finalize() error { return errOf("MPI_Finalize", C.g_finalize()) }

// Abort is MPI_Abort: the last resort of a program that cannot report a
// failure to its peers otherwise.
func Abort(c Comm, code int) { C.g_abort(C.MPI_Fint(c), C.int(code)) }

// Error is a failed MPI call: a type of its own, so that callers can
// tell MPI's failures from their users' mistakes (gpumap_map_dist's
// GPUMAP_ERR_MPI).
type Error struct {
	Op   string // the MPI function
	Code int    // its return code
	Text string // MPI_Error_string of Code
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s failed: %s (MPI error %d)", e.Op, e.Text, e.Code)
}

// errOf turns an MPI return code into an error naming the call (nil for
// MPI_SUCCESS).
func errOf(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	buf := make([]byte, int(C.g_max_err())+1)
	var n C.int
	C.g_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return &Error{Op: op, Code: int(rc), Text: string(buf[:n])}
}

// Inspect returns (null, invalid, inter, size, rank) of c.
func Inspect(c Comm) (null, invalid, inter bool, size, rank int) {
	var s, r, i C.int
	switch C.g_inspect(C.MPI_Fint(c), &s, &r, &i) {
	case 1:
		return true, false, false, 0, 0
	case 2:
		return false, true, false, 0, 0
	}
	return false, false, i != 0, int(s), int(r)
}

// Copy returns a new communicator with c's group in c's order (split, so
// that none of c's attributes are copied); quiet sets MPI_ERRORS_RETURN on
// it, otherwise it keeps c's error handler. Internal traffic runs on a
// quiet copy: the caller's communicator only ever sees the split.
func Copy(c Comm, quiet bool) (Comm, error) {
	var out C.MPI_Fint
	q := C.int(0)
	if quiet {
		q = 1
	}
	if rc := C.g_copy(C.MPI_Fint(c), q, &out); rc != 0 {
		return 0, errOf("MPI_Comm_split", rc)
	}
	return Comm(out), nil
}

// Free releases a communicator.
func Free(c Comm) error { return errOf("MPI_Comm_free", C.g_free(C.MPI_Fint(c))) }

// Split is MPI_Comm_split.
func Split(c Comm, color, key int) (Comm, error) {
	var out C.MPI_Fint
	if rc := C.g_split(C.MPI_Fint(c), C.int(color), C.int(key), &out); rc != 0 {
		return 0, errOf("MPI_Comm_split", rc)
	}
	return Comm(out), nil
}

// ProcessorName is MPI_Get_processor_name.
func ProcessorName() string {
	buf := make([]byte, int(C.g_max_name())+1)
	var n C.int
	if C.g_processor_name((*C.char)(unsafe.Pointer(&buf[0])), &n) != 0 {
		return ""
	}
	return string(buf[:n])
}

// Number is what the reductions and typed collectives move.
type Number interface{ int32 | int64 | float64 }

// Op is a reduction.
type Op int

// The reductions.
const (
	Sum Op = iota
	Min
	Max
)

func typeCode[T Number]() C.int {
	var z T
	switch any(z).(type) {
	case int32:
		return 1
	case int64:
		return 2
	}
	return 3
}

func ptr[T any](v []T) unsafe.Pointer {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Pointer(&v[0])
}

// AsBytes views v's memory as bytes (for Gatherv and Bcast).
func AsBytes[T Number](v []T) []byte { return bytesOf(v) }

func bytesOf[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(z)))
}

// Allreduce reduces v in place over every rank of c.
func Allreduce[T Number](c Comm, v []T, op Op) error {
	for off := 0; off < len(v); {
		n := min(len(v)-off, 1<<28)
		if rc := C.g_allreduce(C.MPI_Fint(c), unsafe.Pointer(&v[off]), C.int(n), typeCode[T](), C.int(op)); rc != 0 {
			return errOf("MPI_Allreduce", rc)
		}
		off += n
	}
	return nil
}

// Scan returns the inclusive (exclusive: Exscan) prefix reduction of v
// over the ranks of c; Exscan's result on rank 0 is zero.
func Scan[T Number](c Comm, v []T, op Op, exclusive bool) ([]T, error) {
	out := make([]T, len(v))
	if len(v) == 0 {
		return out, nil
	}
	ex := C.int(0)
	if exclusive {
		ex = 1
	}
	if rc := C.g_scan(C.MPI_Fint(c), ptr(v), ptr(out), C.int(len(v)), typeCode[T](), C.int(op), ex); rc != 0 {
		return nil, errOf("MPI_Scan", rc)
	}
	if exclusive {
		// MPI leaves rank 0's result undefined.
		if _, _, _, _, rank := Inspect(c); rank == 0 {
			clear(out)
		}
	}
	return out, nil
}

// MinLoc returns the smallest v over the ranks of c and the lowest rank
// that holds it, in one allreduce.
func MinLoc(c Comm, v int64) (int64, int, error) {
	var m C.long
	var r C.int
	if rc := C.g_minloc(C.MPI_Fint(c), C.long(v), &m, &r); rc != 0 {
		return 0, 0, errOf("MPI_Allreduce", rc)
	}
	return int64(m), int(r), nil
}

// Gather collects every rank's v (all of the same length) on root, in
// rank order; all is only read on root (len(v) * size entries).
func Gather[T Number](c Comm, v, all []T, root int) error {
	return errOf("MPI_Gather", C.g_gather(C.MPI_Fint(c), ptr(v), C.int(len(v)), typeCode[T](), ptr(all), C.int(root)))
}

// Allgather returns every rank's v (all of the same length) on every
// rank, in rank order.
func Allgather[T Number](c Comm, v []T, size int) ([]T, error) {
	all := make([]T, len(v)*size)
	if rc := C.g_allgather(C.MPI_Fint(c), ptr(v), C.int(len(v)), typeCode[T](), ptr(all)); rc != 0 {
		return nil, errOf("MPI_Allgather", rc)
	}
	return all, nil
}

// Alltoall sends v[r*n : (r+1)*n] to rank r, n = len(v)/size, and returns
// what each rank sent this one, in rank order.
func Alltoall[T Number](c Comm, v []T, size int) ([]T, error) {
	all := make([]T, len(v))
	if rc := C.g_alltoall(C.MPI_Fint(c), ptr(v), C.int(len(v)/size), typeCode[T](), ptr(all)); rc != 0 {
		return nil, errOf("MPI_Alltoall", rc)
	}
	return all, nil
}

// Gatherv collects buf of every rank on root: rank r's bytes land at
// all[displs[r] : displs[r]+counts[r]] (counts and displs are read on root
// only). The caller keeps the total below 2^31.
func Gatherv(c Comm, buf []byte, all []byte, counts, displs []int32, root int) error {
	var cp, dp *C.int
	if len(counts) > 0 {
		cp, dp = (*C.int)(unsafe.Pointer(&counts[0])), (*C.int)(unsafe.Pointer(&displs[0]))
	}
	return errOf("MPI_Gatherv", C.g_gatherv(C.MPI_Fint(c), ptr(buf), C.int(len(buf)), ptr(all), cp, dp, C.int(root)))
}

// ScatterInt gives every rank r its entry all[r] of root's array.
func ScatterInt(c Comm, all []int32, v *int32, root int) error {
	return errOf("MPI_Scatter", C.g_scatter_int(C.MPI_Fint(c), (*C.int)(ptr(all)), (*C.int)(unsafe.Pointer(v)), C.int(root)))
}

// chunk is the most bytes one MPI call moves for a rank; a variable so
// that the tests can take the multi-round paths with small data.
var chunk int64 = 1 << 30

// inChunks calls call, the MPI function name, on buf in pieces of at most
// chunk bytes, in order, and stops at the first error.
func inChunks(name string, buf []byte, call func(p unsafe.Pointer, n C.int) C.int) error {
	for off := int64(0); off < int64(len(buf)); {
		n := min(int64(len(buf))-off, chunk)
		if err := errOf(name, call(unsafe.Pointer(&buf[off]), C.int(n))); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Bcast broadcasts buf from root in pieces of at most chunk bytes.
func Bcast(c Comm, buf []byte, root int) error {
	return inChunks("MPI_Bcast", buf, func(p unsafe.Pointer, n C.int) C.int {
		return C.g_bcast(C.MPI_Fint(c), p, n, C.int(root))
	})
}

// BcastOf broadcasts the elements of v from root.
func BcastOf[T Number](c Comm, v []T, root int) error { return Bcast(c, bytesOf(v), root) }

// Send sends buf to rank dest of c with tag, in pieces of at most chunk
// bytes; the receiver calls Recv with a buffer of the same length.
func Send(c Comm, buf []byte, dest, tag int) error {
	return inChunks("MPI_Send", buf, func(p unsafe.Pointer, n C.int) C.int {
		return C.g_send(C.MPI_Fint(c), p, n, C.int(dest), C.int(tag))
	})
}

// Recv receives into buf what rank src of c sent with Send and tag.
func Recv(c Comm, buf []byte, src, tag int) error {
	return inChunks("MPI_Recv", buf, func(p unsafe.Pointer, n C.int) C.int {
		return C.g_recv(C.MPI_Fint(c), p, n, C.int(src), C.int(tag))
	})
}

// Probe reports whether a message from rank src of c with tag waits to
// be received, without waiting for one.
func Probe(c Comm, src, tag int) (bool, error) {
	var flag C.int
	if err := errOf("MPI_Iprobe", C.g_iprobe(C.MPI_Fint(c), C.int(src), C.int(tag), &flag)); err != nil {
		return false, err
	}
	return flag != 0, nil
}

// Barrier returns once every rank of c has called it, sleeping for poll
// between tests instead of spinning as MPI_Barrier does in OpenMPI and
// MPICH: a rank that waits for its peers leaves its core to the
// threads of another process (the whole-graph path's HM, which takes
// the core of the rank whose IM is done).
func Barrier(c Comm, poll time.Duration) error {
	var req C.MPI_Fint
	if err := errOf("MPI_Ibarrier", C.g_ibarrier(C.MPI_Fint(c), &req)); err != nil {
		return err
	}
	for {
		var flag C.int
		if err := errOf("MPI_Test", C.g_test(&req, &flag)); err != nil {
			return err
		}
		if flag != 0 {
			return nil
		}
		time.Sleep(poll)
	}
}

// Allgatherv returns the concatenation of every rank's v in rank order
// and where each rank's part starts (size+1 offsets, in elements). When
// the total passes chunk bytes each rank broadcasts its part in pieces
// instead.
func Allgatherv[T Number](c Comm, v []T, size int) ([]T, []int64, error) {
	cnt, err := Allgather(c, []int64{int64(len(v))}, size)
	if err != nil {
		return nil, nil, err
	}
	offs := make([]int64, size+1)
	for r, n := range cnt {
		offs[r+1] = offs[r] + n
	}
	all := make([]T, offs[size])
	var z T
	es := int64(unsafe.Sizeof(z))
	if offs[size]*es <= chunk {
		counts, displs := make([]int32, size), make([]int32, size)
		for r := range cnt {
			counts[r], displs[r] = int32(cnt[r]*es), int32(offs[r]*es)
		}
		rc := C.g_allgatherv(C.MPI_Fint(c), ptr(v), C.int(int64(len(v))*es), ptr(all),
			(*C.int)(unsafe.Pointer(&counts[0])), (*C.int)(unsafe.Pointer(&displs[0])))
		return all, offs, errOf("MPI_Allgatherv", rc)
	}
	_, _, _, _, rank := Inspect(c)
	copy(all[offs[rank]:], v)
	for r := 0; r < size; r++ {
		if err := Bcast(c, bytesOf(all[offs[r]:offs[r+1]]), r); err != nil {
			return nil, nil, err
		}
	}
	return all, offs, nil
}

// Alltoallv sends send[sendOff[r] : sendOff[r+1]] to rank r (sendOff has
// size+1 entries, in elements) and returns what every rank sent this one,
// in rank order, with its size+1 offsets. Counts are 64-bit: when some
// rank would move more than chunk bytes in one call, every pair's data
// moves in rounds of at most chunk/size bytes each.
func Alltoallv[T Number](c Comm, send []T, sendOff []int64, size int) ([]T, []int64, error) {
	var z T
	es := int64(unsafe.Sizeof(z))
	sc := make([]int64, size)
	for r := range sc {
		sc[r] = (sendOff[r+1] - sendOff[r]) * es
	}
	rcnt, err := Alltoall(c, sc, size)
	if err != nil {
		return nil, nil, err
	}
	recvOff := make([]int64, size+1)
	for r, n := range rcnt {
		recvOff[r+1] = recvOff[r] + n/es
	}
	recv := make([]T, recvOff[size])
	sb, rb := bytesOf(send), bytesOf(recv)
	// One call when every rank's totals fit, rounds otherwise: the flag
	// is agreed on, so that all ranks take the same path.
	big := []int32{0}
	if sendOff[size]*es > chunk || recvOff[size]*es > chunk {
		big[0] = 1
	}
	if err := Allreduce(c, big, Max); err != nil {
		return nil, nil, err
	}
	scnt, sdis := make([]int32, size), make([]int32, size)
	rc, rdis := make([]int32, size), make([]int32, size)
	if big[0] == 0 {
		for r := 0; r < size; r++ {
			scnt[r], sdis[r] = int32(sc[r]), int32(sendOff[r]*es)
			rc[r], rdis[r] = int32(rcnt[r]), int32(recvOff[r]*es)
		}
		return recv, recvOff, alltoallv(c, sb, scnt, sdis, rb, rc, rdis)
	}
	piece := max(chunk/int64(size), 1)
	rounds := []int64{0}
	for r := 0; r < size; r++ {
		rounds[0] = max(rounds[0], (sc[r]+piece-1)/piece, (rcnt[r]+piece-1)/piece)
	}
	if err := Allreduce(c, rounds, Max); err != nil {
		return nil, nil, err
	}
	stmp := make([]byte, min(piece*int64(size), sendOff[size]*es))
	rtmp := make([]byte, min(piece*int64(size), recvOff[size]*es))
	for i := int64(0); i < rounds[0]; i++ {
		var so, ro int32
		for r := 0; r < size; r++ {
			lo := i * piece
			sn := max(min(sc[r]-lo, piece), 0)
			rn := max(min(rcnt[r]-lo, piece), 0)
			if sn > 0 {
				copy(stmp[so:], sb[sendOff[r]*es+lo:sendOff[r]*es+lo+sn])
			}
			scnt[r], sdis[r], rc[r], rdis[r] = int32(sn), so, int32(rn), ro
			so += int32(sn)
			ro += int32(rn)
		}
		if err := alltoallv(c, stmp, scnt, sdis, rtmp, rc, rdis); err != nil {
			return nil, nil, err
		}
		for r := 0; r < size; r++ {
			if rc[r] > 0 {
				lo := recvOff[r]*es + i*piece
				copy(rb[lo:lo+int64(rc[r])], rtmp[rdis[r]:rdis[r]+rc[r]])
			}
		}
	}
	return recv, recvOff, nil
}

func alltoallv(c Comm, sb []byte, sc, sd []int32, rb []byte, rc, rd []int32) error {
	return errOf("MPI_Alltoallv", C.g_alltoallv(C.MPI_Fint(c), ptr(sb), (*C.int)(ptr(sc)), (*C.int)(ptr(sd)),
		ptr(rb), (*C.int)(ptr(rc)), (*C.int)(ptr(rd))))
}
