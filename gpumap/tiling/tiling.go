package tiling

import (
	"github.com/gpumap/gpumap/gpumap/graph"
)

// Grid is a detected grid: Dims[j] is the extent of dimension j, fastest
// first (vertex v has coordinate v / Stride[j] mod Dims[j]), W[j] the
// weight of its edges, Periodic[j] whether it wraps around (a ring of at
// least 3: the last and the first coordinate are neighbours too).
type Grid struct {
	Dims     []int
	Stride   []int
	W        []int64
	Periodic []bool
}

// MaxDims is the largest number of dimensions Detect recognises.
const MaxDims = 32

// Detect reports whether g is exactly a grid (periodic or not in each
// dimension) in row- or column-major order with every extent at least 2
// and one edge weight per dimension: the strides and wrap-arounds are
// vertex 0's neighbours, and every vertex must have exactly its grid
// neighbours. O(m).
func Detect(g *graph.Graph) (Grid, bool) {
	n := g.N()
	if n < 2 || g.XAdj[1] == 0 || g.XAdj[1] > 2*MaxDims {
		return Grid{}, false
	}
	// Vertex 0's neighbours, in increasing order: the stride s_j of every
	// dimension, each followed by (n_j - 1) s_j when the dimension wraps,
	// which the next stride n_j s_j (or n) then follows by s_j.
	var nb []int
	var nw []int64
	for e := g.XAdj[0]; e < g.XAdj[1]; e++ {
		s := int(g.Adj[e])
		i := len(nb)
		nb, nw = append(nb, s), append(nw, g.W(e))
		for ; i > 0 && nb[i-1] > s; i-- {
			nb[i], nb[i-1] = nb[i-1], nb[i]
			nw[i], nw[i-1] = nw[i-1], nw[i]
		}
	}
	if nb[0] != 1 {
		return Grid{}, false
	}
	var gr Grid
	for i := 0; i < len(nb); i++ {
		s := nb[i]
		next := n
		if i+1 < len(nb) {
			next = nb[i+1]
		}
		periodic := false
		if next != n && next%s == 0 && next/s >= 2 {
			after := n
			if i+2 < len(nb) {
				after = nb[i+2]
			}
			if after == next+s && nw[i+1] == nw[i] {
				periodic, i = true, i+1
				next = after
			}
		}
		if len(gr.Dims) == MaxDims || next%s != 0 || next/s < 2 {
			return Grid{}, false
		}
		gr.Stride, gr.W = append(gr.Stride, s), append(gr.W, nw[i])
		gr.Dims, gr.Periodic = append(gr.Dims, next/s), append(gr.Periodic, periodic)
	}
	r := len(gr.Dims)
	if gr.Stride[r-1]*gr.Dims[r-1] != n {
		return Grid{}, false
	}
	// Every vertex: the right degree, and every neighbour one step along
	// a distinct direction, with that dimension's weight.
	coord := make([]int, r)
	for v := 0; v < n; v++ {
		deg := 0
		for j := range coord {
			if coord[j] > 0 || gr.Periodic[j] {
				deg++
			}
			if coord[j]+1 < gr.Dims[j] || gr.Periodic[j] {
				deg++
			}
		}
		if int64(deg) != g.XAdj[v+1]-g.XAdj[v] {
			return Grid{}, false
		}
		var seen uint64
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := int(g.Adj[e])
			j, dir := gr.direction(coord, v, u)
			if j < 0 || g.W(e) != gr.W[j] {
				return Grid{}, false
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

// direction returns the dimension j and direction (0 up, 1 down) of the
// grid step from v (at coord) to u, or -1 when u is no grid neighbour.
func (gr Grid) direction(coord []int, v, u int) (int, int) {
	for j, s := range gr.Stride {
		x, d := coord[j], gr.Dims[j]
		switch {
		case x+1 < d && u == v+s, x+1 == d && gr.Periodic[j] && u == v-x*s:
			return j, 0
		case x > 0 && u == v-s, x == 0 && gr.Periodic[j] && u == v+(d-1)*s:
			return j, 1
		}
	}
	return -1, 0
}
