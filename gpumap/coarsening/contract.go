package coarsening

import (
	"slices"
	"sync"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// CoarseMap numbers the coarse vertices of a matching: the smaller vertex of
// every pair (and every unmatched vertex) is a leader, leaders are numbered
// in increasing order, and cmap[v] is the coarse vertex of v. It returns
// cmap and the leaders (the first member of each coarse vertex).
func CoarseMap(x *par.Exec, match []int32) (cmap []int32, leaders []int32) {
	n := len(match)
	cmap = make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if int(match[v]) >= v {
				cmap[v] = 1
			} else {
				cmap[v] = 0
			}
		}
	})
	nc := par.ExclusiveScan(x, cmap)
	leaders = make([]int32, nc)
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if int(match[v]) >= v {
				leaders[cmap[v]] = int32(v)
			}
		}
	})
	x.For(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if int(match[v]) < v {
				cmap[v] = cmap[match[v]]
			}
		}
	})
	return cmap, leaders
}

// Contract builds the coarse graph of a matching: coarse vertex c holds
// leaders[c] and its partner, with their weights summed; edges between
// coarse vertices are merged with weights summed and edges inside one are
// dropped. Neighbours appear in order of first occurrence, so the result is
// deterministic for any thread count. The coarse graph's weights are
// 32-bit unless g's are 64-bit (a narrow total stays narrow).
//
// Ranges of coarse vertices are contracted in parallel, each into a piece
// of exactly its size (per-thread scratch: a small hash table per coarse
// vertex, sized to its members' degrees); the pieces are then copied into
// place. Peak extra memory: one copy of the coarse edges.
func Contract(x *par.Exec, g *graph.Graph, match, cmap, leaders []int32) *graph.Graph {
	return ContractGroups(x, g, cmap, MatchGroups(match, leaders))
}

// ContractGroups is Contract for any groups (a clustering's, ClusterMap):
// the members of a coarse vertex contribute their edges in their order.
func ContractGroups(x *par.Exec, g *graph.Graph, cmap []int32, gr Groups) *graph.Graph {
	return contractGroups(x, g, cmap, gr, false)
}

// contractGroups is ContractGroups; with grow, an executor that may grow
// (par.Exec.Grows) runs the tasks in rounds of growRound and takes the
// threads freed between them (x.Grow), as coarsen does between levels.
func contractGroups(x *par.Exec, g *graph.Graph, cmap []int32, gr Groups, grow bool) *graph.Graph {
	if g.Wide() {
		return contract[int64](x, g, cmap, &gr, grow)
	}
	return contract[int32](x, g, cmap, &gr, grow)
}

// contractGrain is the number of coarse vertices per contraction task.
const contractGrain = 1 << 13

// growRound is the number of contraction tasks between two calls of Grow
// while the executor may grow. The whole machine's hierarchy, built on one
// thread beside the features (partition.Ahead), took the features'
// thread only at its next level: on a 2^20-vertex rgg at -t 2 its first
// contraction went on alone for 130 ms after the features ended, the
// other core idle, while the split waited for it (execution trace). A
// task of 2^13 coarse vertices took 2-10 ms of its thread's CPU there
// (the first level under Greedy, 66 tasks in 9 rounds, 6 runs: median
// per round 2.6-6.8 ms; bench/results-threads-2core.txt).
const growRound = 8

// contractRound, when set (by a test), is called with the tasks of each
// round of a contraction.
var contractRound func(tasks int)

