package graph

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Grid builds the d-dimensional grid (2D 5-point, 3D 7-point stencil, ...)
// with the given extents, unit weights and row-major numbering (the first
// extent varies slowest).
func Grid(dims ...int) *Graph {
	n := 1
	for _, d := range dims {
		n *= d
	}
	b := NewBuilder(n)
	stride := make([]int, len(dims))
	s := 1
	for i := len(dims) - 1; i >= 0; i-- {
		stride[i] = s
		s *= dims[i]
	}
	for v := 0; v < n; v++ {
		for i, d := range dims {
			if (v/stride[i])%d+1 < d {
				b.AddEdge(v, v+stride[i], 1)
			}
		}
	}
	g, _ := b.Build()
	return g
}

// RoadGrid builds a w x h grid of crossings whose every edge is a chain
// of two through a vertex of degree 2, as road networks join their
// crossings (mean degree 8(w-1)/(3w-2) on a square: below 8/3). Unit weights; the
// vertices are the points (x, y) of [0, 2w-1) x [0, 2h-1) with x or y
// even, numbered row by row, so the numbering has the locality of a grid.
func RoadGrid(w, h int) *Graph {
	W, H := 2*w-1, 2*h-1
	id := make([]int, W*H)
	n := 0
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			id[y*W+x] = -1
			if x%2 == 0 || y%2 == 0 {
				id[y*W+x] = n
				n++
			}
		}
	}
	b := NewBuilder(n)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v := id[y*W+x]
			if v < 0 {
				continue
			}
			if x+1 < W && id[y*W+x+1] >= 0 {
				b.AddEdge(v, id[y*W+x+1], 1)
			}
			if y+1 < H && id[(y+1)*W+x] >= 0 {
				b.AddEdge(v, id[(y+1)*W+x], 1)
			}
		}
	}
	g, _ := b.Build()
	return g
}

// RandomGeometric builds a 2D random geometric graph on n points in the unit
// square with radius r = 0.55 sqrt(ln n / n) (the DIMACS10 rule), unit
// weights.
func RandomGeometric(n int, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 0x726767))
	r := 0.55 * math.Sqrt(math.Log(float64(n))/float64(n))
	cells := int(1 / r)
	if cells < 1 {
		cells = 1
	}
	xs, ys := make([]float64, n), make([]float64, n)
	cell := make([]int, n)
	for i := range xs {
		xs[i], ys[i] = rng.Float64(), rng.Float64()
		cx, cy := min(int(xs[i]*float64(cells)), cells-1), min(int(ys[i]*float64(cells)), cells-1)
		cell[i] = cx*cells + cy
	}
	// Number points by cell so that neighbours have nearby ids.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cell[order[a]] < cell[order[b]] })
	start := make([]int, cells*cells+1)
	for _, i := range order {
		start[cell[i]+1]++
	}
	for c := 0; c < cells*cells; c++ {
		start[c+1] += start[c]
	}
	b := NewBuilder(n)
	r2 := r * r
	for a, i := range order {
		cx, cy := cell[i]/cells, cell[i]%cells
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				x, y := cx+dx, cy+dy
				if x < 0 || y < 0 || x >= cells || y >= cells {
					continue
				}
				c := x*cells + y
				for bIdx := start[c]; bIdx < start[c+1]; bIdx++ {
					j := order[bIdx]
					if bIdx <= a {
						continue
					}
					ddx, ddy := xs[i]-xs[j], ys[i]-ys[j]
					if ddx*ddx+ddy*ddy <= r2 {
						b.AddEdge(a, bIdx, 1)
					}
				}
			}
		}
	}
	g, _ := b.Build()
	return g
}

// Random builds a graph with n vertices and about m random edges with
// weights in [1,maxW] and vertex weights in [1,maxVW].
func Random(n, m int, maxW, maxVW int64, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 0x72616e64))
	b := NewBuilder(n)
	for v := 0; v < n; v++ {
		b.SetVertexWeight(v, 1+rng.Int64N(maxVW))
	}
	for i := 0; i < m && n > 1; i++ {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v {
			b.AddEdge(u, v, 1+rng.Int64N(maxW))
		}
	}
	g, _ := b.Build()
	return g
}

