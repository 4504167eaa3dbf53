//go:build !mpich

package gompi_test

import (
	"fmt"
	"os"
	"runtime"

	"github.com/gpumap/gpumap/mpirank/gompi"
	mpi "github.com/sbromberger/gompi"
)

func init() { runtime.LockOSThread() } // MPI from the main thread only

// A ring of ranks that send 1 MiB to each neighbour, reordered so that
// ring neighbours share sockets and nodes. Run the program with mpirun;
// example/main.go is a complete halo exchange.
func Example() {
	mpi.Start(false)
	defer mpi.Stop()
	rank, size := mpi.WorldRank(), mpi.WorldSize()
	next, prev := int32((rank+1)%size), int32((rank+size-1)%size)
	comm, res, err := gompi.Reorder([]int32{next, prev}, []float64{1 << 20, 1 << 20}, gompi.DefaultOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpumap:", err) // the same error on every rank
		mpi.NewCommunicator(nil).Abort(1)
	}
	if comm.Rank() == 0 {
		fmt.Printf("J %.0f -> %.0f on %s\n", res.JBefore, res.JAfter, res.Machine)
	}
	// From here on, task t of the ring is played by rank t of comm.
}