func contract[W int32 | int64](x *par.Exec, g *graph.Graph, cmap []int32, gr *Groups, grow bool) *graph.Graph {
	nc := gr.N()
	tasks := max((nc+contractGrain-1)/contractGrain, 1)
	type piece struct {
		adj []int32
		ew  []W
	}
	pieces := make([]piece, tasks)
	deg := make([]int64, nc+1)
	vw := make([]int64, nc)
	scratch := make([]*neighbourSet[W], x.Workers(tasks))
	for i := range scratch {
		scratch[i] = getNeighbourSet[W]()
	}
	defer func() {
		for _, ns := range scratch {
			putNeighbourSet(ns)
		}
	}()
	task := func(worker, t int) {
		ns := scratch[worker]
		lo, hi := t*nc/tasks, (t+1)*nc/tasks
		// The members' degrees bound the task's output: room for it up
		// front, where appends grew it by copies (growslice and memmove
		// were a tenth of a contraction-heavy run).
		bound := int64(0)
		for c := lo; c < hi; c++ {
			v, u, rest := gr.of(c)
			bound += g.XAdj[v+1] - g.XAdj[v]
			if u != v {
				bound += g.XAdj[u+1] - g.XAdj[u]
			}
			for _, r := range rest {
				bound += g.XAdj[r+1] - g.XAdj[r]
			}
		}
		ns.adj, ns.ew = slices.Grow(ns.adj[:0], int(bound)), slices.Grow(ns.ew[:0], int(bound))
		for c := lo; c < hi; c++ {
			v, u, rest := gr.of(c)
			ns.start(nc)
			w := g.VW[v]
			ns.addEdges(g, v, cmap, int32(c))
			if u != v {
				w += g.VW[u]
				ns.addEdges(g, u, cmap, int32(c))
			}
			for _, r := range rest {
				w += g.VW[r]
				ns.addEdges(g, r, cmap, int32(c))
			}
			vw[c] = w
			deg[c] = int64(ns.finish())
		}
		pieces[t] = piece{append([]int32(nil), ns.adj...), append([]W(nil), ns.ew...)}
	}
	for done := 0; done < tasks; {
		n := tasks - done
		if grow && x.Grows() {
			n = min(n, growRound)
		}
		for len(scratch) < x.Workers(n) {
			scratch = append(scratch, getNeighbourSet[W]())
		}
		x.Each(n, func(worker, t int) { task(worker, done+t) })
		if contractRound != nil {
			contractRound(n)
		}
		if done += n; grow {
			x.Grow() // the copy below too
		}
	}
	total := par.ExclusiveScan(x, deg[:nc])
	deg[nc] = total
	cg := &graph.Graph{XAdj: deg, VW: vw}
	if tasks == 1 {
		cg.Adj = pieces[0].adj
		setWeights(cg, pieces[0].ew)
		return cg
	}
	adj := make([]int32, total)
	ew := make([]W, total)
	x.Each(tasks, func(_, t int) {
		off := deg[t*nc/tasks]
		copy(adj[off:], pieces[t].adj)
		copy(ew[off:], pieces[t].ew)
		pieces[t] = piece{}
	})
	cg.Adj = adj
	setWeights(cg, ew)
	return cg
}

// CoarseAdjacency is len(Adj) of the graph ContractGroups builds from the
// groups, counted without building it: each coarse vertex's distinct
// coarse neighbours are marked in a thread's scratch (the contraction's
// own, so its table is warm) and nothing else is written.
func CoarseAdjacency(x *par.Exec, g *graph.Graph, cmap []int32, gr Groups) int64 {
	nc := gr.N()
	tasks := max((nc+contractGrain-1)/contractGrain, 1)
	counts := make([]int64, tasks)
	scratch := make([]*neighbourSet[int32], x.Workers(tasks))
	for i := range scratch {
		scratch[i] = getNeighbourSet[int32]()
	}
	defer func() {
		for _, ns := range scratch {
			putNeighbourSet(ns)
		}
	}()
	x.Each(tasks, func(worker, t int) {
		ns := scratch[worker]
		var s int64
		for c := t * nc / tasks; c < (t+1)*nc/tasks; c++ {
			ns.adj = ns.adj[:0]
			ns.start(nc)
			v, u, rest := gr.of(c)
			ns.markEdges(g, v, cmap, int32(c))
			if u != v {
				ns.markEdges(g, u, cmap, int32(c))
			}
			for _, r := range rest {
				ns.markEdges(g, r, cmap, int32(c))
			}
			s += int64(ns.finish())
		}
		counts[t] = s
	})
	var total int64
	for _, s := range counts {
		total += s
	}
	return total
}

