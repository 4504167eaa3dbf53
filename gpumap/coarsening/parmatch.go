package coarsening

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// parallelGreedyMin is the size from which natural-order greedy matching
// runs its two halves side by side.
const parallelGreedyMin = 1 << 15

// greedyNatural is Greedy in natural order (the same matching, vertex for
// vertex), on two threads: the first half of the vertices is matched as
// Greedy does, while the second half is matched speculatively as if no
// vertex had been matched before it. In the sequential run every vertex
// of the first half is settled when the second half starts, so the two
// runs differ only by the second-half vertices the first half took as
// partners. A repair then replays the second half in order with the true
// state, tracking the vertices whose matched status differs between the
// two runs; once none is left the speculative decisions are the true
// ones and are copied. On numberings with locality (what natural order is
// for) the difference dies out within a few rows of the half's start.
func greedyNatural(x *par.Exec, g *graph.Graph, maxWeight int64, block []int32) []int32 {
	n := g.N()
	if x.Threads() < 2 || n < parallelGreedyMin {
		return Greedy(g, maxWeight, 0, block, true)
	}
	mid := int32(n / 2)
	match := make([]int32, n)
	// spec: the speculative run's partners; the first half counts as
	// matched there (0 is not Unmatched), as it is when the second half
	// starts in the sequential run.
	spec := make([]int32, n)
	at := make([]int32, n-int(mid)) // when the speculative run matched it
	var front []int32               // second-half vertices the first half took
	done := make(chan struct{})
	go func() {
		defer close(done)
		clear(spec[:mid])
		for i := mid; i < int32(n); i++ {
			spec[i] = Unmatched
		}
		for v := mid; v < int32(n); v++ {
			if spec[v] != Unmatched {
				continue
			}
			u := greedyPick(g, v, spec, maxWeight, block)
			spec[v], spec[u] = u, v
			at[v-mid], at[u-mid] = v, v
		}
	}()
	for i := range match {
		match[i] = Unmatched
	}
	for v := int32(0); v < mid; v++ {
		if match[v] != Unmatched {
			continue
		}
		u := greedyPick(g, v, match, maxWeight, block)
		match[v], match[u] = u, v
		if u >= mid {
			front = append(front, u)
		}
	}
	<-done
	// diff[u-mid]: u's matched status differs between the true and the
	// speculative run at the current position (u at or after it).
	diff := make([]bool, n-int(mid))
	count := 0
	set := func(u int32, d bool) {
		if diff[u-mid] != d {
			diff[u-mid] = d
			if d {
				count++
			} else {
				count--
			}
		}
	}
	for _, u := range front {
		set(u, true)
	}
	p := mid
	for ; p < int32(n) && count > 0; p++ {
		specMatched := at[p-mid] < p
		if match[p] == Unmatched {
			u := greedyPick(g, p, match, maxWeight, block)
			match[p], match[u] = u, p
			if u != p {
				set(u, at[u-mid] > p) // the speculative run matches u later (or never before)
			}
		}
		if !specMatched {
			if u := spec[p]; u != p {
				set(u, match[u] == Unmatched)
			}
		}
		set(p, false)
	}
	for v := p; v < int32(n); v++ {
		if match[v] == Unmatched {
			match[v] = spec[v]
		}
	}
	return match
}

// greedyPick is v's partner in Greedy's natural order given the matched
// vertices of match (Unmatched: free), or v itself.
func greedyPick(g *graph.Graph, v int32, match []int32, maxWeight int64, block []int32) int32 {
	cv := g.VW[v]
	best, bestR, bestH := v, -1.0, uint64(0)
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		u := g.Adj[e]
		if match[u] != Unmatched || cv+g.VW[u] > maxWeight || block != nil && block[u] != block[v] {
			continue
		}
		r := rating(g.W(e), cv, g.VW[u])
		if h := uint64(^uint32(u)); r >= bestR && better(r, h, bestR, bestH) {
			best, bestR, bestH = u, r, h
		}
	}
	return best
}
