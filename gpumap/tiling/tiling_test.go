package tiling

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// weightedGrid is graph.Grid with weight w[j] on the edges along dims[j]
// (dims slowest first, as graph.Grid), optionally periodic.
func weightedGrid(dims []int, w []int64, periodic bool) *graph.Graph {
	n := 1
	for _, d := range dims {
		n *= d
	}
	stride := make([]int, len(dims))
	s := 1
	for i := len(dims) - 1; i >= 0; i-- {
		stride[i] = s
		s *= dims[i]
	}
	b := graph.NewBuilder(n)
	for v := 0; v < n; v++ {
		for i, d := range dims {
			x := v / stride[i] % d
			if x+1 < d {
				b.AddEdge(v, v+stride[i], w[i])
			} else if periodic && d > 2 {
				b.AddEdge(v, v-x*stride[i], w[i])
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

func TestDetectGrids(t *testing.T) {
	for _, dims := range [][]int{{2}, {7}, {2, 2}, {3, 5}, {5, 3}, {4, 4, 4}, {2, 3, 4, 5}, {30, 30, 36}} {
		g := graph.Grid(dims...)
		gr, ok := Detect(g)
		if !ok {
			t.Fatalf("%v: not detected", dims)
		}
		rev := slices.Clone(dims)
		slices.Reverse(rev)
		if !slices.Equal(gr.Dims, rev) {
			t.Errorf("%v: detected %v, want %v (fastest first)", dims, gr.Dims, rev)
		}
	}
	w := []int64{3, 5, 7}
	gr, ok := Detect(weightedGrid([]int{4, 3, 5}, w, false))
	if !ok || !slices.Equal(gr.Dims, []int{5, 3, 4}) || !slices.Equal(gr.W, []int64{7, 5, 3}) ||
		!slices.Equal(gr.Periodic, []bool{false, false, false}) {
		t.Errorf("weighted grid: %+v %v", gr, ok)
	}
	// Rings of 3 and more wrap; a ring of 2 is a plain edge (the builder
	// merges the two).
	for _, c := range []struct {
		dims     []int
		periodic []bool
	}{
		{[]int{4, 5}, []bool{true, true}},
		{[]int{3, 3, 3}, []bool{true, true, true}},
		{[]int{2, 6, 3}, []bool{true, true, false}},
		{[]int{7}, []bool{true}},
	} {
		gr, ok := Detect(weightedGrid(c.dims, []int64{1, 2, 3}[:len(c.dims)], true))
		rev := slices.Clone(c.dims)
		slices.Reverse(rev)
		if !ok || !slices.Equal(gr.Dims, rev) || !slices.Equal(gr.Periodic, c.periodic) {
			t.Errorf("torus %v: %+v %v", c.dims, gr, ok)
		}
	}
}

func TestDetectRejects(t *testing.T) {
	cases := map[string]*graph.Graph{
		"mixed weights":  graph.Grid(4, 4),
		"random":         graph.RandomGeometric(200, 1),
		"single vertex":  graph.Grid(1),
		"extent-1 inner": graph.Grid(4, 1),
	}
	// A weight that differs on one edge of a dimension.
	g := cases["mixed weights"]
	ew := g.EdgeWeights()
	for e := g.XAdj[5]; e < g.XAdj[6]; e++ {
		if g.Adj[e] == 6 {
			ew[e] = 2
		}
	}
	for e := g.XAdj[6]; e < g.XAdj[7]; e++ {
		if g.Adj[e] == 5 {
			ew[e] = 2
		}
	}
	g.SetEdgeWeights(ew)
	// A grid relabelled: vertices 1 and 2 swapped.
	n := 12
	b := graph.NewBuilder(n)
	grid := graph.Grid(3, 4)
	swap := func(v int) int {
		switch v {
		case 1:
			return 2
		case 2:
			return 1
		}
		return v
	}
	for v := 0; v < n; v++ {
		for e := grid.XAdj[v]; e < grid.XAdj[v+1]; e++ {
			if u := int(grid.Adj[e]); u > v {
				b.AddEdge(swap(v), swap(u), 1)
			}
		}
	}
	cases["relabelled"], _ = b.Build()
	for name, g := range cases {
		if gr, ok := Detect(g); ok {
			if name == "extent-1 inner" && slices.Equal(gr.Dims, []int{4}) {
				continue // a 4x1 grid is the path of 4
			}
			t.Errorf("%s: detected as %+v", name, gr)
		}
	}
}

// evalJ is J recomputed edge by edge from the machine's distances.
func evalJ(g *graph.Graph, top *topology.Topology, pe []int32) int64 {
	var j int64
	for v := 0; v < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; int(u) > v {
				j += g.W(e) * top.Distance(int(pe[v]), int(pe[u]))
			}
		}
	}
	return j
}

// The closed form equals J recomputed from the mapping, the mapping is a
// permutation, and no uniform tiling (brute force over every chain of slab
// counts) is cheaper.
func TestBestIsExactAndLeast(t *testing.T) {
	cases := []struct {
		dims     []int
		w        []int64
		arity    []int
		dist     []int64
		periodic bool
	}{
		{[]int{8, 8}, []int64{1, 1}, []int{4, 4, 4}, []int64{1, 10, 100}, true},
		{[]int{6, 4, 6}, []int64{1, 2, 3}, []int{4, 6, 6}, []int64{1, 10, 100}, true},
		{[]int{12, 2}, []int64{1, 1}, []int{3, 2, 4}, []int64{1, 10, 100}, true},
		{[]int{5, 6}, []int64{1, 1}, []int{3, 10}, []int64{2, 7}, true},
		{[]int{16, 16}, []int64{1, 1}, []int{4, 8, 8}, []int64{1, 10, 100}, false},
		{[]int{8, 8, 8}, []int64{1, 1, 1}, []int{4, 2, 64}, []int64{1, 10, 100}, false},
		{[]int{6, 10, 6}, []int64{1, 1, 1}, []int{12, 3, 10}, []int64{1, 10, 100}, false},
		{[]int{12, 8}, []int64{5, 1}, []int{4, 2, 12}, []int64{1, 10, 100}, false},
		{[]int{4, 6, 2, 3}, []int64{1, 2, 3, 4}, []int{6, 4, 6}, []int64{2, 3, 50}, false},
		{[]int{24}, []int64{1}, []int{2, 3, 4}, []int64{1, 10, 100}, false},
		{[]int{9, 8}, []int64{1, 1}, []int{8, 9}, []int64{1, 10}, false},
		{[]int{5, 7}, []int64{1, 1}, []int{35}, []int64{3}, false},
	}
	for _, c := range cases {
		g := weightedGrid(c.dims, c.w, c.periodic)
		gr, ok := Detect(g)
		if !ok {
			t.Fatalf("%v: not detected", c.dims)
		}
		top, err := topology.NewRegular(c.arity, c.dist)
		if err != nil {
			t.Fatal(err)
		}
		tl, ok := Best(gr, c.arity, c.dist)
		if !ok {
			t.Fatalf("%v onto %v: no tiling", c.dims, c.arity)
		}
		pe := Map(gr, c.arity, tl)
		seen := make([]bool, top.K())
		for _, p := range pe {
			if p < 0 || int(p) >= len(seen) || seen[p] {
				t.Fatalf("%v onto %v: not a permutation", c.dims, c.arity)
			}
			seen[p] = true
		}
		if j := evalJ(g, top, pe); j != tl.J {
			t.Errorf("%v onto %v: closed form J %d, recomputed %d", c.dims, c.arity, tl.J, j)
		}
		if least := bruteForce(g, gr, top, c.arity, tl.Q); least < tl.J {
			t.Errorf("%v onto %v: a tiling with J %d beats Best's %d", c.dims, c.arity, least, tl.J)
		}
	}
}

// bruteForce enumerates every chain of slab-count vectors (without the
// dynamic program) and returns the least J recomputed from its mapping.
func bruteForce(g *graph.Graph, gr Grid, top *topology.Topology, arity []int, q [][]int) int64 {
	L := len(arity)
	chain := make([][]int, L+1)
	chain[0], chain[L] = gr.Dims, q[L]
	best := int64(-1)
	var rec func(i int)
	rec = func(i int) {
		if i == L {
			if !divides(chain[L], chain[L-1]) {
				return
			}
			j := evalJ(g, top, Map(gr, arity, Tiling{Q: chain}))
			if best < 0 || j < best {
				best = j
			}
			return
		}
		groups := len(g.VW)
		for _, a := range arity[:i] {
			groups /= a
		}
		vec := make([]int, len(gr.Dims))
		var gen func(j, rem int)
		gen = func(j, rem int) {
			if j == len(vec) {
				if rem == 1 && divides(vec, chain[i-1]) {
					chain[i] = slices.Clone(vec)
					rec(i + 1)
				}
				return
			}
			for t := 1; t <= gr.Dims[j]; t++ {
				if gr.Dims[j]%t == 0 && rem%t == 0 {
					vec[j] = t
					gen(j+1, rem/t)
				}
			}
		}
		gen(0, groups)
	}
	rec(1)
	return best
}

// A uniform tiling exists whenever the grid has k cells (the prime
// factors of every level can be shared out over the dimensions, prime by
// prime); Best refuses only other cell counts.
func TestBestRefuses(t *testing.T) {
	gr, _ := Detect(graph.Grid(5, 5))
	if _, ok := Best(gr, []int{5, 4}, []int64{1, 10}); ok {
		t.Error("25 cells onto 20 PEs tiled")
	}
	for _, c := range []struct{ dims, arity []int }{{[]int{5, 5}, []int{25}}, {[]int{7, 5}, []int{5, 7}}, {[]int{6, 6}, []int{4, 9}}, {[]int{4, 3}, []int{2, 3, 2}}} {
		gr, _ := Detect(graph.Grid(c.dims...))
		dist := make([]int64, len(c.arity))
		for i := range dist {
			dist[i] = int64(1 + 10*i)
		}
		if _, ok := Best(gr, c.arity, dist); !ok {
			t.Errorf("%v onto %v not tiled", c.dims, c.arity)
		}
	}
}

// The projection bound is a lower bound (every down-set of up to 14 cells
// of N^3, enumerated as plane partitions), exact in 2D (ceil(2 sqrt x)),
// and tight where a box meets it.
func TestProjectionBound(t *testing.T) {
	mu2 := projectionBound([]int64{1, 1}, 200)
	for x := 1; x <= 200; x++ {
		want := 0
		for want*want < 4*x {
			want++
		}
		if mu2[x] != int64(want) {
			t.Errorf("2D bound of %d cells: %d, want ceil(2 sqrt x) = %d", x, mu2[x], want)
		}
	}
	const most = 14
	mu3 := projectionBound([]int64{1, 1, 1}, most)
	least := make([]int, most+1)
	for i := range least {
		least[i] = 1 << 30
	}
	// Plane partitions: rows of non-increasing heights, each row at most
	// the row before it entry by entry; sum_j |P_j| = cells with z = 0 +
	// cells with y = 0 + cells with x = 0.
	var rec func(rows [][]int, cells int)
	rec = func(rows [][]int, cells int) {
		if cells > 0 {
			top := 0 // cells at z = 0: the non-zero entries
			for _, row := range rows {
				top += len(row)
			}
			front := 0 // y = 0: the first row's heights
			for _, h := range rows[0] {
				front += h
			}
			side := 0 // x = 0: every row's first height
			for _, row := range rows {
				side += row[0]
			}
			least[cells] = min(least[cells], top+front+side)
		}
		// append a row no longer and no higher than the last one
		var prev []int
		if len(rows) > 0 {
			prev = rows[len(rows)-1]
		}
		var grow func(row []int, cells int)
		grow = func(row []int, cells int) {
			if len(row) > 0 {
				rec(append(rows, slices.Clone(row)), cells)
			}
			i := len(row)
			limit := most - cells
			if prev != nil {
				if i >= len(prev) {
					return
				}
				limit = min(limit, prev[i])
			}
			if i > 0 {
				limit = min(limit, row[i-1])
			}
			for h := 1; h <= limit; h++ {
				grow(append(row, h), cells+h)
			}
		}
		grow(nil, cells)
	}
	rec(nil, 0)
	for x := 1; x <= most; x++ {
		if least[x] == 1<<30 {
			t.Fatalf("no plane partition of %d", x)
		}
		if mu3[x] > int64(least[x]) {
			t.Errorf("3D bound of %d cells: %d, above the least down-set's %d", x, mu3[x], least[x])
		}
	}
	for _, c := range []struct{ x, want int }{{8, 12}, {12, 16}, {27, 27}, {32, 32}, {36, 33}, {64, 48}} {
		if got := projectionBound([]int64{1, 1, 1}, c.x)[c.x]; got != int64(c.want) {
			t.Errorf("3D bound of %d cells: %d, want the box's %d", c.x, got, c.want)
		}
	}
}

// The lower bound never exceeds the least J, found by enumerating every
// split into equal groups of small grids and tori (two levels, so J is
// d1 m + (d2 - d1) times the cut), and meets it where a tiling is optimal.
func TestLowerBoundBruteForce(t *testing.T) {
	cases := []struct {
		dims     []int
		periodic bool
		s        int     // cells per group
		w        []int64 // edge weight per dimension (nil: 1)
	}{
		{[]int{4, 4}, false, 4, []int64{3, 1}}, {[]int{4, 4}, false, 8, []int64{3, 1}},
		{[]int{4, 4}, true, 4, []int64{1, 4}}, {[]int{3, 6}, true, 6, []int64{5, 2}},
		{[]int{2, 3, 3}, false, 6, []int64{1, 2, 4}}, {[]int{3, 3, 2}, true, 6, []int64{4, 1, 2}},
		{[]int{6, 3}, false, 9, []int64{2, 7}}, {[]int{12}, true, 4, []int64{5}},
		{[]int{3, 4}, true, 3, nil}, {[]int{3, 4}, true, 4, nil}, {[]int{3, 4}, true, 6, nil},
		{[]int{4, 4}, true, 8, nil}, {[]int{4, 4}, true, 2, nil}, {[]int{4, 4}, false, 4, nil},
		{[]int{3, 5}, true, 5, nil}, {[]int{3, 5}, true, 3, nil}, {[]int{12}, true, 4, nil},
		{[]int{12}, true, 6, nil}, {[]int{2, 2, 3}, true, 4, nil},
		{[]int{3, 3, 2}, false, 6, nil}, {[]int{3, 3}, true, 3, nil}, {[]int{3, 6}, true, 6, nil},
		{[]int{3, 6}, true, 3, nil},
		{[]int{4, 4}, true, 4, nil}, {[]int{5, 3}, true, 5, nil},
	}
	for _, c := range cases {
		w := c.w
		if w == nil {
			w = []int64{1, 1, 1}[:len(c.dims)]
		}
		g := weightedGrid(c.dims, w, c.periodic)
		gr, ok := Detect(g)
		if !ok {
			t.Fatalf("%v: not detected", c.dims)
		}
		n := g.N()
		arity, dist := []int{c.s, n / c.s}, []int64{1, 3}
		lb, ok := LowerBound(gr, arity, dist)
		if !ok {
			t.Fatalf("%v: no bound", c.dims)
		}
		least := g.TotalEdgeWeight() + 2*leastCut(g, c.s) // d1 c(E) + (d2 - d1) cut
		if lb > least {
			t.Errorf("%v periodic %v weights %v, groups of %d: bound %d above the least J %d", c.dims, c.periodic, w, c.s, lb, least)
		}
		tl, _ := Best(gr, arity, dist)
		if tl.J == lb && tl.J != least {
			t.Errorf("%v: tiling %d proven but the least J is %d", c.dims, tl.J, least)
		}
		t.Logf("%v periodic %v weights %v, groups of %d: bound %d, least %d, tiling %d", c.dims, c.periodic, w, c.s, lb, least, tl.J)
	}
}

// leastCut is the least edge cut over all splits of g into groups of s.
func leastCut(g *graph.Graph, s int) int64 {
	n := g.N()
	grp := make([]int, n)
	size := make([]int, n/s)
	best := int64(1 << 62)
	var rec func(v, used int, cut int64)
	rec = func(v, used int, cut int64) {
		if cut >= best {
			return
		}
		if v == n {
			best = cut
			return
		}
		for q := 0; q < min(used+1, len(size)); q++ {
			if size[q] == s {
				continue
			}
			add := int64(0)
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := int(g.Adj[e]); u < v && grp[u] != q {
					add += g.W(e)
				}
			}
			grp[v] = q
			size[q]++
			rec(v+1, max(used, q+1), cut+add)
			size[q]--
		}
	}
	rec(0, 0, 0)
	return best
}

// Boxes numbers the cells of every box 0..size-1 once each, and the first
// box is the one at the origin.
func TestBoxes(t *testing.T) {
	g := weightedGrid([]int{6, 4, 6}, []int64{1, 1, 1}, false)
	gr, _ := Detect(g)
	tl, ok := Best(gr, []int{4, 3, 12}, []int64{1, 10, 100})
	if !ok {
		t.Fatal("no tiling")
	}
	index, first, ext := gr.Boxes(tl, 2)
	size := ext[0] * ext[1] * ext[2]
	if size != 12 {
		t.Fatalf("box %v of %d cells, want 12", ext, size)
	}
	pe := Map(gr, []int{4, 3, 12}, tl)
	seen := make(map[[2]int32]bool)
	firstCells := 0
	for v := range index {
		key := [2]int32{pe[v] / 12, index[v]}
		if index[v] < 0 || int(index[v]) >= size || seen[key] {
			t.Fatalf("vertex %d: index %d repeated or out of range in its box", v, index[v])
		}
		seen[key] = true
		if first[v] {
			firstCells++
			if pe[v]/12 != pe[0]/12 {
				t.Errorf("vertex %d in the first box but not in vertex 0's group", v)
			}
		}
	}
	if firstCells != size {
		t.Errorf("%d cells in the first box, want %d", firstCells, size)
	}
}
