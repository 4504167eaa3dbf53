package partition

import (
	"github.com/gpumap/gpumap/gpumap/internal/pq"
	"math/rand/v2"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// flatBisect splits a small graph into two blocks with limits maxW[0] and
// maxW[1] by greedy graph growing from several random seeds, each polished
// by 2-way FM (followed by PairFM when pair.Rounds > 0); it keeps the
// best feasible result (or the least overloaded).
func flatBisect(g *graph.Graph, maxW [2]int64, tries int, fm refinement.FMConfig, minImprove float64, pair refinement.PairFMConfig, seed uint64) []int32 {
	n := g.N()
	total := g.TotalVertexWeight()
	// Block 0's share of the weight, in proportion to the limits.
	target0 := int64(float64(total) * float64(maxW[0]) / float64(maxW[0]+maxW[1]))
	rng := rand.New(rand.NewPCG(seed, 0x67676770))
	var best []int32
	bestCost, bestExcess := int64(-1), int64(-1)
	part := make([]int32, n)
	grow := newGrower(g)
	// Tiny graphs have few distinct bisections: fewer tries suffice.
	tries = max(1, min(tries, n/8))
	for t := 0; t < tries; t++ {
		// Alternate seeds: pseudo-peripheral vertices (far ends of the
		// graph, which grids and meshes need for straight cuts) and random
		// ones; every other peripheral try grows by BFS order, not gain.
		start := int32(rng.IntN(n))
		bfs := false
		if t%2 == 0 {
			start = grow.peripheral(start)
			bfs = t%4 == 2
		}
		grow.run(part, target0, maxW[0], start, bfs, rng)
		s := refinement.NewState(g, 2, part, maxW[:], refinement.Cut())
		if s.Overloaded() > 0 {
			refinement.Rebalance(s)
		}
		// Classic FM: every boundary vertex starts in the queue and a pass
		// may run deep, which small graphs afford.
		cfg := fm
		cfg.Seed = rng.Uint64()
		cfg.Seeds = n
		cfg.Alpha = min(max(cfg.Alpha, n/4, 60), FlatAlphaCap)
		cfg.Rounds = max(cfg.Rounds, FlatRounds)
		cost := int64(-1) // no cost: the rounds go on while they gain
		if minImprove > 0 {
			cfg.MinImprove, cost = minImprove, s.Cost()
		}
		refinement.RunFM2(s, cfg, cost)
		if pair.Rounds > 0 {
			pc := pair
			pc.Seed = cfg.Seed
			refinement.PairFM(s, pc)
		}
		cost, excess := s.Cost(), s.Excess()
		if best == nil || excess < bestExcess || excess == bestExcess && cost < bestCost {
			best = append(best[:0], part...)
			bestCost, bestExcess = cost, excess
		}
	}
	return best
}

// grower grows block 0 breadth-first by gain from a random seed vertex.
type grower struct {
	g    *graph.Graph
	gain []int64 // conn to block 0 minus conn to block 1, for block-1 vertices
	skip []bool  // too heavy to join block 0
	heap *pq.Heap
	// breadth-first search scratch
	queue []int32
	seen  []uint32
	stamp uint32
}

func newGrower(g *graph.Graph) *grower {
	return &grower{g: g, gain: make([]int64, g.N()), skip: make([]bool, g.N()), heap: pq.New(g.N())}
}

func (gr *grower) run(part []int32, target0, max0 int64, start int32, bfs bool, rng *rand.Rand) {
	g := gr.g
	n := g.N()
	for v := range part {
		part[v] = 1
		gr.gain[v] = -weightedDegree(g, int32(v))
		gr.skip[v] = false
	}
	gr.heap.Clear()
	gr.heap.Push(start, 0, 0)
	order := int64(0)
	var w0 int64
	for w0 < target0 {
		if gr.heap.Len() == 0 {
			// Start (or restart, in a disconnected graph) from a random
			// vertex still in block 1 that has not proved too heavy.
			v := int32(rng.IntN(n))
			i := 0
			for ; i < n && (part[v] == 0 || gr.skip[v]); i++ {
				v = (v + 1) % int32(n)
			}
			if i == n {
				return
			}
			gr.heap.Push(v, gr.gain[v], 0)
		}
		v := gr.heap.Pop().V
		w := g.VW[v]
		if w0+w > max0 {
			gr.skip[v] = true
			continue
		}
		if w0+w-target0 > target0-w0 {
			return // taking v would land farther from the target
		}
		part[v] = 0
		w0 += w
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			if part[u] == 1 && !gr.skip[u] {
				gr.gain[u] += 2 * g.W(e)
				if bfs {
					if !gr.heap.Contains(u) {
						order--
						gr.heap.Push(u, order, 0) // first come, first served
					}
				} else {
					gr.heap.Push(u, gr.gain[u], 0)
				}
			}
		}
	}
}

func weightedDegree(g *graph.Graph, v int32) int64 {
	var s int64
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		s += g.W(e)
	}
	return s
}

// peripheral returns a pseudo-peripheral vertex: the last vertex reached by
// a breadth-first search from the last vertex reached by one from start.
func (gr *grower) peripheral(start int32) int32 {
	g := gr.g
	n := g.N()
	if cap(gr.queue) < n {
		gr.queue = make([]int32, 0, n)
		gr.seen = make([]uint32, n)
	}
	v := start
	for pass := 0; pass < 2; pass++ {
		gr.stamp++
		q := append(gr.queue[:0], v)
		gr.seen[v] = gr.stamp
		for i := 0; i < len(q); i++ {
			x := q[i]
			for e := g.XAdj[x]; e < g.XAdj[x+1]; e++ {
				if u := g.Adj[e]; gr.seen[u] != gr.stamp {
					gr.seen[u] = gr.stamp
					q = append(q, u)
				}
			}
		}
		v = q[len(q)-1]
		gr.queue = q
	}
	return v
}

var FlatAlphaCap = 1 << 30
var FlatRounds = 10
