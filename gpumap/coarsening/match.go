package coarsening

import (
	"math/rand/v2"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Unmatched marks a vertex without partner in a matching array before it is
// finalised; finished matchings map unmatched vertices to themselves.
const Unmatched = -1

// chunk is the number of consecutive ids that Greedy and Cluster visit
// in id order, the blocks of them in a random order (visitBlocks).
const chunk = 64

// visitBlocks is the order in which Greedy and Cluster visit the blocks
// of chunk consecutive ids of n vertices: shuffled by a generator of seed
// and stream, or in id order where natural.
func visitBlocks(n int, seed, stream uint64, natural bool) []int32 {
	blocks := make([]int32, (n+chunk-1)/chunk)
	for i := range blocks {
		blocks[i] = int32(i)
	}
	if !natural {
		rng := rand.New(rand.NewPCG(seed, stream))
		rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	}
	return blocks
}

// Greedy computes a matching by visiting the vertices in a random order
// (drawn from seed; blocks of 64 consecutive vertices are shuffled, which
// keeps the memory locality of the input numbering) and pairing each unmatched vertex with its unmatched
// neighbour of highest rating, subject to c(u)+c(v) <= maxWeight. The
// result maps every vertex to its partner or to itself.
//
// When block is not nil only vertices of the same block are matched (a
// V-cycle coarsens a graph without destroying its mapping). With natural
// set, vertices are visited in id order and equal ratings go to the lowest
// id: on inputs numbered with locality (stencils, most meshes) this
// coarsens regularly, so coarse graphs keep the straight cuts of the input.
//
// It is sequential: matching a large graph in independent segments (in
// parallel, the same result for any thread count) was measured at 2^20
// vertices to make the split of the whole machine's node-level cut 20%
// larger (J +8% to +14% on rgg), the order of the visits matters.
// Coarsen's natural-order matching of large graphs gets the same result on
// two threads (greedyNatural: a speculative second half and a repair).
// The random order has no such shortcut: an exact schedule of the chunks
// on two threads (each chunk waiting for the chunks within two steps of
// it in the chunk graph that the order visits first) was measured on a
// 2^18-vertex rgg and 3D grid. Building the chunk graph cost about half
// of the matching's CPU time, and two threads took 0.9-1.03x the
// sequential matching's time on the rgg and 1.0-1.4x on the grid.
func Greedy(g *graph.Graph, maxWeight int64, seed uint64, block []int32, natural bool) []int32 {
	n := g.N()
	match := make([]int32, n)
	for i := range match {
		match[i] = Unmatched
	}
	blocks := visitBlocks(n, seed, 0x6d61746368, natural)
	for _, b := range blocks {
		for v := b * chunk; v < min(b*chunk+chunk, int32(n)); v++ {
			if match[v] != Unmatched {
				continue
			}
			cv := g.VW[v]
			best, bestR, bestH := int32(-1), -1.0, uint64(0)
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				u := g.Adj[e]
				if match[u] != Unmatched || cv+g.VW[u] > maxWeight || block != nil && block[u] != block[v] {
					continue
				}
				r := rating(g.W(e), cv, g.VW[u])
				if r >= bestR {
					h := uint64(^uint32(u)) // lowest id first
					if !natural {
						h = pairNoise(seed, v, u)
					}
					if better(r, h, bestR, bestH) {
						best, bestR, bestH = u, r, h
					}
				}
			}
			if best >= 0 {
				match[v], match[best] = best, v
			} else {
				match[v] = v
			}
		}
	}
	return match
}

// TwoHopConfig tunes TwoHop.
type TwoHopConfig struct {
	MaxWeight int64   // cap on c(u)+c(v)
	Seed      uint64  // noise seed
	Rounds    int     // mutual-preference rounds (0: 8)
	Target    float64 // matched fraction after which two-hop matching is skipped (0: 0.75)
}

