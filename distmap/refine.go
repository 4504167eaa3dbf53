package distmap

import (
	"math/rand/v2"
	"slices"

	"github.com/gpumap/gpumap/topology"
)

// pricer prices a vertex at every PE next to it: cost(b) = sum over the
// PEs q of conn(q) D(b, q). Pairwise for few PEs; else through per-level
// sums, cost(b) = sum_l d_l (S_l(b) - S_(l-1)(b)) with S_l(b) the
// connectivity to b's level-l group (S_0 = conn(b), S_L = all of it),
// summed in arrays indexed by the groups' label prefixes: O(t L) instead
// of O(t^2) for t PEs, as refinement's FM prices vertices with many
// adjacent blocks. A hub of R-MAT 2^18 sees most of the 192 PEs of
// 4:8:6; pairwise pricing was a sixth of a run under the Jet loop.
type pricer struct {
	top    *topology.Topology
	labels []uint64
	shifts []uint
	dists  []int64
	group  [][]int64 // level l-1: the sums of level l's groups, l < L; nil: pairwise only
	cost   []int64
	prev   []int64
}

// pricePairwise: at most this many PEs are priced pair by pair (at 4:8:6
// the per-level sums are as fast from about 20 PEs, 80x faster on a row
// that sees 180: BenchmarkPrices).
const pricePairwise = 8

func (pr *pricer) use(top *topology.Topology, labels []uint64) {
	if pr.top == top {
		return
	}
	pr.top, pr.labels, pr.shifts, pr.dists = top, labels, top.LabelShifts(), top.Distances()
	var hi uint64
	for _, x := range labels {
		hi = max(hi, x)
	}
	pr.group = nil
	if hi < 1<<22 { // labels of any machine of fewer than about 2^20 PEs
		for l := 1; l < len(pr.dists); l++ {
			pr.group = append(pr.group, make([]int64, hi>>pr.shifts[l]+1))
		}
	}
}

// at is the cost at PE b of the connectivity in r.
func (pr *pricer) at(r *rating, b int32) int64 {
	var c int64
	lb := pr.labels[b]
	for i, q := range r.keys {
		c += r.vals[i] * pr.top.LabelDistance(lb, pr.labels[q])
	}
	return c
}

// prices returns the cost at every PE of r.keys, in their order (valid
// until the next call).
func (pr *pricer) prices(r *rating) []int64 {
	t := len(r.keys)
	pr.cost = slices.Grow(pr.cost[:0], t)[:t]
	cost := pr.cost
	if t <= pricePairwise || pr.group == nil {
		for i, q := range r.keys {
			cost[i] = pr.at(r, int32(q))
		}
		return cost
	}
	pr.prev = slices.Grow(pr.prev[:0], t)[:t]
	prev := pr.prev
	var total int64
	for i, x := range r.vals {
		total += x
		cost[i], prev[i] = 0, x
	}
	L := len(pr.dists)
	for l := 1; l <= L; l++ {
		d := pr.dists[l-1]
		if l == L {
			for i := range t {
				cost[i] += d * (total - prev[i])
			}
			break
		}
		sh, sum := pr.shifts[l], pr.group[l-1]
		for i, q := range r.keys {
			sum[pr.labels[q]>>sh] += r.vals[i]
		}
		for i, q := range r.keys {
			s := sum[pr.labels[q]>>sh]
			cost[i] += d * (s - prev[i])
			prev[i] = s
		}
		for _, q := range r.keys {
			sum[pr.labels[q]>>sh] = 0
		}
	}
	return cost
}

// bestPE returns the PE that v moves to: the one of its neighbours' PEs
// (and its own, cur) with the least cost sum over its edges of w(v,u) *
// D(pe, pe(u)) among those allowed (allowed(cur) is not asked), its own
// unless another is strictly cheaper, ties to the smaller PE. It also
// returns the gain, cost(cur) - cost(best).
func bestPE(r *rating, pr *pricer, adj []int32, w []int64, pe []int32, cur int32, labels []uint64, top *topology.Topology,
	allowed func(int32) bool) (int32, int64) {
	r.reset(len(adj))
	for i, u := range adj {
		r.add(int64(pe[u]), weight1(w, i))
	}
	pr.use(top, labels)
	cost := pr.prices(r)
	base := pr.at(r, cur)
	best, bestC := cur, base
	for i, q := range r.keys {
		p := int32(q)
		if p == cur || !allowed(p) {
			continue
		}
		if x := cost[i]; x < bestC || x == bestC && p < best && best != cur {
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
	var pr pricer
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
			p, d := bestPE(&r, &pr, g.Adj[lo:hi], g.weights(lo, hi), pe, pe[v], labels, top, allowed)
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
