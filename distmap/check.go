package distmap

import (
	"fmt"
	"slices"
	"sort"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// check validates a user's distributed graph (collective; every rank
// returns the same error): no vertex lists a neighbour twice, every edge
// is listed by both endpoints' owners with the same weight, and the
// vertex and edge weights sum within gpumap's limits. Each rank sorts its
// vertices' neighbours by global id and sends every edge to the owner
// of its other endpoint, which looks it up there.
func check(g *Graph) error {
	n := g.N()
	key := func(e int64) int64 { return g.global(g.Adj[e]) }
	var bad error
	for v := range n {
		lo, hi := g.XAdj[v], g.XAdj[v+1]
		idx := make([]int64, hi-lo)
		for i := range idx {
			idx[i] = lo + int64(i)
		}
		slices.SortFunc(idx, func(a, b int64) int { return cmp64(key(a), key(b)) })
		adj, w := make([]int32, len(idx)), make([]int64, len(idx))
		for i, e := range idx {
			adj[i], w[i] = g.Adj[e], g.W[e]
		}
		copy(g.Adj[lo:hi], adj)
		copy(g.W[lo:hi], w)
		for e := lo + 1; e < hi && bad == nil; e++ {
			if g.Adj[e] == g.Adj[e-1] {
				bad = fmt.Errorf("vertex %d: duplicate edge to neighbour %d", g.First()+int64(v)+g.base, key(e)+g.base)
			}
		}
	}
	if err := agree(g.c, bad); err != nil {
		return err
	}
	// find returns the weight of v's edge to global vertex u, or -1.
	find := func(v int, u int64) int64 {
		lo, hi := g.XAdj[v], g.XAdj[v+1]
		i := lo + int64(sort.Search(int(hi-lo), func(i int) bool { return key(lo+int64(i)) >= u }))
		if i < hi && key(i) == u {
			return g.W[i]
		}
		return -1
	}
	// Edges with one end here are checked here, the others by the owner.
	var out []int64
	off := make([]int64, g.size+1)
	type rev struct{ to, from, w int64 }
	var revs []rev
	for v := range n {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			x := rev{key(e), g.First() + int64(v), g.W[e]}
			if int(g.Adj[e]) < n {
				if bad == nil {
					bad = symmetric(find(int(x.to-g.First()), x.from), x, g.base)
				}
				continue
			}
			revs = append(revs, x)
		}
	}
	slices.SortFunc(revs, func(a, b rev) int { return cmp64(a.to, b.to) })
	for _, x := range revs {
		out = append(out, x.to, x.from, x.w)
	}
	for r := 0; r < g.size; r++ {
		off[r+1] = 3 * int64(sort.Search(len(revs), func(i int) bool { return revs[i].to >= g.VtxDist[r+1] }))
	}
	got, _, err := mpi.Alltoallv(g.c, out, off, g.size)
	if err != nil {
		return err
	}
	for i := 0; i+2 < len(got) && bad == nil; i += 3 {
		x := rev{got[i], got[i+1], got[i+2]}
		bad = symmetric(find(int(x.to-g.First()), x.from), x, g.base)
	}
	if err := agree(g.c, bad); err != nil {
		return err
	}
	// The weight sums, saturated per rank and summed as floats.
	var vs, es int64
	for _, x := range g.VW {
		vs = satAdd(vs, x, graph.MaxTotalVertexWeight+1)
	}
	for _, x := range g.W {
		es = satAdd(es, x, 2*graph.MaxTotalEdgeWeight+2)
	}
	sums := []float64{float64(vs), float64(es) / 2}
	if err := mpi.Allreduce(g.c, sums, mpi.Sum); err != nil {
		return err
	}
	switch {
	case sums[0] > graph.MaxTotalVertexWeight:
		return fmt.Errorf("the vertex weights sum to more than %d (2^61), the limit of c(V)", int64(graph.MaxTotalVertexWeight))
	case sums[1] > graph.MaxTotalEdgeWeight:
		return fmt.Errorf("the edge weights sum to more than %d (2^61), the limit of the total edge weight", int64(graph.MaxTotalEdgeWeight))
	}
	return nil
}

// symmetric checks the reverse of the edge from x.from to x.to, whose
// weight at x.to is w (-1: not listed). Vertices are named from base: 1
// for a file, as its lines do, 0 for arrays.
func symmetric(w int64, x struct{ to, from, w int64 }, base int64) error {
	switch {
	case w < 0:
		return fmt.Errorf("asymmetric edge: vertex %d lists neighbour %d, but vertex %d does not list %d",
			x.from+base, x.to+base, x.to+base, x.from+base)
	case w != x.w:
		return fmt.Errorf("asymmetric edge weight: vertex %d gives edge to %d weight %d, but vertex %d gives it weight %d",
			x.from+base, x.to+base, x.w, x.to+base, w)
	}
	return nil
}

// satAdd returns min(a+b, limit) for 0 <= a <= limit, 0 <= b, limit < 2^62.
func satAdd(a, b, limit int64) int64 {
	if b >= limit-a {
		return limit
	}
	return a + b
}
