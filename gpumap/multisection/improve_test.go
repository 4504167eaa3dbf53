package multisection

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// improvePEs keeps each vertex's edge weight to every PE in a table; the
// moves and swaps it makes must be those of the same search recounting
// every sum from the adjacency (improvePEsRecount, its first form), on
// random sets of a random weighted graph with random starts and
// capacities. 3,000 sets (0.09 s): with 300, dropping the recount of
// onPE after a swap still passed.
func TestImprovePEsMatchesRecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 26))
	const n = 120
	b := graph.NewBuilder(n)
	for v := range n {
		b.SetVertexWeight(v, 1+int64(rng.IntN(3)))
		for range 4 {
			if u := rng.IntN(n); u != v {
				b.AddEdge(v, u, int64(rng.IntN(3))) // weight 0 counts 1
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	newFiller := func() *filler {
		return &filler{g: g, group: make([]int32, n), mark: make([]int64, n), child: make([]int32, n), at: make([]int32, n)}
	}
	fa, fb := newFiller(), newFiller()
	for trial := range 3000 {
		s := 2 + rng.IntN(24)
		np := 2 + rng.IntN(6)
		set := rng.Perm(n)[:s]
		stamp := int64(trial + 1)
		buf := make([]int32, s)
		for i, v := range set {
			buf[i] = int32(v)
			fa.mark[v], fb.mark[v] = stamp, stamp
		}
		// Random cut points (empty PEs allowed).
		ends := make([]int, np)
		for i := range ends {
			ends[i] = rng.IntN(s + 1)
		}
		ends[np-1] = s
		slices.Sort(ends)
		capPE := 1 + int64(rng.IntN(3*(s/np+1)))
		fa.capPE, fb.capPE = capPE, capPE
		bufA, endsA := slices.Clone(buf), slices.Clone(ends)
		bufB, endsB := slices.Clone(buf), slices.Clone(ends)
		fa.improvePEs(bufA, endsA, 0, stamp, capPE)
		improvePEsRecount(fb, bufB, endsB, 0, stamp)
		if !slices.Equal(bufA, bufB) || !slices.Equal(endsA, endsB) {
			t.Fatalf("trial %d (%d vertices on %d PEs, capacity %d): %v %v, recounting %v %v",
				trial, s, np, capPE, bufA, endsA, bufB, endsB)
		}
	}
}

// improvePEsRecount is improvePEs as first written: every edge weight to a
// PE summed from the adjacency when it is needed.
func improvePEsRecount(f *filler, buf []int32, ends []int, t int32, stamp int64) {
	g := f.g
	load := make([]int64, len(ends))
	lo := 0
	for i, e := range ends {
		for _, v := range buf[lo:e] {
			f.child[v] = int32(i)
			load[i] += g.VW[v]
		}
		lo = e
	}
	conn := func(v, c int32) int64 {
		var s int64
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; f.group[u] == t && f.mark[u] == stamp && f.child[u] == c {
				s += max(g.W(e), 1)
			}
		}
		return s
	}
	w := func(u, v int32) int64 {
		var s int64
		for e := g.XAdj[u]; e < g.XAdj[u+1]; e++ {
			if g.Adj[e] == v {
				s += max(g.W(e), 1)
			}
		}
		return s
	}
	for pass := 0; pass < improvePasses; pass++ {
		improved := false
		for _, u := range buf {
			a := f.child[u]
			best, bestConn := a, conn(u, a)
			if load[a] > f.capPE {
				bestConn = -1
			}
			for c := range int32(len(ends)) {
				if c != a && load[c]+g.VW[u] <= f.capPE {
					if cc := conn(u, c); cc > bestConn {
						best, bestConn = c, cc
					}
				}
			}
			if best != a {
				f.child[u] = best
				load[a] -= g.VW[u]
				load[best] += g.VW[u]
				improved = true
			}
		}
		for i, u := range buf {
			for _, v := range buf[i+1:] {
				a, b := f.child[u], f.child[v]
				if a == b || g.VW[u] != g.VW[v] {
					continue
				}
				if conn(u, b)-conn(u, a)+conn(v, a)-conn(v, b)-2*w(u, v) > 0 {
					f.child[u], f.child[v] = b, a
					improved = true
				}
			}
		}
		if !improved {
			break
		}
	}
	pos := make([]int, len(ends))
	for _, v := range buf {
		pos[f.child[v]]++
	}
	lo = 0
	for i, c := range pos {
		pos[i] = lo
		lo += c
		ends[i] = lo
	}
	set := append([]int32(nil), buf...)
	for _, v := range set {
		c := f.child[v]
		buf[pos[c]] = v
		pos[c]++
	}
}