// setWeights stores contracted weights: 32-bit ones come from a narrow or
// unit-weight graph, whose every sum of weights fits.
func setWeights[W int32 | int64](g *graph.Graph, ew []W) {
	switch w := any(ew).(type) {
	case []int32:
		g.SetNarrowWeights(w)
	case []int64:
		g.SetEdgeWeights(w)
	}
}

// neighbourSet collects the coarse neighbourhood of one coarse vertex in
// order of first occurrence, merging repeated neighbours through pos. It is
// a thread's scratch, reused across tasks and levels (pos is all zero
// between coarse vertices).
type neighbourSet[W int32 | int64] struct {
	adj   []int32 // the task's output so far
	ew    []W
	first int
	pos   []int32 // pos[cu]-1: index of cu in adj[first:]
}

func (ns *neighbourSet[W]) start(nc int) {
	if len(ns.pos) < nc {
		ns.pos = make([]int32, nc)
	}
	ns.first = len(ns.adj)
}

// addEdges adds the edges of member v of coarse vertex c. It works on
// local copies of the set's slices and stores them once: the threads'
// sets are small neighbouring heap objects, and a store to the struct per
// new neighbour made the two threads of a contraction fight over one cache
// line (addEdges took 50% more CPU on two threads than on one).
func (ns *neighbourSet[W]) addEdges(g *graph.Graph, v int32, cmap []int32, c int32) {
	adj, ew, pos, first := ns.adj, ns.ew, ns.pos, ns.first
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		cu := cmap[g.Adj[e]]
		if cu == c {
			continue
		}
		w := W(g.W(e))
		if p := pos[cu]; p > 0 {
			ew[first+int(p)-1] += w
		} else {
			adj = append(adj, cu)
			ew = append(ew, w)
			pos[cu] = int32(len(adj) - first)
		}
	}
	ns.adj, ns.ew = adj, ew
}

// markEdges is addEdges without the weights: it collects the distinct
// coarse neighbours only (CoarseAdjacency).
func (ns *neighbourSet[W]) markEdges(g *graph.Graph, v int32, cmap []int32, c int32) {
	adj, pos, first := ns.adj, ns.pos, ns.first
	for _, u := range g.Adj[g.XAdj[v]:g.XAdj[v+1]] {
		if cu := cmap[u]; cu != c && pos[cu] == 0 {
			adj = append(adj, cu)
			pos[cu] = int32(len(adj) - first)
		}
	}
	ns.adj = adj
}

// finish clears the table and returns the vertex's coarse degree.
func (ns *neighbourSet[W]) finish() int {
	for _, cu := range ns.adj[ns.first:] {
		ns.pos[cu] = 0
	}
	return len(ns.adj) - ns.first
}

var neighbourSets32, neighbourSets64 sync.Pool

func getNeighbourSet[W int32 | int64]() *neighbourSet[W] {
	p := &neighbourSets32
	var zero W
	if _, wide := any(zero).(int64); wide {
		p = &neighbourSets64
	}
	if ns, ok := p.Get().(*neighbourSet[W]); ok {
		return ns
	}
	return par.NewPrivate[neighbourSet[W]]()
}

func putNeighbourSet[W int32 | int64](ns *neighbourSet[W]) {
	ns.adj, ns.ew = ns.adj[:0], ns.ew[:0]
	if _, wide := any(ns.ew).([]int64); wide {
		neighbourSets64.Put(ns)
	} else {
		neighbourSets32.Put(ns)
	}
}

// Project maps a coarse assignment back to the finer graph:
// fine[v] = coarse[cmap[v]].
func Project(x *par.Exec, cmap []int32, coarse []int32, fine []int32) {
	x.For(len(cmap), func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			fine[v] = coarse[cmap[v]]
		}
	})
}
