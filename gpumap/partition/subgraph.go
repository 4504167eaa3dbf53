package partition

import "github.com/gpumap/gpumap/gpumap/graph"

// Sub is an induced subgraph together with the ids of its vertices in the
// parent graph.
type Sub struct {
	G      *graph.Graph
	Global []int32
}

// Split builds the k subgraphs induced by the blocks of part in one pass.
func Split(g *graph.Graph, part []int32, k int) []Sub {
	n := g.N()
	local := make([]int32, n)
	count := make([]int32, k)
	deg := make([]int64, k)
	for v := 0; v < n; v++ {
		b := part[v]
		local[v] = count[b]
		count[b]++
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if part[g.Adj[e]] == b {
				deg[b]++
			}
		}
	}
	ews := make([][]int64, k)
	for b := range ews {
		ews[b] = make([]int64, 0, deg[b])
	}
	subs := make([]Sub, k)
	for b := range subs {
		subs[b] = Sub{
			G: &graph.Graph{XAdj: make([]int64, 1, count[b]+1), Adj: make([]int32, 0, deg[b]),
				VW: make([]int64, 0, count[b])},
			Global: make([]int32, 0, count[b]),
		}
	}
	for v := 0; v < n; v++ {
		b := part[v]
		s := &subs[b]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; part[u] == b {
				s.G.Adj = append(s.G.Adj, local[u])
				ews[b] = append(ews[b], g.W(e))
			}
		}
		s.G.XAdj = append(s.G.XAdj, int64(len(s.G.Adj)))
		s.G.VW = append(s.G.VW, g.VW[v])
		s.Global = append(s.Global, int32(v))
	}
	for b := range subs {
		subs[b].G.SetEdgeWeights(ews[b])
	}
	return subs
}
