package distmap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// shuffledBlocks is a permutation that visits each block of size
// consecutive ids before the next (the cache locality the clustering
// relies on), is drawn from the seed alone, and is rng.Perm itself where
// one block holds every id or there are no blocks (size 0: small graphs
// and graphs without locality keep their clusterings).
func TestShuffledBlocks(t *testing.T) {
	for _, c := range []struct{ n, size int }{{0, 4}, {1, 4}, {4, 4}, {5, 4}, {17, 4}, {100, 7}, {1000, 1000}, {3000, 1 << 10}, {50, 0}} {
		got := shuffledBlocks(rand.New(rand.NewPCG(3, 9)), c.n, c.size)
		if len(got) != c.n {
			t.Fatalf("n=%d size=%d: %d ids", c.n, c.size, len(got))
		}
		seen := make([]bool, c.n)
		for _, v := range got {
			if v < 0 || int(v) >= c.n || seen[v] {
				t.Fatalf("n=%d size=%d: not a permutation: %v", c.n, c.size, got)
			}
			seen[v] = true
		}
		// Each block's ids form one run of the order.
		for i := 0; c.size > 0 && i < c.n; {
			b := int(got[i]) / c.size
			run := min(c.n, b*c.size+c.size) - b*c.size
			for j := i; j < i+run; j++ {
				if int(got[j])/c.size != b {
					t.Fatalf("n=%d size=%d: position %d holds id %d inside block %d's run", c.n, c.size, j, got[j], b)
				}
			}
			i += run
		}
		again := shuffledBlocks(rand.New(rand.NewPCG(3, 9)), c.n, c.size)
		if !slices.Equal(got, again) {
			t.Fatalf("n=%d size=%d: two draws from one seed differ", c.n, c.size)
		}
		if c.n <= c.size || c.size <= 0 {
			want := rand.New(rand.NewPCG(3, 9)).Perm(c.n)
			for i, v := range want {
				if int(got[i]) != v {
					t.Fatalf("n=%d size=%d: one block is not rng.Perm(n): %v, want %v", c.n, c.size, got, want)
				}
			}
		}
	}
}

// shuffledBlocks draws, block for block, the permutations that rng.Perm
// draws (appendPerm replays Perm's shuffle in place): the clusterings,
// and so the mappings, stay those of the blocks drawn by Perm.
func TestShuffledBlocksArePerms(t *testing.T) {
	for _, c := range []struct{ n, size int }{{5, 4}, {17, 4}, {100, 7}, {3000, 1 << 10}, {1 << 16, 1 << 14}, {70001, 1 << 14}} {
		rng := rand.New(rand.NewPCG(11, 2))
		var want []int32
		blocks := (c.n + c.size - 1) / c.size
		for _, b := range rng.Perm(blocks) {
			lo, hi := b*c.size, min(b*c.size+c.size, c.n)
			for _, i := range rng.Perm(hi - lo) {
				want = append(want, int32(lo+i))
			}
		}
		if got := shuffledBlocks(rand.New(rand.NewPCG(11, 2)), c.n, c.size); !slices.Equal(got, want) {
			t.Fatalf("n=%d size=%d: the order differs from rng.Perm's blocks", c.n, c.size)
		}
	}
}
