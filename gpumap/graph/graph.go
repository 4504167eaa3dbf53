package graph

import (
	"fmt"
	"math"
	"sync"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Graph is an undirected graph in CSR form. Every undirected edge {u,v} is
// stored twice, as u->v and v->u, with the same weight. The neighbours of v
// are Adj[XAdj[v]:XAdj[v+1]]; the weight of stored edge e is W(e).
//
// Edge weights are kept in the most compact form that holds them (see
// SetEdgeWeights): none at all when every weight is 1, 32-bit when the
// total weight fits in an int32 (then every sum of edge weights does, the
// coarse graphs' weights included), 64-bit otherwise.
//
// A Graph built by this package is valid (see Validate); code that fills the
// fields by hand should call Validate.
type Graph struct {
	XAdj []int64 // n+1 offsets
	Adj  []int32 // 2m neighbours
	VW   []int64 // n vertex weights

	ew32 []int32 // narrow edge weights (total <= MaxNarrowTotal), or nil
	ew64 []int64 // wide edge weights, or nil; both nil: every weight is 1

	srcOnce sync.Once
	src     []int32
}

// MaxNarrowTotal is the largest total edge weight (each undirected edge
// counted once) stored with 32-bit weights.
const MaxNarrowTotal = math.MaxInt32

// W is the weight of stored edge e.
func (g *Graph) W(e int64) int64 {
	if g.ew32 != nil {
		return int64(g.ew32[e])
	}
	if g.ew64 != nil {
		return g.ew64[e]
	}
	return 1
}

// Weights returns the stored edge weights: w32 for a narrow graph, w64 for
// a wide one, both nil when every weight is 1. Callers must not modify
// them.
func (g *Graph) Weights() (w32 []int32, w64 []int64) { return g.ew32, g.ew64 }

// Wide reports whether the edge weights need 64 bits (their total exceeds
// MaxNarrowTotal). Every sum of a narrow graph's edge weights fits in an
// int32.
func (g *Graph) Wide() bool { return g.ew64 != nil }

// SetEdgeWeights stores ew (one weight per stored edge) in the most compact
// form: nothing when every weight is 1, 32-bit when the total fits, else ew
// itself (not copied). Negative weights are stored as given (Validate
// reports them).
func (g *Graph) SetEdgeWeights(ew []int64) {
	unit, narrow := true, true
	var total int64
	for _, w := range ew {
		if w != 1 {
			unit = false
		}
		if w < 0 || w > MaxNarrowTotal || total > 2*MaxNarrowTotal-w {
			narrow = false
		} else {
			total += w
		}
	}
	switch {
	case unit && int64(len(ew)) <= 2*MaxNarrowTotal:
		g.ew32, g.ew64 = nil, nil
	case narrow:
		w32 := make([]int32, len(ew))
		for i, w := range ew {
			w32[i] = int32(w)
		}
		g.ew32, g.ew64 = w32, nil
	default:
		g.ew32, g.ew64 = nil, ew
	}
}

// SetNarrowWeights stores 32-bit weights whose total (each undirected edge
// once) the caller knows to be at most MaxNarrowTotal, such as the weights
// of a graph contracted or extracted from a narrow graph; nil means every
// weight is 1.
func (g *Graph) SetNarrowWeights(ew []int32) { g.ew32, g.ew64 = ew, nil }

// EdgeWeights returns a new slice with every stored edge's weight.
func (g *Graph) EdgeWeights() []int64 {
	ew := make([]int64, len(g.Adj))
	for e := range ew {
		ew[e] = g.W(int64(e))
	}
	return ew
}

// N is the number of vertices.
func (g *Graph) N() int { return len(g.VW) }

// DirectedEdges is the number of stored (directed) edges, 2m.
func (g *Graph) DirectedEdges() int64 { return int64(len(g.Adj)) }

// M is the number of undirected edges.
func (g *Graph) M() int64 { return int64(len(g.Adj)) / 2 }

// Degree is the number of neighbours of v.
func (g *Graph) Degree(v int32) int { return int(g.XAdj[v+1] - g.XAdj[v]) }

// TotalVertexWeight is c(V).
func (g *Graph) TotalVertexWeight() int64 {
	var s int64
	for _, w := range g.VW {
		s += w
	}
	return s
}

// TotalEdgeWeight is the sum of w(e) over undirected edges.
func (g *Graph) TotalEdgeWeight() int64 {
	var s int64
	switch {
	case g.ew32 != nil:
		for _, w := range g.ew32 {
			s += int64(w)
		}
	case g.ew64 != nil:
		for _, w := range g.ew64 {
			s += w
		}
	default:
		s = int64(len(g.Adj))
	}
	return s / 2
}

// MaxVertexWeight is the heaviest vertex.
func (g *Graph) MaxVertexWeight() int64 {
	var m int64
	for _, w := range g.VW {
		m = max(m, w)
	}
	return m
}

// EdgeSources returns the source vertex of every stored edge (the extended
// CSR array that lets edge-parallel loops run without a search). It is
// built on first use and shared; callers must not modify it.
func (g *Graph) EdgeSources() []int32 {
	g.srcOnce.Do(func() {
		g.src = make([]int32, len(g.Adj))
		for v := 0; v < g.N(); v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				g.src[e] = int32(v)
			}
		}
	})
	return g.src
}

// UnitWeights reports whether every vertex and edge weight is 1.
func (g *Graph) UnitWeights() (vertices, edges bool) {
	vertices, edges = true, true
	for _, w := range g.VW {
		if w != 1 {
			vertices = false
			break
		}
	}
	for _, w := range g.ew32 {
		if w != 1 {
			edges = false
			break
		}
	}
	for _, w := range g.ew64 {
		if w != 1 {
			edges = false
			break
		}
	}
	return
}

