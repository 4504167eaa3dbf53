package graph

// Permute returns the graph with vertex v renamed to perm[v] (perm must be
// a permutation of 0..n-1). Neighbour lists keep their relative order.
func Permute(g *Graph, perm []int32) *Graph {
	n := g.N()
	inv := make([]int32, n)
	for v, p := range perm {
		inv[p] = int32(v)
	}
	h := &Graph{XAdj: make([]int64, n+1), Adj: make([]int32, len(g.Adj)), EW: make([]int64, len(g.EW)), VW: make([]int64, n)}
	off := int64(0)
	for nv := 0; nv < n; nv++ {
		v := inv[nv]
		h.VW[nv] = g.VW[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			h.Adj[off] = perm[g.Adj[e]]
			h.EW[off] = g.EW[e]
			off++
		}
		h.XAdj[nv+1] = off
	}
	return h
}

// BFSOrder returns a breadth-first numbering (Cuthill–McKee without the
// degree sort) started from a pseudo-peripheral vertex of every component:
// perm[v] is v's new id. Neighbouring vertices get nearby ids, which is
// what the natural-order matching of the coarsening relies on.
func BFSOrder(g *Graph) []int32 {
	n := g.N()
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = -1
	}
	queue := make([]int32, 0, n)
	seen := make([]int32, n) // BFS stamp for the peripheral search
	stamp := int32(0)
	next := int32(0)
	for root := 0; root < n; root++ {
		if perm[root] >= 0 {
			continue
		}
		// Two sweeps to find a far vertex of this component.
		start := int32(root)
		for pass := 0; pass < 2; pass++ {
			stamp++
			q := append(queue[:0], start)
			seen[start] = stamp
			for i := 0; i < len(q); i++ {
				x := q[i]
				for e := g.XAdj[x]; e < g.XAdj[x+1]; e++ {
					if u := g.Adj[e]; seen[u] != stamp {
						seen[u] = stamp
						q = append(q, u)
					}
				}
			}
			start = q[len(q)-1]
			queue = q
		}
		q := append(queue[:0], start)
		perm[start] = next
		next++
		for i := 0; i < len(q); i++ {
			x := q[i]
			for e := g.XAdj[x]; e < g.XAdj[x+1]; e++ {
				if u := g.Adj[e]; perm[u] < 0 {
					perm[u] = next
					next++
					q = append(q, u)
				}
			}
		}
		queue = q
	}
	return perm
}
