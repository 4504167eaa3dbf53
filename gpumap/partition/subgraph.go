package partition

import "github.com/gpumap/gpumap/gpumap/graph"

// Sub is an induced subgraph together with the ids of its vertices in the
// parent graph.
type Sub struct {
	G      *graph.Graph
	Global []int32 // increasing
}

// Blocks indexes the blocks of a partition so that their induced subgraphs
// can be built one at a time, when they are needed (and dropped when
// done), instead of all at once.
type Blocks struct {
	g       *graph.Graph
	part    []int32
	first   []int32 // block b's vertices are members[first[b]:first[b+1]]
	members []int32 // vertices grouped by block, increasing within a block
	local   []int32 // local[v]: v's index within its block
}

// NewBlocks indexes the k blocks of part on g.
func NewBlocks(g *graph.Graph, part []int32, k int) *Blocks {
	n := g.N()
	bs := &Blocks{g: g, part: part, first: make([]int32, k+1), members: make([]int32, n), local: make([]int32, n)}
	for _, b := range part {
		bs.first[b+1]++
	}
	for b := 0; b < k; b++ {
		bs.first[b+1] += bs.first[b]
	}
	fill := make([]int32, k)
	for v, b := range part {
		bs.local[v] = fill[b]
		bs.members[bs.first[b]+fill[b]] = int32(v)
		fill[b]++
	}
	return bs
}

// Size is the number of vertices of block b.
func (bs *Blocks) Size(b int) int { return int(bs.first[b+1] - bs.first[b]) }

// Extract builds the subgraph induced by block b. Its edge weights take the
// parent's form (none when all are 1, 32-bit from a narrow graph).
func (bs *Blocks) Extract(b int) Sub {
	g, part := bs.g, bs.part
	vs := bs.members[bs.first[b]:bs.first[b+1]]
	sg := &graph.Graph{XAdj: make([]int64, len(vs)+1), VW: make([]int64, len(vs))}
	var m int64
	for i, v := range vs {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if part[g.Adj[e]] == int32(b) {
				m++
			}
		}
		sg.XAdj[i+1] = m
		sg.VW[i] = g.VW[v]
	}
	sg.Adj = make([]int32, m)
	w32, w64 := g.Weights()
	var ew32 []int32
	var ew64 []int64
	switch {
	case w32 != nil:
		ew32 = make([]int32, m)
	case w64 != nil:
		ew64 = make([]int64, m)
	}
	j := 0
	for _, v := range vs {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; part[u] == int32(b) {
				sg.Adj[j] = bs.local[u]
				switch {
				case ew32 != nil:
					ew32[j] = w32[e]
				case ew64 != nil:
					ew64[j] = w64[e]
				}
				j++
			}
		}
	}
	switch {
	case ew32 != nil:
		sg.SetNarrowWeights(ew32) // a part of a narrow total
	case ew64 != nil:
		sg.SetEdgeWeights(ew64)
	}
	return Sub{G: sg, Global: vs}
}

// Split builds the k subgraphs induced by the blocks of part.
func Split(g *graph.Graph, part []int32, k int) []Sub {
	bs := NewBlocks(g, part, k)
	subs := make([]Sub, k)
	for b := range subs {
		subs[b] = bs.Extract(b)
	}
	return subs
}
