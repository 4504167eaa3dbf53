package coarsening

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// CoarseMap numbers the coarse vertices of a matching: the smaller vertex of
// every pair (and every unmatched vertex) is a leader, leaders are numbered
// in increasing order, and cmap[v] is the coarse vertex of v. It returns
// cmap and the leaders (the first member of each coarse vertex).
func CoarseMap(x *par.Exec, match []int32) (cmap []int32, leaders []int32) {
	n := len(match)
	cmap = make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if int(match[v]) >= v {
				cmap[v] = 1
			} else {
				cmap[v] = 0
			}
		}
	})
	nc := par.ExclusiveScan(x, cmap)
	leaders = make([]int32, nc)
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if int(match[v]) >= v {
				leaders[cmap[v]] = int32(v)
			}
		}
	})
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if int(match[v]) < v {
				cmap[v] = cmap[match[v]]
			}
		}
	})
	return cmap, leaders
}

// Contract builds the coarse graph of a matching: coarse vertex c holds
// leaders[c] and its partner, with their weights summed; edges between
// coarse vertices are merged with weights summed and edges inside one are
// dropped. Neighbours appear in order of first occurrence, so the result is
// deterministic for any thread count.
func Contract(x *par.Exec, g *graph.Graph, match, cmap, leaders []int32) *graph.Graph {
	nc := len(leaders)
	chunks := x.Chunks(nc)
	type buf struct {
		adj []int32
		ew  []int64
	}
	bufs := make([]buf, chunks)
	deg := make([]int64, nc+1)
	vw := make([]int64, nc)
	x.For(nc, func(chunk, lo, hi int) {
		pos := make([]int32, nc) // pos[c']-1 = slot of c' in the current list
		// Capacity: the members' degrees bound the coarse degrees.
		bound := int64(0)
		for c := lo; c < hi; c++ {
			v := leaders[c]
			bound += g.XAdj[v+1] - g.XAdj[v]
			if u := match[v]; u != v {
				bound += g.XAdj[u+1] - g.XAdj[u]
			}
		}
		b := buf{adj: make([]int32, 0, bound), ew: make([]int64, 0, bound)}
		for c := lo; c < hi; c++ {
			start := len(b.adj)
			v := leaders[c]
			members := [2]int32{v, match[v]}
			cnt := 2
			if match[v] == v {
				cnt = 1
			}
			var w int64
			for _, u := range members[:cnt] {
				w += g.VW[u]
				for e := g.XAdj[u]; e < g.XAdj[u+1]; e++ {
					cu := cmap[g.Adj[e]]
					if int(cu) == c {
						continue
					}
					if p := pos[cu]; p > 0 {
						b.ew[start+int(p)-1] += g.W(e)
					} else {
						b.adj = append(b.adj, cu)
						b.ew = append(b.ew, g.W(e))
						pos[cu] = int32(len(b.adj) - start)
					}
				}
			}
			for _, cu := range b.adj[start:] {
				pos[cu] = 0
			}
			vw[c] = w
			deg[c] = int64(len(b.adj) - start)
		}
		bufs[chunk] = b
	})
	total := par.ExclusiveScan(x, deg[:nc])
	deg[nc] = total
	if chunks == 1 { // the single buffer already is the adjacency array
		cg := &graph.Graph{XAdj: deg, Adj: bufs[0].adj, VW: vw}
		cg.SetEdgeWeights(bufs[0].ew)
		return cg
	}
	adj := make([]int32, total)
	ew := make([]int64, total)
	x.For(nc, func(chunk, lo, hi int) {
		if lo == hi {
			return
		}
		off := deg[lo]
		copy(adj[off:], bufs[chunk].adj)
		copy(ew[off:], bufs[chunk].ew)
	})
	cg := &graph.Graph{XAdj: deg, Adj: adj, VW: vw}
	cg.SetEdgeWeights(ew)
	return cg
}

// Project maps a coarse assignment back to the finer graph:
// fine[v] = coarse[cmap[v]].
func Project(x *par.Exec, cmap []int32, coarse []int32, fine []int32) {
	x.For(len(cmap), func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			fine[v] = coarse[cmap[v]]
		}
	})
}
