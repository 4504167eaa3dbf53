package coarsening

import (
	"github.com/gpumap/gpumap/gpumap/graph"
)

// attachSingles turns a matching into groups of at most three: every
// vertex the matching left alone joins the pair of its best-rated
// neighbour (exp*2 against the pair's weight) where the sum fits
// maxWeight and that pair has taken no other vertex yet. It returns the
// labels (the lowest member of each group) for ClusterMap, and how many
// vertices joined a pair.
func attachSingles(g *graph.Graph, match []int32, maxWeight int64, seed uint64, block []int32) (label []int32, joined int) {
	n := g.N()
	label = make([]int32, n)
	for v := range label {
		label[v] = min(int32(v), match[v])
	}
	taken := make([]bool, n) // by the pair's lowest member
	for v := int32(0); v < int32(n); v++ {
		if match[v] != v {
			continue
		}
		cv := g.VW[v]
		best, bestR, bestH := int32(-1), -1.0, uint64(0)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			p := match[u]
			if p == u || block != nil && block[u] != block[v] {
				continue
			}
			l := label[u]
			if taken[l] {
				continue
			}
			cp := g.VW[u] + g.VW[p]
			if cp+cv > maxWeight {
				continue
			}
			r := rating(g.W(e), cv, cp)
			if r >= bestR {
				if h := pairNoise(seed, v, u); better(r, h, bestR, bestH) {
					best, bestR, bestH = l, r, h
				}
			}
		}
		if best >= 0 {
			taken[best] = true
			label[v] = best
			joined++
		}
	}
	return label, joined
}
