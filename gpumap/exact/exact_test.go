package exact

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// plain enumerates every feasible mapping, without bounds or symmetry.
func plain(g *graph.Graph, top *topology.Topology, lmax int64) int64 {
	n, k := g.N(), top.K()
	pe := make([]int32, n)
	load := make([]int64, k)
	best := int64(-1)
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			if c := cost(g, top, pe); best < 0 || c < best {
				best = c
			}
			return
		}
		for p := 0; p < k; p++ {
			if load[p]+g.VW[v] <= lmax {
				load[p] += g.VW[v]
				pe[v] = int32(p)
				rec(v + 1)
				load[p] -= g.VW[v]
			}
		}
	}
	rec(0)
	return best
}

func TestExactMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	tops := []*topology.Topology{}
	for _, h := range [][2]string{{"2:2", "1:10"}, {"2:2:2", "1:10:100"}, {"3:2", "1:4"}, {"4", "3"}} {
		top, _ := topology.Parse(h[0], h[1])
		tops = append(tops, top)
	}
	tree, _ := topology.NewTree([][]int{{0, 0, 0, 1, 2, 2}, {0, 0, 0, 0, 1, 1}}, []int64{1, 5, 20})
	tops = append(tops, tree)
	for trial := 0; trial < 120; trial++ {
		top := tops[trial%len(tops)]
		n := 2 + rng.IntN(6)
		g := graph.Random(n, 3*n, 9, 2, uint64(trial))
		lmax := int64(1 + rng.IntN(4))
		if g.TotalVertexWeight() > lmax*int64(top.K()) || g.MaxVertexWeight() > lmax {
			continue
		}
		want := plain(g, top, lmax)
		if want < 0 {
			continue
		}
		// Start from any feasible mapping: first fit.
		pe := make([]int32, n)
		load := make([]int64, top.K())
		fits := true
		for v := 0; v < n && fits; v++ {
			p := 0
			for p < top.K() && load[p]+g.VW[v] > lmax {
				p++
			}
			if p == top.K() {
				fits = false
				break
			}
			load[p] += g.VW[v]
			pe[v] = int32(p)
		}
		if !fits {
			continue
		}
		if !Improve(g, top, lmax, pe, 1<<22) {
			t.Fatalf("trial %d: budget exhausted", trial)
		}
		if got := cost(g, top, pe); got != want {
			t.Fatalf("trial %d (%v, n=%d, lmax=%d): exact %d, enumeration %d", trial, top, n, lmax, got, want)
		}
	}
}