// Validate checks the CSR invariants: consistent lengths, monotone offsets,
// neighbours in range, no self loops, no duplicate edges, non-negative
// weights, and symmetry of edges and weights.
func (g *Graph) Validate() error {
	n := len(g.VW)
	if len(g.XAdj) != n+1 {
		return fmt.Errorf("graph: %d offsets for %d vertices, want %d", len(g.XAdj), n, n+1)
	}
	if nw := max(len(g.ew32), len(g.ew64)); nw != 0 && len(g.Adj) != nw {
		return fmt.Errorf("graph: %d neighbours but %d edge weights", len(g.Adj), nw)
	}
	if g.XAdj[0] != 0 || g.XAdj[n] != int64(len(g.Adj)) {
		return fmt.Errorf("graph: offsets span [%d,%d), want [0,%d)", g.XAdj[0], g.XAdj[n], len(g.Adj))
	}
	if int64(n) > MaxVertices {
		return fmt.Errorf("graph: %d vertices exceed the 32-bit limit %d", n, MaxVertices)
	}
	for v := 0; v < n; v++ {
		if g.XAdj[v+1] < g.XAdj[v] {
			return fmt.Errorf("graph: offsets decrease at vertex %d", v)
		}
		if g.VW[v] < 0 {
			return fmt.Errorf("graph: vertex %d has negative weight %d", v, g.VW[v])
		}
	}
	where := func(v int32) string { return fmt.Sprintf("vertex %d", v) }
	if !sortedAndSymmetric(par.New(0), g) {
		if err := checkAdjacency(g, where, 0); err != nil {
			return err
		}
	}
	return CheckWeights(g, where)
}

// MaxVertices is the largest vertex count (ids are int32).
const MaxVertices = 1<<31 - 1

// checkAdjacency verifies ranges, self loops, duplicates, weight signs and
// symmetry in O(n+m) time with two n-sized scratch arrays. where names a
// vertex in error messages (a line number for files, an id otherwise);
// neighbours are named counting from base (1 in METIS files, 0 in CSR
// arrays), like the vertices.
func checkAdjacency(g *Graph, where func(v int32) string, base int64) error {
	n := int32(len(g.VW))
	for e, u := range g.Adj {
		if u < 0 || u >= n {
			v := ownerOf(g, int64(e))
			return fmt.Errorf("%s: neighbour %d is out of range [%d,%d]", where(v), int64(u)+base, base, int64(n)-1+base)
		}
		if w := g.W(int64(e)); w < 0 {
			v := ownerOf(g, int64(e))
			return fmt.Errorf("%s: edge to %d has negative weight %d", where(v), int64(u)+base, w)
		}
	}
	// mark[u] = v+1 while scanning v; weight[u] = w(v,u).
	mark := make([]int32, n)
	weight := make([]int64, n)
	// Transpose by counting: rev holds, for each vertex, the sources of its
	// incoming edges in increasing order.
	cnt := make([]int64, n+1)
	for _, u := range g.Adj {
		cnt[u+1]++
	}
	for i := int32(0); i < n; i++ {
		cnt[i+1] += cnt[i]
	}
	rev := make([]int32, len(g.Adj))
	revW := make([]int64, len(g.Adj))
	pos := append([]int64(nil), cnt[:n]...)
	for v := int32(0); v < n; v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			rev[pos[u]], revW[pos[u]] = v, g.W(e)
			pos[u]++
		}
	}
	for v := int32(0); v < n; v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			if u == v {
				return fmt.Errorf("%s: self loop (vertex lists itself as neighbour %d)", where(v), int64(v)+base)
			}
			if mark[u] == v+1 {
				return fmt.Errorf("%s: duplicate edge to neighbour %d", where(v), int64(u)+base)
			}
			mark[u], weight[u] = v+1, g.W(e)
		}
		// Incoming edges of v must match its outgoing ones exactly.
		in := cnt[v+1] - cnt[v]
		if out := g.XAdj[v+1] - g.XAdj[v]; in != out {
			// Find a witness for the message.
			for i := cnt[v]; i < cnt[v+1]; i++ {
				if mark[rev[i]] != v+1 {
					return fmt.Errorf("asymmetric edge: %s lists neighbour %d, but %s does not list %d",
						where(rev[i]), int64(v)+base, where(v), int64(rev[i])+base)
				}
			}
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				u := g.Adj[e]
				if !listsNeighbour(g, u, v) {
					return fmt.Errorf("asymmetric edge: %s lists neighbour %d, but %s does not list %d",
						where(v), int64(u)+base, where(u), int64(v)+base)
				}
			}
			return fmt.Errorf("asymmetric edges at %s", where(v))
		}
		for i := cnt[v]; i < cnt[v+1]; i++ {
			u := rev[i]
			if mark[u] != v+1 {
				return fmt.Errorf("asymmetric edge: %s lists neighbour %d, but %s does not list %d",
					where(u), int64(v)+base, where(v), int64(u)+base)
			}
			if weight[u] != revW[i] {
				return fmt.Errorf("asymmetric edge weight: %s gives edge to %d weight %d, but %s gives it weight %d",
					where(v), int64(u)+base, weight[u], where(u), revW[i])
			}
		}
	}
	return nil
}

func listsNeighbour(g *Graph, v, u int32) bool {
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		if g.Adj[e] == u {
			return true
		}
	}
	return false
}

func ownerOf(g *Graph, e int64) int32 {
	lo, hi := 0, len(g.VW)
	for hi-lo > 1 { // largest v with XAdj[v] <= e
		mid := (lo + hi) / 2
		if g.XAdj[mid] <= e {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int32(lo)
}