// PowerLaw builds a preferential-attachment (Barabási–Albert) graph: every
// vertex from m on joins m distinct earlier vertices, picked in proportion
// to their degree (or uniformly, one time in ten). Unit weights; degrees
// follow a power law, a few hubs hold many edges.
func PowerLaw(n, m int, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 0x706c6177))
	b := NewBuilder(n)
	var ends []int // every edge's endpoints: picking one is picking by degree
	picked := map[int]bool{}
	for v := m; v < n; v++ {
		clear(picked)
		for len(picked) < m {
			u := rng.IntN(v)
			if len(ends) > 0 && rng.IntN(10) != 0 {
				u = ends[rng.IntN(len(ends))]
			}
			picked[u] = true
		}
		for u := 0; u < v; u++ { // in id order: the result must not depend on map order
			if picked[u] {
				b.AddEdge(v, u, 1)
				ends = append(ends, u, v)
			}
		}
	}
	g, _ := b.Build()
	return g
}

// DenseBlocks builds blocks of minSize..maxSize vertices, each a random
// graph of density 0.3 to 0.8 with edge weights 1..5, chained by a few
// random unit edges between consecutive blocks and tied to a small set of
// shared linking vertices (the shape of multi-stage financial and
// optimisation models).
func DenseBlocks(blocks, minSize, maxSize int, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 0x64656e73))
	sizes := make([]int, blocks)
	n := 0
	for i := range sizes {
		sizes[i] = minSize + rng.IntN(maxSize-minSize+1)
		n += sizes[i]
	}
	links := max(10, blocks/4)
	bld := NewBuilder(n + links)
	start := 0
	for i, sz := range sizes {
		dens := 0.3 + 0.5*rng.Float64()
		for a := 0; a < sz; a++ {
			for c := a + 1; c < sz; c++ {
				if rng.Float64() < dens {
					bld.AddEdge(start+a, start+c, 1+rng.Int64N(5))
				}
			}
		}
		for j := 0; j < 3; j++ {
			bld.AddEdge(start+rng.IntN(sz), n+rng.IntN(links), 1)
		}
		if i+1 < blocks {
			for j := 0; j < 2; j++ {
				bld.AddEdge(start+rng.IntN(sz), start+sz+rng.IntN(sizes[i+1]), 1)
			}
		}
		start += sz
	}
	g, _ := bld.Build()
	return g
}

// Communities builds a dense graph with community structure, the shape of
// the small social graphs and stiffness matrices of issue 25 (a few
// thousand vertices of average degree 20-80): n vertices in communities of
// c consecutive ids, each vertex drawing din neighbours in its community
// and dout anywhere (unit weights; a pair drawn twice weighs 2).
func Communities(n, c, din, dout int, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 0x636f6d6d))
	b := NewBuilder(n)
	for v := 0; v < n; v++ {
		base := v / c * c
		for i := 0; i < din; i++ {
			if u := base + rng.IntN(min(c, n-base)); u != v {
				b.AddEdge(u, v, 1)
			}
		}
		for i := 0; i < dout; i++ {
			if u := rng.IntN(n); u != v {
				b.AddEdge(u, v, 1)
			}
		}
	}
	g, _ := b.Build()
	return g
}

// RMAT builds an R-MAT graph (Chakrabarti, Zhan and Faloutsos): 2^scale
// ids, edgeFactor·2^scale edge draws, each descending scale times into one
// quadrant of the adjacency matrix with probabilities 0.57, 0.19, 0.19 and
// 0.05. Ids are shuffled (the recursion would otherwise show in the
// numbering), self loops dropped, parallel draws merged into one edge
// with their count as weight, and isolated ids removed. A few hubs hold
// most edges and a long tail of degree-one vertices hangs off them: the
// shape of web and social graphs.
func RMAT(scale, edgeFactor int, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 0x726d6174))
	n := 1 << scale
	src := make([]int32, 0, edgeFactor*n)
	dst := make([]int32, 0, edgeFactor*n)
	for i := 0; i < edgeFactor*n; i++ {
		var u, v int32
		for l := 0; l < scale; l++ {
			u, v = u<<1, v<<1
			switch x := rng.Float64(); {
			case x < 0.57:
			case x < 0.76:
				v |= 1
			case x < 0.95:
				u |= 1
			default:
				u, v = u|1, v|1
			}
		}
		src, dst = append(src, u), append(dst, v)
	}
	// Number the ids that have an edge in a random order.
	used := make([]bool, n)
	for i := range src {
		if src[i] != dst[i] {
			used[src[i]], used[dst[i]] = true, true
		}
	}
	id := make([]int32, n)
	next := int32(0)
	for _, p := range rng.Perm(n) {
		if used[p] {
			id[p] = next
			next++
		}
	}
	b := NewBuilder(int(next))
	for i := range src {
		if src[i] != dst[i] {
			b.AddEdge(int(id[src[i]]), int(id[dst[i]]), 1)
		}
	}
	g, _ := b.Build()
	return g
}
