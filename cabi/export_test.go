package main

// Tests of the exports' status codes, called as C calls them. A test file
// cannot import "C", so the C types appear under the names cgo gives them
// in this package (_Ctype_int for C.int). The codes that only an
// initialised MPI can produce (neighbour, volume, communicator,
// inconsistency) come from mpirank unchanged and are checked on both MPI
// stacks by tests/mpi_test.go (TestInvalidInputTable).

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/mpirank"
)

// csr is a graph in the arrays gpumap_map_graph takes.
type csr struct {
	xadj, vwgt, adjwgt []int64
	adjncy             []int32
}

// path4 is the path 0-1-2-3 with unit weights.
func path4() csr {
	return csr{xadj: []int64{0, 1, 3, 5, 6}, adjncy: []int32{1, 0, 2, 1, 3, 2}}
}

func ptr[T, E any](s []E) *T {
	if len(s) == 0 {
		return nil
	}
	return (*T)(unsafe.Pointer(&s[0]))
}

func cstr(s string) *_Ctype_char {
	b := append([]byte(s), 0)
	return (*_Ctype_char)(unsafe.Pointer(&b[0]))
}

// defaults are the options gpumap_options_init sets, on the CPU backend.
func defaults() _Ctype_gpumap_options {
	var o _Ctype_gpumap_options
	o.version = _Ctype_int(1) // GPUMAP_OPTIONS_VERSION
	o.preset = 1              // GPUMAP_PRESET_DEFAULT
	o.backend = 1             // GPUMAP_BACKEND_CPU
	o.imbalance = -1          // GPUMAP_IMBALANCE_DEFAULT
	return o
}

// mapGraph calls the export behind gpumap_map_graph with n = len(xadj)-1
// (or n when n >= 0), writing into pe.
func mapGraph(g csr, n int, hierarchy, distance string, o *_Ctype_gpumap_options, pe []int32) (mpirank.Code, int64) {
	if n < 0 {
		n = len(g.xadj) - 1
	}
	var cost _Ctype_int64_t
	var h, d *_Ctype_char
	if hierarchy != "" {
		h, d = cstr(hierarchy), cstr(distance)
	}
	st := gpumap_go_map_graph(_Ctype_int32_t(n), ptr[_Ctype_int64_t](g.xadj), ptr[_Ctype_int32_t](g.adjncy),
		ptr[_Ctype_int64_t](g.vwgt), ptr[_Ctype_int64_t](g.adjwgt), h, d, o, ptr[_Ctype_int32_t](pe), &cost)
	return mpirank.Code(st), int64(cost)
}

// TestMapGraphStatus: each status gpumap_map_graph can return, from the
// argument that causes it.
func TestMapGraphStatus(t *testing.T) {
	pe := make([]int32, 4)
	o := defaults()
	// The path on 2 x 2 PEs, distances 1 and 10, at most 2 vertices per
	// PE (eps 0.03): the optimum puts 0,1 and 2,3 on the two PEs of one
	// pair and cuts the middle edge at distance 1.
	if st, cost := mapGraph(path4(), -1, "2:2", "1:10", &o, pe); st != mpirank.OK || cost != 1 {
		t.Fatalf("valid call: status %d, cost %d, want 0 and 1 (pe %v)", st, cost, pe)
	}
	heavy := path4()
	heavy.vwgt = []int64{100, 1, 1, 1}
	badVersion, badPattern := defaults(), defaults()
	badVersion.version = 7
	badPattern.pattern = 9
	loop := path4()
	loop.adjncy[0] = 0
	unsorted := path4()
	unsorted.xadj[2] = 0
	noAdj := path4()
	noAdj.adjncy = nil
	for _, c := range []struct {
		name string
		g    csr
		n    int
		h, d string
		o    *_Ctype_gpumap_options
		pe   []int32
		want mpirank.Code
	}{
		{"n = 0", path4(), 0, "2:2", "1:10", &o, pe, mpirank.ErrArgument},
		{"xadj NULL", csr{}, 4, "2:2", "1:10", &o, pe, mpirank.ErrArgument},
		{"pe NULL", path4(), -1, "2:2", "1:10", &o, nil, mpirank.ErrArgument},
		{"hierarchy NULL", path4(), -1, "", "", &o, pe, mpirank.ErrArgument},
		{"adjncy NULL", noAdj, -1, "2:2", "1:10", &o, pe, mpirank.ErrArgument},
		{"options version", path4(), -1, "2:2", "1:10", &badVersion, pe, mpirank.ErrOptions},
		{"pattern kind", path4(), -1, "2:2", "1:10", &badPattern, pe, mpirank.ErrOptions},
		{"hierarchy text", path4(), -1, "2:x", "1:10", &o, pe, mpirank.ErrOptions},
		{"distance levels", path4(), -1, "2:2", "1", &o, pe, mpirank.ErrOptions},
		{"self-loop", loop, -1, "2:2", "1:10", &o, pe, mpirank.ErrGraph},
		{"offsets decrease", unsorted, -1, "2:2", "1:10", &o, pe, mpirank.ErrGraph},
		{"no balanced mapping", heavy, -1, "2:2", "1:10", &o, pe, mpirank.ErrInfeasible},
	} {
		if st, _ := mapGraph(c.g, c.n, c.h, c.d, c.o, c.pe); st != c.want {
			t.Errorf("%s: status %d, want %d", c.name, st, c.want)
		}
	}
}