// TwoHop is the data-parallel matching of the GPU process-mapping paper
// (after Jet and mt-Metis): rounds in which every unmatched vertex names its
// best-rated unmatched neighbour and mutual choices are matched, followed,
// when too few vertices are matched, by matching unmatched leaves, twins
// and relatives that share a neighbour. Deterministic for any thread count.
func TwoHop(x *par.Exec, g *graph.Graph, cfg TwoHopConfig) []int32 {
	n := g.N()
	rounds, target := cfg.Rounds, cfg.Target
	if rounds <= 0 {
		rounds = 8
	}
	if target <= 0 {
		target = 0.75
	}
	match := make([]int32, n)
	pref := make([]int32, n)
	for i := range match {
		match[i] = Unmatched
	}
	matched := 0
	for r := 0; r < rounds; r++ {
		seed := cfg.Seed + uint64(r)*0x9e37
		x.For(n, func(_, lo, hi int) {
			for v := int32(lo); v < int32(hi); v++ {
				pref[v] = -1
				if match[v] != Unmatched {
					continue
				}
				cv := g.VW[v]
				bestR, bestH := -1.0, uint64(0)
				for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
					u := g.Adj[e]
					if match[u] != Unmatched || cv+g.VW[u] > cfg.MaxWeight {
						continue
					}
					rt := rating(g.W(e), cv, g.VW[u])
					if rt >= bestR {
						if h := pairNoise(seed, v, u); better(rt, h, bestR, bestH) {
							pref[v], bestR, bestH = u, rt, h
						}
					}
				}
			}
		})
		newly := x.SumInt64(n, func(lo, hi int) int64 {
			c := int64(0)
			for v := int32(lo); v < int32(hi); v++ {
				if u := pref[v]; u >= 0 && pref[u] == v {
					match[v] = u
					c++
				}
			}
			return c
		})
		matched += int(newly)
		if newly == 0 || float64(matched) >= target*float64(n) {
			break
		}
	}
	if float64(matched) < target*float64(n) {
		twoHop(g, match, cfg)
	}
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if match[v] == Unmatched {
				match[v] = int32(v)
			}
		}
	})
	return match
}

// twoHop pairs unmatched vertices through a common neighbour: first leaves
// (degree one) hanging off the same vertex, then twins (equal
// neighbourhoods, found by hashing), then relatives that share their
// heaviest neighbour (the "matchmaker").
func twoHop(g *graph.Graph, match []int32, cfg TwoHopConfig) {
	n := g.N()
	pairUp := func(key func(v int32) int64) {
		// Group unmatched vertices by key (stable, so deterministic) and
		// match consecutive members whose weights fit.
		var vs []int32
		var keys []int64
		for v := int32(0); v < int32(n); v++ {
			if match[v] == Unmatched {
				if k := key(v); k >= 0 {
					vs = append(vs, v)
					keys = append(keys, k)
				}
			}
		}
		idx := make([]int, len(vs))
		for i := range idx {
			idx[i] = i
		}
		sortStableBy(idx, func(a, b int) bool { return keys[a] < keys[b] })
		for i := 0; i+1 < len(idx); {
			a, b := idx[i], idx[i+1]
			if keys[a] == keys[b] && g.VW[vs[a]]+g.VW[vs[b]] <= cfg.MaxWeight {
				match[vs[a]], match[vs[b]] = vs[b], vs[a]
				i += 2
			} else {
				i++
			}
		}
	}
	// Leaves: key = their only neighbour.
	pairUp(func(v int32) int64 {
		if g.Degree(v) == 1 {
			return int64(g.Adj[g.XAdj[v]])
		}
		return -1
	})
	// Twins: key = hash of the sorted neighbourhood (collisions are checked
	// by degree only; a false twin is still a valid, if weaker, match).
	pairUp(func(v int32) int64 {
		d := g.Degree(v)
		if d == 0 {
			return -1
		}
		var h uint64
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			h += hash.Splitmix64(uint64(g.Adj[e]) + 1) // order independent
		}
		return int64((h ^ uint64(d)<<56) >> 1)
	})
	// Relatives: key = heaviest neighbour.
	pairUp(func(v int32) int64 {
		best, bw := int64(-1), int64(-1)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if w := g.W(e); w > bw {
				best, bw = int64(g.Adj[e]), w
			}
		}
		return best
	})
}
