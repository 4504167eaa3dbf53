package distmap

import (
	"slices"
	"sort"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// level is one contraction: the coarse graph and, for every local vertex
// of the finer graph, the global id of its coarse vertex.
type level struct {
	coarse *Graph
	up     []int64
}

// arc is a coarse edge, or a coarse vertex's weight (b < 0), on its way
// to the owner of a.
type arc struct{ a, b, w int64 }

// merge sorts arcs by (a, b) and adds up the weights of equal pairs; the
// result depends on the multiset of arcs only.
func merge(arcs []arc) []arc {
	slices.SortFunc(arcs, func(x, y arc) int {
		if x.a != y.a {
			return cmp64(x.a, y.a)
		}
		return cmp64(x.b, y.b)
	})
	out := arcs[:0]
	for _, x := range arcs {
		if k := len(out) - 1; k >= 0 && out[k].a == x.a && out[k].b == x.b {
			out[k].w += x.w
			continue
		}
		out = append(out, x)
	}
	return out
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// contract builds the coarse graph of the clusters label (of the local
// vertices and ghosts, as cluster returns them): cluster l becomes a
// coarse vertex owned by the owner of global vertex l, numbered in the
// order of the cluster labels. Collective.
func contract(g *Graph, label []int64) (*level, error) {
	c, size := g.c, g.size
	// Ask the owners of the clusters in sight for their coarse ids.
	seen := slices.Clone(label)
	slices.Sort(seen)
	seen = slices.Compact(seen)
	off := make([]int64, size+1)
	for r := 0; r < size; r++ {
		off[r+1] = int64(sort.Search(len(seen), func(i int) bool { return seen[i] >= g.VtxDist[r+1] }))
	}
	req, reqOff, err := mpi.Alltoallv(c, seen, off, size)
	if err != nil {
		return nil, err
	}
	// Every cluster in sight of some rank has a member, so the union of
	// the requests is the set of clusters this rank owns.
	mine := slices.Clone(req)
	slices.Sort(mine)
	mine = slices.Compact(mine)
	first, err := mpi.Scan(c, []int64{int64(len(mine))}, mpi.Sum, true)
	if err != nil {
		return nil, err
	}
	for i, l := range req {
		k, _ := slices.BinarySearch(mine, l)
		req[i] = first[0] + int64(k)
	}
	ids, _, err := mpi.Alltoallv(c, req, reqOff, size)
	if err != nil {
		return nil, err
	}
	coarseOf := func(l int64) int64 {
		k, _ := slices.BinarySearch(seen, l)
		return ids[k]
	}
	counts, err := mpi.Allgather(c, []int64{int64(len(mine))}, size)
	if err != nil {
		return nil, err
	}
	vtxdist := make([]int64, size+1)
	for r, x := range counts {
		vtxdist[r+1] = vtxdist[r] + x
	}
	// Coarse arcs and weights, merged here first, then at their owners.
	n := g.N()
	cl := make([]int64, len(label))
	for v, l := range label {
		cl[v] = coarseOf(l)
	}
	// Sized exactly: at 24 bytes an arc, this is the largest array of a
	// contraction (guessing half the edges cross would reserve 12 bytes
	// per stored edge, about what the graph itself takes).
	cut := 0
	for v := range n {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if cl[g.Adj[e]] != cl[v] {
				cut++
			}
		}
	}
	arcs := make([]arc, 0, n+cut)
	for v := range n {
		a := cl[v]
		arcs = append(arcs, arc{a, -1, g.VW[v]})
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if b := cl[g.Adj[e]]; b != a {
				arcs = append(arcs, arc{a, b, g.W(e)})
			}
		}
	}
	arcs = merge(arcs)
	flat := make([]int64, 0, 3*len(arcs))
	aoff := make([]int64, size+1)
	for r := 0; r < size; r++ {
		aoff[r+1] = 3 * int64(sort.Search(len(arcs), func(i int) bool { return arcs[i].a >= vtxdist[r+1] }))
	}
	for _, x := range arcs {
		flat = append(flat, x.a, x.b, x.w)
	}
	got, _, err := mpi.Alltoallv(c, flat, aoff, size)
	if err != nil {
		return nil, err
	}
	arcs = arcs[:0]
	for i := 0; i+2 < len(got); i += 3 {
		arcs = append(arcs, arc{got[i], got[i+1], got[i+2]})
	}
	arcs = merge(arcs)
	lo := vtxdist[g.rank]
	nc := len(mine)
	xadj := make([]int64, nc+1)
	vw := make([]int64, nc)
	var adj, w []int64
	for _, x := range arcs {
		v := x.a - lo
		if x.b < 0 {
			vw[v] = x.w
			continue
		}
		adj = append(adj, x.b)
		w = append(w, x.w)
		xadj[v+1]++
	}
	for v := range nc {
		xadj[v+1] += xadj[v]
	}
	cg, err := build(c, vtxdist, xadj, adj, w, vw)
	if err != nil {
		return nil, err
	}
	return &level{coarse: cg, up: cl[:n]}, nil
}

// project returns the values of the fine vertices of lv given val of
// the local coarse vertices on every rank (collective).
func project[T mpi.Number](g *Graph, lv *level, val []T) ([]T, error) {
	cg := lv.coarse
	want := slices.Clone(lv.up)
	slices.Sort(want)
	want = slices.Compact(want)
	off := make([]int64, g.size+1)
	for r := 0; r < g.size; r++ {
		off[r+1] = int64(sort.Search(len(want), func(i int) bool { return want[i] >= cg.VtxDist[r+1] }))
	}
	req, reqOff, err := mpi.Alltoallv(g.c, want, off, g.size)
	if err != nil {
		return nil, err
	}
	ans := make([]T, len(req))
	for i, x := range req {
		ans[i] = val[x-cg.First()]
	}
	got, _, err := mpi.Alltoallv(g.c, ans, reqOff, g.size)
	if err != nil {
		return nil, err
	}
	out := make([]T, g.N())
	for v, x := range lv.up {
		k, _ := slices.BinarySearch(want, x)
		out[v] = got[k]
	}
	return out, nil
}
