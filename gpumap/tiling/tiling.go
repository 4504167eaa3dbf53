package tiling

import (
	"github.com/gpumap/gpumap/gpumap/graph"
)

// Grid is a detected grid: Dims[j] is the extent of dimension j, fastest
// first (vertex v has coordinate v / Stride[j] mod Dims[j]), W[j] the
// weight of its edges.
type Grid struct {
	Dims   []int
	Stride []int
	W      []int64
}

// MaxDims is the largest number of dimensions Detect recognises.
const MaxDims = 32

// Detect reports whether g is exactly a non-periodic grid in row- or
// column-major order with every extent at least 2 and one edge weight per
// dimension: the strides are vertex 0's neighbours, and every vertex must
// have exactly its grid neighbours. O(m).
func Detect(g *graph.Graph) (Grid, bool) {
	n := g.N()
	if n < 2 || g.XAdj[1] == 0 || g.XAdj[1] > MaxDims {
		return Grid{}, false
	}
	var gr Grid
	// Vertex 0's neighbours, in increasing order, are the strides.
	for e := g.XAdj[0]; e < g.XAdj[1]; e++ {
		s := int(g.Adj[e])
		i := len(gr.Stride)
		gr.Stride = append(gr.Stride, s)
		gr.W = append(gr.W, g.W(e))
		for ; i > 0 && gr.Stride[i-1] > s; i-- {
			gr.Stride[i], gr.Stride[i-1] = gr.Stride[i-1], gr.Stride[i]
			gr.W[i], gr.W[i-1] = gr.W[i-1], gr.W[i]
		}
	}
	r := len(gr.Stride)
	if gr.Stride[0] != 1 {
		return Grid{}, false
	}
	gr.Dims = make([]int, r)
	for j := 0; j < r; j++ {
		next := n
		if j+1 < r {
			next = gr.Stride[j+1]
		}
		if next%gr.Stride[j] != 0 || next/gr.Stride[j] < 2 {
			return Grid{}, false
		}
		gr.Dims[j] = next / gr.Stride[j]
	}
	if n%gr.Stride[r-1] != 0 {
		return Grid{}, false
	}
	// Every vertex: the right degree, and every neighbour one step along
	// a distinct direction, with that dimension's weight.
	coord := make([]int, r)
	for v := 0; v < n; v++ {
		deg := 0
		for j := range coord {
			if coord[j] > 0 {
				deg++
			}
			if coord[j]+1 < gr.Dims[j] {
				deg++
			}
		}
		if int64(deg) != g.XAdj[v+1]-g.XAdj[v] {
			return Grid{}, false
		}
		var seen uint64
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			d := int(g.Adj[e]) - v
			dir := 0
			if d < 0 {
				d, dir = -d, 1
			}
			j := 0
			for j < r && gr.Stride[j] != d {
				j++
			}
			if j == r || g.W(e) != gr.W[j] {
				return Grid{}, false
			}
			if dir == 0 && coord[j]+1 >= gr.Dims[j] || dir == 1 && coord[j] == 0 {
				return Grid{}, false // wraps into the next row
			}
			bit := uint64(1) << (2*j + dir)
			if seen&bit != 0 {
				return Grid{}, false
			}
			seen |= bit
		}
		for j := 0; j < r; j++ {
			if coord[j]++; coord[j] < gr.Dims[j] {
				break
			}
			coord[j] = 0
		}
	}
	return gr, true
}
