package coarsening

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// attachSingles lets every vertex that the matching left alone join the
// pair of its best-rated neighbour (exp*2 against the pair's weight;
// ties by pairNoise) where the three fit maxWeight and that pair has
// taken no other vertex yet, visiting the single vertices in id order.
// It returns, per pair's lower member, the vertex that joined it (-1:
// none), how many joined, and whether pairNoise broke a tie between two
// distinct pairs for a vertex's choice (tied: the result depends on seed;
// without such a tie it is the same for every seed).
//
// Matching more than pairs, as clustering does, costs the roads J where
// coarse vertices near the weight cap stall (see Config.Stall); a single
// vertex joining a pair is the smallest step from a matching.
func attachSingles(g *graph.Graph, match []int32, maxWeight int64, seed uint64, block []int32) (joiner []int32, joined int, tied bool) {
	n := g.N()
	joiner = make([]int32, n)
	for v := range joiner {
		joiner[v] = -1
	}
	for v := int32(0); v < int32(n); v++ {
		if match[v] != v {
			continue
		}
		cv := g.VW[v]
		best, bestR, bestH := int32(-1), -1.0, uint64(0)
		tie := false // another pair than best is rated bestR
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			p := match[u]
			if p == u || block != nil && block[u] != block[v] {
				continue
			}
			l := min(u, p)
			if joiner[l] >= 0 {
				continue
			}
			cp := g.VW[u] + g.VW[p]
			if cp+cv > maxWeight {
				continue
			}
			r := rating(g.W(e), cv, cp)
			if r >= bestR {
				if r == bestR && l != best {
					tie = true
				} else if r > bestR {
					tie = false
				}
				if h := pairNoise(seed, v, u); better(r, h, bestR, bestH) {
					best, bestR, bestH = l, r, h
				}
			}
		}
		if best >= 0 {
			joiner[best] = v
			joined++
			tied = tied || tie
		}
	}
	return joiner, joined, tied
}

// attachMap numbers the groups of a matching with the vertices that
// joined its pairs (attachSingles) as ClusterMap numbers a clustering:
// coarse vertices in increasing order of their lowest member, members in
// increasing order. A group holds at most three vertices, so each is
// numbered from its pair's lower member on x's threads, where
// ClusterMap's four sequential passes took 6% of HM's CPU on a 300k-vertex
// road graph.
func attachMap(x *par.Exec, match, joiner []int32) (cmap []int32, gr Groups) {
	n := len(match)
	// group is the lower member of v's pair (v when single) and names
	// the group; joinedTo is the group a single vertex joined (-1: none).
	group := func(v int32) int32 { return min(v, match[v]) }
	joinedTo := make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			joinedTo[v] = -1
		}
	})
	x.For(n, func(_, lo, hi int) {
		for l := lo; l < hi; l++ {
			if j := joiner[l]; j >= 0 {
				joinedTo[j] = int32(l)
			}
		}
	})
	// lowest is the lowest member of the group named l.
	lowest := func(l int32) int32 {
		if j := joiner[l]; j >= 0 && j < l {
			return j
		}
		return l
	}
	id := make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for v := int32(lo); v < int32(hi); v++ {
			id[v] = 0
			if l := joinedTo[v]; l < 0 && group(v) == v && lowest(v) == v || l >= 0 && v < l {
				id[v] = 1
			}
		}
	})
	nc := par.ExclusiveScan(x, id)
	gr.Leaders = make([]int32, nc)
	size := make([]int64, nc+1)
	cmap = make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for v := int32(lo); v < int32(hi); v++ {
			if joinedTo[v] >= 0 {
				continue // numbered with the group it joined
			}
			l := group(v)
			c := id[lowest(l)]
			cmap[v] = c
			if l == v {
				if j := joiner[l]; j >= 0 {
					cmap[j] = c
				}
				s := int64(1)
				if match[l] != l {
					s++
				}
				if joiner[l] >= 0 {
					s++
				}
				size[c] = s
				gr.Leaders[c] = lowest(l)
			}
		}
	})
	par.ExclusiveScan(x, size)
	gr.first = size
	gr.members = make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for l := int32(lo); l < int32(hi); l++ {
			if joinedTo[l] >= 0 || group(l) != l {
				continue
			}
			m := gr.members[gr.first[id[lowest(l)]]:]
			k := 0
			put := func(v int32) { m[k] = v; k++ }
			j, p := joiner[l], match[l]
			// l < p, so the three are ordered by where j falls.
			if j >= 0 && j < l {
				put(j)
			}
			put(l)
			if j >= 0 && j > l && (p == l || j < p) {
				put(j)
			}
			if p != l {
				put(p)
			}
			if j >= 0 && p != l && j > p {
				put(j)
			}
		}
	})
	return cmap, gr
}