// TestMapGraphNoGPU: the GPU backend required where no driver loads.
func TestMapGraphNoGPU(t *testing.T) {
	t.Setenv("GPUMAP_CUDA_LIB", "/nonexistent/libcuda.so.1")
	o := defaults()
	o.backend = 2 // GPUMAP_BACKEND_GPU
	if st, _ := mapGraph(path4(), -1, "2:2", "1:10", &o, make([]int32, 4)); st != mpirank.ErrNoGPU {
		t.Fatalf("status %d, want %d", st, mpirank.ErrNoGPU)
	}
}

// TestMapCode: gpumap.Map's errors are classified by what they wrap, not
// by their text: a user's mistake whose message happens to start with
// "internal error" is no bug.
func TestMapCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want mpirank.Code
	}{
		{fmt.Errorf("evaluate: %w", fmt.Errorf("%w: mapping has 3 entries", gpumap.ErrInternal)), mpirank.ErrInternal},
		{fmt.Errorf("backend gpu: %w: no driver", gpumap.ErrNoGPU), mpirank.ErrNoGPU},
		{errors.New("internal error: this text is not the sentinel"), mpirank.ErrOptions},
		{errors.New("k = 5 PEs for 4 tasks"), mpirank.ErrOptions},
	} {
		if got := mpirank.MapCode(c.err); got != c.want {
			t.Errorf("%q: code %d, want %d", c.err, got, c.want)
		}
	}
}

// TestPanicIsInternal: a panic inside an export becomes
// GPUMAP_ERR_INTERNAL instead of unwinding into C.
func TestPanicIsInternal(t *testing.T) {
	st := func() (status _Ctype_int) {
		defer recoverTo(&status)
		var m map[string]int
		m["x"] = 1
		return 0
	}()
	if mpirank.Code(st) != mpirank.ErrInternal {
		t.Fatalf("status %d, want %d", st, mpirank.ErrInternal)
	}
}

// TestReorderWithoutMPI: gpumap_reorder and gpumap_cost before MPI_Init
// return GPUMAP_ERR_MPI, and newcomm is MPI_COMM_NULL.
func TestReorderWithoutMPI(t *testing.T) {
	nb, vol := []int32{1}, []float64{8}
	nc := _Ctype_MPI_Fint(-5)
	st := gpumap_go_reorder(0, 1, ptr[_Ctype_int](nb), ptr[_Ctype_double](vol), nil, &nc)
	if mpirank.Code(st) != mpirank.ErrMPI || nc != _Ctype_MPI_Fint(mpirank.CommNull()) {
		t.Errorf("reorder: status %d, newcomm %d; want %d and MPI_COMM_NULL (%d)", st, nc, mpirank.ErrMPI, mpirank.CommNull())
	}
	var cost _Ctype_double
	if st := gpumap_go_cost(0, 1, ptr[_Ctype_int](nb), ptr[_Ctype_double](vol), nil, &cost); mpirank.Code(st) != mpirank.ErrMPI {
		t.Errorf("cost: status %d, want %d", st, mpirank.ErrMPI)
	}
}
