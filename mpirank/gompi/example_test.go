//go:build !mpich

package gompi_test

import (
	"fmt"
	"os"
	"runtime"
	"slices"

	"github.com/gpumap/gpumap/mpirank/gompi"
	mpi "github.com/sbromberger/gompi"
)

func init() { runtime.LockOSThread() } // MPI from the main thread only

// A ring of ranks that send 1 MiB to each neighbour, reordered so that
// ring neighbours share sockets and nodes. Run the program with mpirun;
// example/main.go is a complete halo exchange. Run alone, as go test runs
// this example, it is a ring of one rank, which has no neighbours.
func Example() {
	mpi.Start(false)
	defer mpi.Stop()
	rank, size := mpi.WorldRank(), mpi.WorldSize()
	var neighbors []int32
	for _, nb := range []int{(rank + 1) % size, (rank + size - 1) % size} {
		if nb != rank && !slices.Contains(neighbors, int32(nb)) {
			neighbors = append(neighbors, int32(nb))
		}
	}
	volumes := make([]float64, len(neighbors))
	for i := range volumes {
		volumes[i] = 1 << 20
	}
	comm, res, err := gompi.Reorder(neighbors, volumes, gompi.DefaultOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpumap:", err) // the same error on every rank
		mpi.NewCommunicator(nil).Abort(1)
	}
	// From here on, task t of the ring is played by rank t of comm.
	if comm.Rank() == 0 {
		fmt.Printf("%d rank(s), J %.0f -> %.0f\n", comm.Size(), res.JBefore, res.JAfter)
	}
	// Output:
	// 1 rank(s), J 0 -> 0
}
