package refinement

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// rebalanceOrder gives the order the stable sort of the id-ordered
// candidates by (block, bucket) gives, which the GPU's bucket kernels and
// every mapping follow; few blocks and buckets make ties the rule (the
// counting sort), many blocks and few candidates take the comparison sort.
func TestRebalanceOrderIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 200; trial++ {
		n, k := 1+rng.IntN(3000), 1+rng.IntN(6)
		if trial%2 == 1 { // many blocks, few candidates: the comparison sort
			n, k = 1+rng.IntN(60), 1+rng.IntN(400)
		}
		part := make([]int32, n)
		bk := make([]int, n)
		cand := make([]bool, n)
		for v := range part {
			part[v], bk[v], cand[v] = int32(rng.IntN(k)), rng.IntN(4), rng.IntN(3) > 0
		}
		bucket := func(v int32) int { return bk[v] }
		var want []int32
		for v := range cand {
			if cand[v] {
				want = append(want, int32(v))
			}
		}
		sort.SliceStable(want, func(a, b int) bool {
			u, v := want[a], want[b]
			if part[u] != part[v] {
				return part[u] < part[v]
			}
			return bucket(u) < bucket(v)
		})
		if got := rebalanceOrder(part, cand, bucket); !slices.Equal(got, want) {
			t.Fatalf("trial %d: order differs from the stable sort", trial)
		}
	}
}

// BenchmarkSelectRebalance: 2^16 vertices in 192 blocks, a third of them
// candidates with gains of every sign.
func BenchmarkSelectRebalance(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, k = 1 << 16, 192
	part, dest := make([]int32, n), make([]int32, n)
	vw, gain := make([]int64, n), make([]int64, n)
	cand := make([]bool, n)
	bw, maxW := make([]int64, k), make([]int64, k)
	for v := range part {
		part[v], dest[v], vw[v] = int32(rng.IntN(k)), int32(rng.IntN(k)), 1
		gain[v], cand[v] = rng.Int64N(2001)-1000, rng.IntN(3) == 0
		bw[part[v]]++
	}
	for i := range maxW {
		maxW[i] = n / k
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		SelectRebalance(part, vw, bw, maxW, cand, dest, gain, false, 0)
	}
}
