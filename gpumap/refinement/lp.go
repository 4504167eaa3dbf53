package refinement

import "math/rand/v2"

// LabelPropagation runs size-constrained label propagation: vertices are
// visited in a seeded random order (shuffled blocks of 64 ids) and moved to
// the adjacent block of best positive gain that has room; zero-gain moves
// are taken when they make the source lighter than the target would be.
// It stops after rounds rounds or when a round moves fewer than n/1000
// vertices, and returns the cost reduction.
func LabelPropagation(s *State, rounds int, seed uint64) int64 {
	n := s.G.N()
	nb := newNbhd(s.K)
	const block = 64
	blocks := make([]int32, (n+block-1)/block)
	for i := range blocks {
		blocks[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c70))
	total := int64(0)
	for r := 0; r < rounds; r++ {
		rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
		moved := 0
		for _, b := range blocks {
			for v := b * block; v < min(b*block+block, int32(n)); v++ {
				if !s.IsBoundary(v) {
					continue
				}
				nb.load(s, v)
				t, gain := nb.bestMove(s, v, 0)
				if t < 0 {
					continue
				}
				p := s.Part[v]
				if gain > 0 || gain == 0 && s.BW[t]+s.G.VW[v] < s.BW[p] {
					s.Move(v, t)
					total += gain
					moved++
				}
			}
		}
		if moved <= n/1000 {
			break
		}
	}
	return total
}
