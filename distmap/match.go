package distmap

import (
	"slices"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// matchGraph is the graph that rank matches on: its local vertices
// 0..N-1 with all their edges and its ghosts (vertices N.., in global
// order, without edges of their own, weighing vw), which a local vertex
// may claim as the one-process matching pairs vertices across the ranks'
// boundaries. It shares g's adjacency and edge weights; only the offsets
// and the vertex weights are new. The ghosts of earlier ranks (N..N+up-1)
// are no partners: their owners visit them first, so match marks them
// taken (matched to themselves), which leaves every other choice as it
// was on the rank's part copied without them (ids keep their order: the
// ties to the lowest id). The copy was a third of match on FLA at P=2
// (its profile: 0.11 of 0.31 s).
func matchGraph(g *Graph, vw []int64) *graph.Graph {
	n, nu := g.N(), len(vw)
	xadj := make([]int64, n+nu+1)
	copy(xadj, g.XAdj[:n+1])
	for v := n + 1; v <= n+nu; v++ {
		xadj[v] = xadj[n]
	}
	mg := &graph.Graph{XAdj: xadj, Adj: g.Adj[:xadj[n]], VW: append(slices.Clip(g.VW), vw...)}
	if g.ew != nil {
		mg.SetEdgeWeights(g.ew[:xadj[n]])
	}
	return mg
}

// match clusters g by gpumap's greedy heavy-edge matching (the exp*2
// rating of the one-process mapper) in natural order: a pair weighs at
// most limit, and is labelled by its smaller global id. In natural order
// it keeps the straight cuts of meshes numbered with locality, as the
// one-process coarsening does, which label propagation's clusters lose
// (a 3D grid mapped 1.2x the one-process J; the matching in random order:
// 1.18x); ties go to the lowest id.
//
// The matching is the one-process one (where no edge spans more than two
// ranks): each rank matches its vertices with those of later ranks
// allowed as partners (claims), the claims go to their owners, which
// match again with the claimed vertices taken; this repeats while the
// claims change, at most once per rank, rank r's claims being final
// after r+1 passes. Matching each rank's vertices alone, from a fresh
// start, paired a grid's vertices out of phase wherever a rank's range
// began mid-row, and the irregular coarse graph that resulted mapped
// 17% worse (128x128x64 at P=4, whose ranges split at odd ids; P=2's at
// an even one). A vertex claimed by two ranks goes to the lower claimant;
// the other stays alone. It returns the labels of the local vertices and
// the ghosts (collective: the ghosts' labels come from their owners).
func match(g *Graph, limit int64) ([]int64, error) {
	n := g.N()
	gvw, err := exchange(g, g.VW)
	if err != nil {
		return nil, err
	}
	up := int(g.ghostOff[g.rank+1]) // the first ghost of a later rank
	mg := matchGraph(g, gvw)
	// claimed[v]: the global id of v's partner on an earlier rank, or -1;
	// claim[i]: the local vertex's global id that claims ghost i, or -1.
	claimed := make([]int64, n)
	claim := make([]int64, len(g.Ghost))
	sent := make([]int64, len(g.Ghost))
	for i := range claimed {
		claimed[i] = -1
	}
	for i := range sent {
		sent[i] = -1
	}
	m := make([]int32, mg.N())
	for pass, redo := 0, true; ; pass++ {
		if redo {
			for v := range m {
				m[v] = coarsening.Unmatched
				if v < n && claimed[v] >= 0 || v >= n && v < n+up {
					m[v] = int32(v)
				}
			}
			coarsening.GreedyFrom(mg, limit, m, n)
		}
		var changed int64
		for i := range claim {
			claim[i] = -1
		}
		for v := range n {
			if u := int(m[v]); u >= n {
				claim[u-n] = g.First() + int64(v)
			}
		}
		if !slices.Equal(claim, sent) {
			changed = 1
		}
		s, err := sumAll(g.c, changed)
		if err != nil {
			return nil, err
		}
		if s[0] == 0 || pass > g.size {
			// pass > size cannot happen (rank r's claims are final
			// after pass r); bounded all the same.
			break
		}
		claim, sent = sent, claim
		got, _, err := mpi.Alltoallv(g.c, sent, g.ghostOff, g.size)
		if err != nil {
			return nil, err
		}
		redo = false
		now := make([]int64, n)
		for i := range now {
			now[i] = -1
		}
		for j, x := range got {
			if v := g.send[j]; x >= 0 && (now[v] < 0 || x < now[v]) {
				now[v] = x
			}
		}
		if !slices.Equal(now, claimed) {
			claimed, redo = now, true
		}
	}
	label := make([]int64, n+len(g.Ghost))
	for v := range n {
		switch u := int(m[v]); {
		case claimed[v] >= 0:
			label[v] = claimed[v]
		case u >= n:
			label[v] = g.First() + int64(v) // claimant, accepted or not
		default:
			label[v] = g.First() + int64(min(v, u))
		}
	}
	gl, err := exchange(g, label[:n])
	if err != nil {
		return nil, err
	}
	copy(label[n:], gl)
	return label, nil
}
