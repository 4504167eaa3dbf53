//go:build !mpich

package gompi

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdlib.h>

static MPI_Fint g_world(void) { return MPI_Comm_c2f(MPI_COMM_WORLD); }

// world rank of every rank of c, in c's rank order
static int g_world_ranks(MPI_Fint f, int *out, int n) {
	MPI_Comm c = MPI_Comm_f2c(f);
	MPI_Group g, w;
	int rc = MPI_Comm_group(c, &g);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Comm_group(MPI_COMM_WORLD, &w);
	if (rc != MPI_SUCCESS) { MPI_Group_free(&g); return rc; }
	int *in = malloc(sizeof(int) * (n > 0 ? n : 1));
	for (int i = 0; i < n; i++) in[i] = i;
	rc = MPI_Group_translate_ranks(g, n, in, w, out);
	free(in);
	MPI_Group_free(&g);
	MPI_Group_free(&w);
	return rc;
}

static int g_size(MPI_Fint f) { int s = 0; MPI_Comm_size(MPI_Comm_f2c(f), &s); return s; }
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/mpirank"
	mpi "github.com/sbromberger/gompi"
)

// DefaultOptions are the options gpumap_options_init gives C programs
// (the default preset).
func DefaultOptions() mpirank.Options {
	return mpirank.Options{Preset: gpumap.Default}
}

// Reorder maps this program's communication pattern onto the machine and
// returns a communicator in which rank t is played by the process best
// placed for task t. neighbors are world ranks this rank sends to and
// volumes the bytes it sends to each (see mpirank.Pattern for exchange
// patterns). Collective over MPI_COMM_WORLD: call it on every rank, from
// the goroutine that uses MPI. On error (an *mpirank.Error, the same on
// every rank) the communicator is nil and MPI_COMM_WORLD is as it was.
func Reorder(neighbors []int32, volumes []float64, opt mpirank.Options) (*mpi.Communicator, mpirank.Result, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !mpirank.Ready() {
		return nil, mpirank.Result{}, &mpirank.Error{Code: mpirank.ErrMPI,
			Msg: "MPI is not initialized (call mpi.Start first) or already finalized"}
	}
	// As for C callers, mpirank reads GPUMAP_* at call time for what the
	// options leave unset (and names the variable in its errors).
	nc, res, e := mpirank.Reorder(mpirank.Comm(C.g_world()), neighbors, volumes, opt, nil)
	if e != nil {
		return nil, res, e
	}
	n := int(C.g_size(C.MPI_Fint(nc)))
	perm := make([]int32, n)
	rc := C.g_world_ranks(C.MPI_Fint(nc), (*C.int)(unsafe.Pointer(&perm[0])), C.int(n))
	mpirank.Free(nc)
	if rc != 0 {
		// Every rank translates the same group: they fail together.
		return nil, res, &mpirank.Error{Code: mpirank.ErrMPI, Msg: fmt.Sprintf("MPI_Group_translate_ranks failed (MPI error %d)", int(rc))}
	}
	ranks := make([]int, n)
	for i, r := range perm {
		ranks[i] = int(r)
	}
	return mpi.NewCommunicator(ranks), res, nil
}
