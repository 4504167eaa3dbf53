package distmap

import "math/rand/v2"

// orderBlock is the number of consecutive vertices that blockOrder visits
// together, as the one-process matching does (coarsening.Greedy).
const orderBlock = 64

// blockOrder returns a random order of 0..n-1 drawn from rng that visits
// blocks of orderBlock consecutive vertices in shuffled order, each block
// in id order: the order of the refinement's label propagation. A round
// touches each vertex's edges and its neighbours' PEs; in a uniformly
// random order every vertex's edges and neighbours are a cache miss on a
// rank's millions of vertices, while a block's lie mostly near each
// other where the numbering has locality (a generated rgg or grid, most
// meshes). On rgg 2^20 at P=2 the finest level's rounds took 0.17 s of
// CPU instead of 0.75 s, J +0.07%. The clustering visits larger blocks,
// each in a random order of its own (shuffledBlocks).
func blockOrder(rng *rand.Rand, n int) []int32 {
	blocks := (n + orderBlock - 1) / orderBlock
	order := make([]int32, 0, n)
	for _, b := range rng.Perm(blocks) {
		for v := b * orderBlock; v < min(b*orderBlock+orderBlock, n); v++ {
			order = append(order, int32(v))
		}
	}
	return order
}

// clusterBlock is the number of consecutive vertices that the
// clustering's label propagation visits together (shuffledBlocks).
const clusterBlock = 1 << 14

// shuffledBlocks returns a random order of 0..n-1 drawn from rng that
// visits blocks of size consecutive vertices in shuffled order, each
// block in a random order of its own; n <= size or size <= 0 gives
// rng.Perm(n) (a uniform order, where the numbering has no locality). The
// clustering's rounds visit every vertex, and in a uniformly random
// order each one's edges, its neighbours' labels and their clusters'
// weights are cache misses: on a 2^22 rgg at P=2 (2M vertices a rank)
// its four rounds on the input took 34 s of a run's 55 s of CPU (4.3 s
// a round on a rank, loaded machine). A block of 2^14 vertices and the
// labels of their neighbours lie mostly near each other where the
// numbering has locality, and stay in cache: 0.85 s a round, the run
// 29 s. Blocks in id order (8 to 64 vertices) had made J 1.5-9% larger
// on rgg 2^20 (clusters grow along the numbering); blocks of 2^14
// shuffled inside keep the clusters round: J on rgg 2^20 at P=2 for
// seeds 0, 1, 2 1.038, 0.986 and 1.034 M against 0.992, 1.019 and
// 1.033 M in the uniform order, and 2.53 M against 2.60 M on rgg 2^22.
func shuffledBlocks(rng *rand.Rand, n, size int) []int32 {
	order := make([]int32, 0, n)
	if n <= size || size <= 0 {
		// One block: the uniform order and its stream of draws, as
		// before blocks.
		return appendPerm(rng, order, 0, n)
	}
	blocks := (n + size - 1) / size
	for _, b := range rng.Perm(blocks) {
		lo, hi := b*size, min(b*size+size, n)
		order = appendPerm(rng, order, lo, hi-lo)
	}
	return order
}

// appendPerm appends lo+p[0], ..., lo+p[n-1] to order, where p is
// rng.Perm(n) (the same draws, so the same permutation): in place, with
// no []int per block and no swap closure (Perm and its copy were 0.64 s
// of 16.6 s of CPU over three P=2 runs on FLA, its profile).
func appendPerm(rng *rand.Rand, order []int32, lo, n int) []int32 {
	p := order[len(order) : len(order)+n]
	for i := range p {
		p[i] = int32(lo + i)
	}
	// rand.(*Rand).Shuffle's Fisher-Yates loop, draw for draw.
	for i := n - 1; i > 0; i-- {
		j := int(rng.Uint64N(uint64(i + 1)))
		p[i], p[j] = p[j], p[i]
	}
	return order[:len(order)+n]
}
