package mpirank

/*
#include <mpi.h>
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
static int g_allreduce_max(MPI_Fint f, int *v, int n) {
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, MPI_Comm_f2c(f));
}
static int g_gather_int(MPI_Fint f, int v, int *all, int root) {
	return MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, root, MPI_Comm_f2c(f));
}
static int g_gatherv(MPI_Fint f, void *buf, int len, void *all, int *counts, int *displs, int root) {
	return MPI_Gatherv(buf, len, MPI_BYTE, all, counts, displs, MPI_BYTE, root, MPI_Comm_f2c(f));
}
static int g_scatter_int(MPI_Fint f, int *all, int *v, int root) {
	return MPI_Scatter(all, 1, MPI_INT, v, 1, MPI_INT, root, MPI_Comm_f2c(f));
}
static int g_bcast(MPI_Fint f, void *buf, int len, int root) {
	return MPI_Bcast(buf, len, MPI_BYTE, root, MPI_Comm_f2c(f));
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
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Comm is an MPI communicator as a Fortran handle (MPI_Comm_c2f), the one
// representation that is a plain integer in every MPI implementation.
type Comm int32

// CommNull is MPI_COMM_NULL; it calls no MPI function, so it may be used
// before MPI_Init and after MPI_Finalize.
func CommNull() Comm { return Comm(C.g_null()) }

// Ready reports whether MPI is initialized and not finalized.
func Ready() bool { return C.g_ready() != 0 }

func mpiErr(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	buf := make([]byte, int(C.g_max_err())+1)
	var n C.int
	C.g_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("%s failed: %s (MPI error %d)", op, string(buf[:n]), int(rc))
}

// inspect returns (null, invalid, inter, size, rank) of c.
func inspect(c Comm) (null, invalid, inter bool, size, rank int) {
	var s, r, i C.int
	switch C.g_inspect(C.MPI_Fint(c), &s, &r, &i) {
	case 1:
		return true, false, false, 0, 0
	case 2:
		return false, true, false, 0, 0
	}
	return false, false, i != 0, int(s), int(r)
}

// dup returns a new communicator with c's group in c's order (split,
// so that none of c's attributes are copied); quiet sets
// MPI_ERRORS_RETURN on it, otherwise it keeps c's error handler.
func dup(c Comm, quiet bool) (Comm, error) {
	var out C.MPI_Fint
	q := C.int(0)
	if quiet {
		q = 1
	}
	if rc := C.g_copy(C.MPI_Fint(c), q, &out); rc != 0 {
		return 0, mpiErr("MPI_Comm_split", rc)
	}
	return Comm(out), nil
}

// Free releases a communicator.
func Free(c Comm) error { return mpiErr("MPI_Comm_free", C.g_free(C.MPI_Fint(c))) }

func allreduceMax(c Comm, v []int32) error {
	return mpiErr("MPI_Allreduce", C.g_allreduce_max(C.MPI_Fint(c), (*C.int)(unsafe.Pointer(&v[0])), C.int(len(v))))
}

func gatherInt(c Comm, v int32, all []int32, root int) error {
	var p *C.int
	if len(all) > 0 {
		p = (*C.int)(unsafe.Pointer(&all[0]))
	}
	return mpiErr("MPI_Gather", C.g_gather_int(C.MPI_Fint(c), C.int(v), p, C.int(root)))
}

func gatherv(c Comm, buf []byte, all []byte, counts, displs []int32, root int) error {
	var sb, rb unsafe.Pointer
	var cp, dp *C.int
	if len(buf) > 0 {
		sb = unsafe.Pointer(&buf[0])
	}
	if len(all) > 0 {
		rb = unsafe.Pointer(&all[0])
	}
	if len(counts) > 0 {
		cp, dp = (*C.int)(unsafe.Pointer(&counts[0])), (*C.int)(unsafe.Pointer(&displs[0]))
	}
	return mpiErr("MPI_Gatherv", C.g_gatherv(C.MPI_Fint(c), sb, C.int(len(buf)), rb, cp, dp, C.int(root)))
}

// scatterInt gives every rank r its entry all[r] of root's array.
func scatterInt(c Comm, all []int32, v *int32, root int) error {
	var p *C.int
	if len(all) > 0 {
		p = (*C.int)(unsafe.Pointer(&all[0]))
	}
	return mpiErr("MPI_Scatter", C.g_scatter_int(C.MPI_Fint(c), p, (*C.int)(unsafe.Pointer(v)), C.int(root)))
}

// bcast broadcasts buf from root in pieces of at most 1 GiB.
func bcast(c Comm, buf []byte, root int) error {
	for off := 0; off < len(buf); {
		n := min(len(buf)-off, 1<<30)
		if err := mpiErr("MPI_Bcast", C.g_bcast(C.MPI_Fint(c), unsafe.Pointer(&buf[off]), C.int(n), C.int(root))); err != nil {
			return err
		}
		off += n
	}
	return nil
}

func split(c Comm, color, key int) (Comm, error) {
	var out C.MPI_Fint
	if rc := C.g_split(C.MPI_Fint(c), C.int(color), C.int(key), &out); rc != 0 {
		return 0, mpiErr("MPI_Comm_split", rc)
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

// Dup returns a communicator in c's order for a caller: c's group and
// error handler, none of its attributes or topology.
func Dup(c Comm) (Comm, error) { return dup(c, false) }
