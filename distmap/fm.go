package distmap

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// localGraph is g's local part as a graph of its own: the local vertices
// 0..N-1 with all their edges, then the ghosts, each with its edges to
// local vertices only (so the graph is symmetric). Ghosts weigh nothing:
// they never move, and block weights come from all ranks.
func localGraph(g *Graph) *graph.Graph {
	n, ng := g.N(), len(g.Ghost)
	deg := make([]int64, n+ng+1)
	for v := range n {
		deg[v+1] = g.XAdj[v+1] - g.XAdj[v]
	}
	for _, u := range g.Adj {
		if int(u) >= n {
			deg[u+1]++
		}
	}
	for v := range n + ng {
		deg[v+1] += deg[v]
	}
	xadj := deg
	m := xadj[n+ng]
	adj := make([]int32, m)
	copy(adj, g.Adj)
	var w []int64 // nil: every weight is 1, as in g
	if g.ew != nil {
		w = make([]int64, m)
		copy(w, g.ew)
	}
	fill := make([]int64, ng)
	for v := range n {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := int(g.Adj[e]); u >= n {
				i := xadj[u] + fill[u-n]
				fill[u-n]++
				adj[i] = int32(v)
				if w != nil {
					w[i] = g.ew[e]
				}
			}
		}
	}
	vw := make([]int64, n+ng)
	copy(vw, g.VW)
	lg := &graph.Graph{XAdj: xadj, Adj: adj, VW: vw}
	lg.SetEdgeWeights(w)
	return lg
}

// localFM improves the mapping pe (local vertices and ghosts) by gpumap's
// localized FM on J: every rank refines its own vertices with its ghosts'
// PEs fixed and its share of every PE's room (roomShares), then the ghosts are
// refreshed. Moves of two ranks at both ends of an edge were each priced
// with the other end where it was; the true change of J is the predicted
// one plus, on every such edge, D(p',q') - D(p',q) - D(p,q') + D(p,q)
// times its weight, summed in one allreduce. If J did not fall, every rank
// takes its moves back, so J never rises. It returns the fall of J.
// Collective.
func localFM(g *Graph, lg *graph.Graph, top *topology.Topology, pe []int32, lmax int64, cfg refinement.FMConfig) (int64, error) {
	k, n := top.K(), g.N()
	load := make([]int64, k)
	for v := range n {
		load[pe[v]] += g.VW[v]
	}
	// A PE already above lmax may only lose weight.
	load, share, err := roomShares(g, load, lmax)
	if err != nil {
		return 0, err
	}
	maxW := make([]int64, k)
	for p, x := range load {
		maxW[p] = x + share[p]
	}
	part := make([]int32, len(pe))
	copy(part, pe)
	s := refinement.NewState(lg, k, part, maxW, refinement.Mapping(top))
	copy(s.BW, load)
	s.FixedFrom = int32(n)
	var gain int64
	if n > 0 {
		// This rank's share of J (its edges to ghosts counted in full)
		// for FM's relative stopping rule.
		gain = refinement.RunFM(s, cfg, s.Cost())
	}
	// FM's rollback keeps every block within its limit when it starts so;
	// a rank whose blocks end above both their limit and their start
	// (possible only from an infeasible start) takes its moves back.
	for p := range k {
		if s.BW[p] > maxW[p] && s.BW[p] > load[p] {
			copy(part[:n], pe[:n])
			gain = 0
			break
		}
	}
	ghost, err := exchange(g, part[:n])
	if err != nil {
		return 0, err
	}
	labels := top.Labels()
	d := func(p, q int32) int64 { return top.LabelDistance(labels[p], labels[q]) }
	var corr int64
	for v := range n {
		p, p2 := pe[v], part[v]
		if p == p2 {
			continue
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := int(g.Adj[e])
			if u < n {
				continue
			}
			q, q2 := pe[u], ghost[u-n]
			if q != q2 {
				corr += g.W(e) * (d(p2, q2) - d(p2, q) - d(p, q2) + d(p, q))
			}
		}
	}
	sums, err := sumAll(g.c, gain, corr)
	if err != nil {
		return 0, err
	}
	// Both ends of a conflicting edge counted its correction.
	fall := sums[0] - sums[1]/2
	if fall <= 0 {
		return 0, nil
	}
	copy(pe, part[:n])
	copy(pe[n:], ghost)
	return fall, nil
}
