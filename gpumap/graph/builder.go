package graph

import (
	"fmt"
	"math"
)

// Builder assembles a Graph from an edge list. Edges may be given in one
// direction or both and may repeat: Build symmetrises them and merges
// duplicates by summing their weights, so w{u,v} is the total of every
// (u,v) and (v,u) entry added. This is the rule for communication patterns:
// if u sends x bytes to v and v sends y bytes to u, the edge carries x+y.
type Builder struct {
	n   int32
	vw  []int64
	src []int32
	dst []int32
	w   []int64
	err error
}

// NewBuilder starts a graph with n vertices of weight 1.
func NewBuilder(n int) *Builder {
	b := &Builder{}
	if n < 0 || int64(n) > MaxVertices {
		b.err = fmt.Errorf("graph builder: vertex count %d out of range [0,%d]", n, int64(MaxVertices))
		return b
	}
	b.n = int32(n)
	b.vw = make([]int64, n)
	for i := range b.vw {
		b.vw[i] = 1
	}
	return b
}

// SetVertexWeight sets c(v).
func (b *Builder) SetVertexWeight(v int, w int64) {
	if b.err != nil {
		return
	}
	switch {
	case v < 0 || v >= int(b.n):
		b.err = fmt.Errorf("graph builder: vertex %d out of range [0,%d)", v, b.n)
	case w < 0:
		b.err = fmt.Errorf("graph builder: vertex %d has negative weight %d", v, w)
	default:
		b.vw[v] = w
	}
}

// AddEdge records communication of weight w between u and v.
func (b *Builder) AddEdge(u, v int, w int64) {
	if b.err != nil {
		return
	}
	switch {
	case u < 0 || u >= int(b.n):
		b.err = fmt.Errorf("graph builder: edge (%d,%d): vertex %d out of range [0,%d)", u, v, u, b.n)
	case v < 0 || v >= int(b.n):
		b.err = fmt.Errorf("graph builder: edge (%d,%d): vertex %d out of range [0,%d)", u, v, v, b.n)
	case u == v:
		b.err = fmt.Errorf("graph builder: edge (%d,%d) is a self loop", u, v)
	case w < 0:
		b.err = fmt.Errorf("graph builder: edge (%d,%d) has negative weight %d", u, v, w)
	default:
		b.src = append(b.src, int32(u))
		b.dst = append(b.dst, int32(v))
		b.w = append(b.w, w)
	}
}

// Build returns the symmetric, duplicate-free graph, or the first error any
// earlier call recorded. Each vertex's neighbours come out in increasing
// order.
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	return FromArcs(b.vw, b.src, b.dst, b.w)
}

// FromArcs builds a graph from arcs (src[i], dst[i], w[i]) that must be in
// range and free of self loops; both directions are added and duplicates
// summed. vw is used as the vertex weights (not copied).
func FromArcs(vw []int64, src, dst []int32, w []int64) (*Graph, error) {
	n := int32(len(vw))
	cnt := make([]int64, n+1)
	for i := range src {
		cnt[src[i]+1]++
		cnt[dst[i]+1]++
	}
	for v := int32(0); v < n; v++ {
		cnt[v+1] += cnt[v]
	}
	total := cnt[n]
	// Bucket arcs by source in increasing order of the other endpoint: a
	// counting sort by target first, then a stable one by source.
	adj := make([]int32, total)
	ew := make([]int64, total)
	pos := append([]int64(nil), cnt[:n]...)
	// First pass: bucket all 2*len arcs by their target (every vertex is
	// the target of as many arcs as it is the source of, so the offsets are
	// the same).
	tcnt := cnt
	tsrc := make([]int32, total)
	tw := make([]int64, total)
	tpos := append([]int64(nil), tcnt[:n]...)
	for i := range src {
		u, v := src[i], dst[i]
		tsrc[tpos[v]], tw[tpos[v]] = u, w[i]
		tpos[v]++
		tsrc[tpos[u]], tw[tpos[u]] = v, w[i]
		tpos[u]++
	}
	// Second pass: arc (t -> s) stored at target t; place into s's list so
	// each list is sorted by t.
	for t := int32(0); t < n; t++ {
		for i := tcnt[t]; i < tcnt[t+1]; i++ {
			s := tsrc[i]
			adj[pos[s]], ew[pos[s]] = t, tw[i]
			pos[s]++
		}
	}
	// Merge runs of equal neighbours in place.
	xadj := make([]int64, n+1)
	out := int64(0)
	for v := int32(0); v < n; v++ {
		start := out
		for e := cnt[v]; e < cnt[v+1]; e++ {
			if out > start && adj[out-1] == adj[e] {
				if ew[out-1] > math.MaxInt64-ew[e] {
					return nil, fmt.Errorf("graph builder: weight of edge (%d,%d) overflows int64", v, adj[e])
				}
				ew[out-1] += ew[e]
				continue
			}
			adj[out], ew[out] = adj[e], ew[e]
			out++
		}
		xadj[v+1] = out
	}
	g := &Graph{XAdj: xadj, Adj: adj[:out:out], VW: vw}
	g.SetEdgeWeights(ew[:out:out])
	return g, nil
}
