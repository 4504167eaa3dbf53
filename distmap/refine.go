package distmap

import (
	"math/rand/v2"

	"github.com/gpumap/gpumap/topology"
)

// bestPE returns the PE that v moves to: the one of its neighbours' PEs
// (and its own, cur) with the least cost sum over its edges of w(v,u) *
// D(pe, pe(u)) among those allowed (allowed(cur) is not asked), its own
// unless another is strictly cheaper, ties to the smaller PE. It also
// returns the gain, cost(cur) - cost(best).
func bestPE(r *rating, adj []int32, w []int64, pe []int32, cur int32, labels []uint64, top *topology.Topology,
	allowed func(int32) bool) (int32, int64) {
	r.reset(len(adj))
	for i, u := range adj {
		r.add(int64(pe[u]), weight1(w, i))
	}
	cost := func(p int32) int64 {
		var s int64
		for i, q := range r.keys {
			s += r.vals[i] * top.LabelDistance(labels[p], labels[q])
		}
		return s
	}
	base := cost(cur)
	best, bestC := cur, base
	for _, q := range r.keys {
		p := int32(q)
		if p == cur || !allowed(p) {
			continue
		}
		if x := cost(p); x < bestC || x == bestC && p < best && best != cur {
			best, bestC = p, x
		}
	}
	return best, base - bestC
}

// refine improves the mapping pe (of the local vertices and ghosts) by
// label propagation on J: each round every rank visits its vertices in a
// random order and moves each to its best PE, then the ghosts' PEs are
// refreshed. Balance is kept exactly: at a round's start the PE loads are
// summed over all ranks, and a rank may add to PE p at most its share of
// p's room below lmax (roomShares, plus what it took out of p), so that no
// PE passes lmax whatever the other ranks do.
func refine(g *Graph, top *topology.Topology, pe []int32, lmax int64, rounds int, seed uint64, lvl int) error {
	k, n := top.K(), g.N()
	labels := top.Labels()
	load := make([]int64, k)
	room := make([]int64, k)
	var r rating
	r.setRange(0, k)
	for round := range rounds {
		clear(load)
		for v := range n {
			load[pe[v]] += g.VW[v]
		}
		_, share, err := roomShares(g, load, lmax)
		if err != nil {
			return err
		}
		copy(room, share)
		rng := rand.New(rand.NewPCG(seed^0x5bd1e995, uint64(lvl)<<32|uint64(round)<<16|uint64(g.rank)))
		var gain int64
		for _, v := range blockOrder(rng, n) {
			// A vertex whose neighbours all share its PE stays.
			inside := true
			for _, u := range g.Adj[g.XAdj[v]:g.XAdj[v+1]] {
				if pe[u] != pe[v] {
					inside = false
					break
				}
			}
			if inside {
				continue
			}
			vw := g.VW[v]
			allowed := func(p int32) bool { return room[p] >= vw }
			lo, hi := g.XAdj[v], g.XAdj[v+1]
			p, d := bestPE(&r, g.Adj[lo:hi], g.weights(lo, hi), pe, pe[v], labels, top, allowed)
			if p != pe[v] {
				room[pe[v]] += vw
				room[p] -= vw
				pe[v] = p
				gain += d
			}
		}
		gl, err := exchange(g, pe[:n])
		if err != nil {
			return err
		}
		copy(pe[n:], gl)
		total, err := sumAll(g.c, gain)
		if err != nil {
			return err
		}
		if total[0] == 0 {
			break
		}
	}
	return nil
}
