package gpumap

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// quotient builds a rank graph the way applications produce them: the
// quotient of a geometric graph cut into k blocks in a numbering with
// locality (consecutive point ids), optionally with the block ids shuffled.
func quotient(k int, seed uint64, shuffle bool) *graph.Graph {
	g := graph.RandomGeometric(16*k, seed)
	perm := make([]int, k)
	for i := range perm {
		perm[i] = i
	}
	if shuffle {
		rand.New(rand.NewPCG(seed, 2)).Shuffle(k, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	}
	block := func(v int32) int { return perm[int(v)*k/g.N()] }
	w := map[[2]int]int64{}
	for v := int32(0); v < int32(g.N()); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if a, b := block(v), block(g.Adj[e]); a < b {
				w[[2]int{a, b}]++
			}
		}
	}
	b := graph.NewBuilder(k)
	for p, x := range w {
		b.AddEdge(p[0], p[1], x)
	}
	q, _ := b.Build()
	return q
}

// One-to-one promises (issue 11): never worse than the input order, strong
// never worse than default, the same mapping for any thread count.
func TestOneToOnePromises(t *testing.T) {
	top, _ := topology.Parse("8:2:8", "1:10:100")
	k := top.K()
	id := make([]int32, k)
	for i := range id {
		id[i] = int32(i)
	}
	for seed := uint64(0); seed < 4; seed++ {
		g := quotient(k, seed, seed%2 == 1)
		idCost, _ := graph.Evaluate(g, top, id, 0)
		var defJ int64
		for _, preset := range []Preset{Fast, Default, Strong} {
			var first []int32
			for _, threads := range []int{1, 2} {
				opt := DefaultOptions()
				opt.Eps, opt.Preset, opt.Threads, opt.Seed, opt.Backend = 0, preset, threads, seed, CPU
				res, err := Map(g, top, opt)
				if err != nil || !res.OneToOne || !res.Metrics.Feasible {
					t.Fatalf("seed %d %s: %v", seed, preset, err)
				}
				if res.Metrics.J > idCost.J {
					t.Fatalf("seed %d %s: J %d above the input order's %d", seed, preset, res.Metrics.J, idCost.J)
				}
				if first == nil {
					first = res.PE
				} else {
					for v := range first {
						if first[v] != res.PE[v] {
							t.Fatalf("seed %d %s: thread count changes the mapping", seed, preset)
						}
					}
				}
				switch preset {
				case Default:
					defJ = res.Metrics.J
				case Strong:
					if res.Metrics.J > defJ {
						t.Fatalf("seed %d: strong J %d above default's %d", seed, res.Metrics.J, defJ)
					}
				}
			}
		}
	}
}
