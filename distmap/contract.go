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
	// Ask the owners of the clusters in sight for their coarse ids. The
	// labels in sight, sorted and distinct: those in this rank's range
	// (most of them) marked in an array, only the others sorted (sorting
	// and searching all of them, and the requests, was 15% of a
	// contraction on a road network).
	n := g.N()
	first := g.First()
	local := make([]bool, n)
	var far []int64
	for _, l := range label {
		if l >= first && l < first+int64(n) {
			local[l-first] = true
		} else {
			far = append(far, l)
		}
	}
	slices.Sort(far)
	far = slices.Compact(far)
	below, _ := slices.BinarySearch(far, first)
	seen := make([]int64, 0, len(far)+n)
	seen = append(seen, far[:below]...)
	for i, ok := range local {
		if ok {
			seen = append(seen, first+int64(i))
		}
	}
	seen = append(seen, far[below:]...)
	far = nil
	off := make([]int64, size+1)
	for r := 0; r < size; r++ {
		off[r+1] = int64(sort.Search(len(seen), func(i int) bool { return seen[i] >= g.VtxDist[r+1] }))
	}
	req, reqOff, err := mpi.Alltoallv(c, seen, off, size)
	if err != nil {
		return nil, err
	}
	// Every cluster in sight of some rank has a member, so the union of
	// the requests is the set of clusters this rank owns, numbered in
	// the order of their labels (rank[l-first]: requested labels below l).
	clear(local)
	for _, l := range req {
		local[l-first] = true
	}
	rank := make([]int32, n)
	nc := 0
	for i, ok := range local {
		rank[i] = int32(nc)
		if ok {
			nc++
		}
	}
	local = nil
	start, err := mpi.Scan(c, []int64{int64(nc)}, mpi.Sum, true)
	if err != nil {
		return nil, err
	}
	for i, l := range req {
		req[i] = start[0] + int64(rank[l-first])
	}
	rank = nil
	ids, _, err := mpi.Alltoallv(c, req, reqOff, size)
	if err != nil {
		return nil, err
	}
	// The labels in this rank's own range are a run of seen: look them
	// up in an array (most labels are local), the others by search.
	lo0, _ := slices.BinarySearch(seen, first)
	hi0, _ := slices.BinarySearch(seen, first+int64(n))
	pos := make([]int32, n)
	for i := lo0; i < hi0; i++ {
		pos[seen[i]-first] = int32(i)
	}
	coarseOf := func(l int64) int64 {
		if l >= first && l < first+int64(n) {
			return ids[pos[l-first]]
		}
		k, _ := slices.BinarySearch(seen, l)
		return ids[k]
	}
	counts, err := mpi.Allgather(c, []int64{int64(nc)}, size)
	if err != nil {
		return nil, err
	}
	vtxdist := make([]int64, size+1)
	for r, x := range counts {
		vtxdist[r+1] = vtxdist[r] + x
	}
	cl := make([]int64, len(label))
	for v, l := range label {
		cl[v] = coarseOf(l)
	}
	pos = nil
	// Coarse vertices owned here: [lo, lo+nc). Their fine vertices here
	// are summed in place; the arcs of coarse vertices that other ranks
	// own are merged here (sorted: 24 bytes an arc, the largest array of
	// a contraction where clusters cross ranks) and sent to their owners.
	lo := vtxdist[g.rank]
	own := func(a int64) bool { return a >= lo && a < lo+int64(nc) }
	members := make([]int64, nc+1)
	cut := 0
	for v := range n {
		if a := cl[v]; own(a) {
			members[a-lo+1]++
		} else {
			cut++
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if cl[g.Adj[e]] != a {
					cut++
				}
			}
		}
	}
	arcs := make([]arc, 0, cut)
	for v := range n {
		a := cl[v]
		if own(a) {
			continue
		}
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
	arcs = nil
	got, _, err := mpi.Alltoallv(c, flat, aoff, size)
	if err != nil {
		return nil, err
	}
	flat = nil
	// Bucket the local fine vertices and the received arcs by coarse
	// vertex (counting sorts, in order), then sum each coarse vertex's
	// arcs in a hash table and sort them by target: the coarse graph
	// depends on the multiset of arcs only.
	for i := range nc {
		members[i+1] += members[i]
	}
	memb := make([]int32, members[nc])
	fill := slices.Clone(members[:nc])
	for v := range n {
		if a := cl[v]; own(a) {
			memb[fill[a-lo]] = int32(v)
			fill[a-lo]++
		}
	}
	recv := make([]int64, nc+1)
	for i := 0; i+2 < len(got); i += 3 {
		recv[got[i]-lo+1]++
	}
	for i := range nc {
		recv[i+1] += recv[i]
	}
	rarc := make([]int32, recv[nc])
	copy(fill, recv[:nc])
	for i := 0; i+2 < len(got); i += 3 {
		a := got[i] - lo
		rarc[fill[a]] = int32(i)
		fill[a]++
	}
	fill = nil
	xadj := make([]int64, nc+1)
	vw := make([]int64, nc)
	// The coarse arcs go to chunks, copied once into arrays of their
	// length: grown by append they were half of a contraction on a road
	// network (every growth a fresh, larger array to fault in and copy),
	// and arrays sized for the fine arcs cost more on a geometric graph,
	// whose clusters' arcs merge 3-5 to 1.
	var adj, w chunks
	var r rating
	r.setRange(lo, nc)
	var row []arc
	for ci := range nc {
		a := lo + int64(ci)
		deg := int(recv[ci+1] - recv[ci])
		for _, v := range memb[members[ci]:members[ci+1]] {
			deg += int(g.XAdj[v+1] - g.XAdj[v])
		}
		r.reset(deg)
		for _, v := range memb[members[ci]:members[ci+1]] {
			vw[ci] += g.VW[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if b := cl[g.Adj[e]]; b != a {
					r.add(b, g.W(e))
				}
			}
		}
		for _, i := range rarc[recv[ci]:recv[ci+1]] {
			if b := got[i+1]; b < 0 {
				vw[ci] += got[i+2]
			} else {
				r.add(b, got[i+2])
			}
		}
		row = row[:0]
		for i, b := range r.keys {
			row = append(row, arc{a, b, r.vals[i]})
		}
		sortByB(row)
		for _, x := range row {
			adj.add(x.b)
			w.add(x.w)
		}
		xadj[ci+1] = adj.n
	}
	got, memb, rarc = nil, nil, nil
	cg, err := buildPieces(c, vtxdist, xadj, adj.pieces(), w.flat(), vw)
	if err != nil {
		return nil, err
	}
	return &level{coarse: cg, up: cl[:n]}, nil
}

