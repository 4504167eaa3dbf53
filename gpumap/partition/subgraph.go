package partition

import (
	"slices"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

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
	return NewBlocksOn(par.New(1), g, part, k)
}

// NewBlocksOn is NewBlocks on x's threads: every chunk of vertices counts
// its vertices per block, and then places them after the earlier chunks'
// (the same index for any thread count). The whole machine's split
// indexed its blocks on the caller alone before the children's tasks were
// queued: 63 ms of a 2^20-vertex 3D grid's run at -t 2 with the other
// core idle (an execution trace), two arrays of 4 bytes per vertex to
// fault in.
func NewBlocksOn(x *par.Exec, g *graph.Graph, part []int32, k int) *Blocks {
	n := g.N()
	bs := &Blocks{g: g, part: part, first: make([]int32, k+1), members: make([]int32, n), local: make([]int32, n)}
	c := x.Chunks(n)
	if c*k > n {
		c = 1 // more counters than vertices (many blocks)
	}
	// at[i*k+b]: chunk i's vertices in block b, then the index within b
	// of the first of them.
	at := make([]int32, c*k)
	// x.For cuts [0,n) into x.Chunks(n) = c chunks.
	chunk := func(body func(i, lo, hi int)) {
		if c == 1 {
			body(0, 0, n)
			return
		}
		x.For(n, body)
	}
	// Each chunk counts in a slice of its own: the chunks' counters side
	// by side in at share cache lines.
	chunk(func(i, lo, hi int) {
		cnt := make([]int32, k)
		for _, b := range part[lo:hi] {
			cnt[b]++
		}
		copy(at[i*k:], cnt)
	})
	for b := 0; b < k; b++ {
		var s int32
		for i := 0; i < c; i++ {
			s, at[i*k+b] = s+at[i*k+b], s
		}
		bs.first[b+1] = bs.first[b] + s
	}
	chunk(func(i, lo, hi int) {
		fill := slices.Clone(at[i*k : (i+1)*k])
		for v := lo; v < hi; v++ {
			b := part[v]
			bs.local[v] = fill[b]
			bs.members[bs.first[b]+fill[b]] = int32(v)
			fill[b]++
		}
	})
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
