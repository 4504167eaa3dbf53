package coarsening

import (
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// TestNeighbourSetsAreLinePrivate: a contraction's threads each update
// their own neighbour set per coarse edge; two sets on one cache line made
// addEdges take 50% more CPU on two threads than on one.
func TestNeighbourSetsAreLinePrivate(t *testing.T) {
	a, b := getNeighbourSet[int32](), getNeighbourSet[int32]()
	if par.SharesLine(unsafe.Pointer(a), unsafe.Sizeof(*a), unsafe.Pointer(b), unsafe.Sizeof(*b)) {
		t.Fatal("two neighbour sets share a cache line")
	}
}