// chunks is a growing array kept in pieces of chunkLen: appending never
// copies, and flat copies it once.
type chunks struct {
	full [][]int64
	cur  []int64
	n    int64
}

const chunkLen = 1 << 16

func (c *chunks) add(x int64) {
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.full = append(c.full, c.cur)
		}
		c.cur = make([]int64, 0, chunkLen)
	}
	c.cur = append(c.cur, x)
	c.n++
}

// flat returns the values in one array of their length and empties c.
func (c *chunks) flat() []int64 {
	out := make([]int64, 0, c.n)
	for _, p := range c.full {
		out = append(out, p...)
	}
	out = append(out, c.cur...)
	*c = chunks{}
	return out
}

// pieces returns the values in c's pieces, in order, and empties c.
func (c *chunks) pieces() [][]int64 {
	out := append(c.full, c.cur)
	*c = chunks{}
	return out
}

// project returns the values of the fine vertices of lv given val of
// the local coarse vertices on every rank (collective). Coarse vertices
// owned here, most of them (a cluster is owned where its label lies), are
// read in place; only the others are asked for: sorting and searching
// every fine vertex's coarse id was 6% of a P=1 run on a road network.
func project[T mpi.Number](g *Graph, lv *level, val []T) ([]T, error) {
	cg := lv.coarse
	lo, hi := cg.First(), cg.First()+int64(cg.N())
	var want []int64
	for _, x := range lv.up {
		if x < lo || x >= hi {
			want = append(want, x)
		}
	}
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
		ans[i] = val[x-lo]
	}
	got, _, err := mpi.Alltoallv(g.c, ans, reqOff, g.size)
	if err != nil {
		return nil, err
	}
	out := make([]T, g.N())
	for v, x := range lv.up {
		if x >= lo && x < hi {
			out[v] = val[x-lo]
			continue
		}
		k, _ := slices.BinarySearch(want, x)
		out[v] = got[k]
	}
	return out, nil
}

// projectAll is project, then the ghosts' values (exchange): the values
// val of lv's coarse vertices (this rank's range) give g's local
// vertices, then its ghosts (collective).
func projectAll[T mpi.Number](g *Graph, lv *level, val []T) ([]T, error) {
	out, err := project(g, lv, val)
	if err != nil {
		return nil, err
	}
	gv, err := exchange(g, out)
	if err != nil {
		return nil, err
	}
	return append(out, gv...), nil
}

// sortByB sorts the arcs of one coarse vertex by target: insertion sort
// for the short rows of most vertices.
func sortByB(row []arc) {
	if len(row) > 24 {
		slices.SortFunc(row, func(x, y arc) int { return cmp64(x.b, y.b) })
		return
	}
	for i := 1; i < len(row); i++ {
		for j := i; j > 0 && row[j].b < row[j-1].b; j-- {
			row[j], row[j-1] = row[j-1], row[j]
		}
	}
}
