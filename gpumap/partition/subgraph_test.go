package partition

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// TestNewBlocksOnAnyThreads: the parallel index is the sequential one's
// (members by block, increasing within a block, and each vertex's index
// within its block) for any thread count, with empty blocks and more
// blocks than vertices per chunk.
func TestNewBlocksOnAnyThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 100, 3 * par.MinGrain, 5*par.MinGrain + 17} {
		g := graph.Grid(n)
		for _, k := range []int{1, 2, 4, 7, 3 * par.MinGrain} {
			part := make([]int32, n)
			for v := range part {
				part[v] = int32(rng.IntN(k))
				if k > 2 && part[v] == 1 {
					part[v] = 0 // block 1 stays empty
				}
			}
			// The index written out plainly.
			var members []int32
			local := make([]int32, n)
			first := make([]int32, k+1)
			for b := 0; b < k; b++ {
				for v, p := range part {
					if int(p) == b {
						local[v] = int32(len(members)) - first[b]
						members = append(members, int32(v))
					}
				}
				first[b+1] = int32(len(members))
			}
			for _, threads := range []int{1, 2, 3} {
				bs := NewBlocksOn(par.New(threads), g, part, k)
				if !slices.Equal(bs.first, first) || !slices.Equal(bs.members, members) || !slices.Equal(bs.local, local) {
					t.Fatalf("n=%d k=%d threads=%d: the index differs from the sequential one", n, k, threads)
				}
			}
		}
	}
}

// BenchmarkNewBlocks indexes 4 blocks of 2^20 vertices (the whole
// machine's split of 4:8:6); run with -cpu 1,2.
func BenchmarkNewBlocks(b *testing.B) {
	n := 1 << 20
	g := graph.Grid(n)
	part := make([]int32, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for v := range part {
		part[v] = int32(v*4/n+rng.IntN(2)) % 4
	}
	x := par.New(0)
	for b.Loop() {
		NewBlocksOn(x, g, part, 4)
	}
}
