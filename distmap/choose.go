package distmap

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// exposure is one graph of a hierarchy: its vertices and the weight of
// its edges (each counted once), the edge weight its coarse vertices do
// not yet hide.
type exposure struct{ n, w int64 }

// addExposed appends g's size and edge weight to h.exposed (collective).
func (h *hierarchy) addExposed(g *Graph) error {
	s, err := sumAll(g.c, edgeWeight(g))
	if err != nil {
		return err
	}
	h.exposed = append(h.exposed, exposure{g.GlobalN(), s[0] / 2})
	return nil
}

// exposedOf returns the size and edge weight of the graph that
// contract(g, label) builds, without building it (collective): its
// vertices are the distinct labels of the local vertices over all ranks
// (each counted by the owner of its label), its edges the fine edges
// between two clusters. label propagation's level that falls behind the
// matchings is dropped without its contraction (a 100^3 grid at P=2:
// the second level, 462,811 -> 134,294 vertices).
func exposedOf(g *Graph, label []int64) (exposure, error) {
	n, first := g.N(), g.First()
	mine := make([]bool, n)
	var far []int64
	var w int64
	for v := range n {
		l := label[v]
		if l >= first && l < first+int64(n) {
			mine[l-first] = true
		} else {
			far = append(far, l)
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if label[g.Adj[e]] != l {
				w += g.W(e)
			}
		}
	}
	slices.Sort(far)
	far = slices.Compact(far)
	off := make([]int64, g.size+1)
	for r := 0; r < g.size; r++ {
		off[r+1] = int64(sort.Search(len(far), func(i int) bool { return far[i] >= g.VtxDist[r+1] }))
	}
	req, _, err := mpi.Alltoallv(g.c, far, off, g.size)
	if err != nil {
		return exposure{}, err
	}
	for _, l := range req {
		mine[l-first] = true
	}
	var nc int64
	for _, ok := range mine {
		if ok {
			nc++
		}
	}
	s, err := sumAll(g.c, nc, w)
	if err != nil {
		return exposure{}, err
	}
	return exposure{s[0], s[1] / 2}, nil
}

// coarsest returns h's coarsest graph (g itself without levels).
func (h *hierarchy) coarsest(g *Graph) *Graph {
	if len(h.levels) == 0 {
		return g
	}
	return h.levels[len(h.levels)-1].coarse
}

// exposedAt returns the edge weight that the hierarchy with sizes and
// weights e would leave exposed at n vertices, interpolated linearly in
// log n and log w between the two graphs whose sizes bracket n (e's
// sizes fall strictly; n lies between its first and last).
func exposedAt(e []exposure, n int64) float64 {
	for i := 1; i < len(e); i++ {
		a, b := e[i-1], e[i]
		if n > b.n || i == len(e)-1 {
			switch {
			case n >= a.n:
				return float64(a.w)
			case n <= b.n: // exactly, so that a tie stays a tie
				return float64(b.w)
			}
			t := math.Log(float64(a.n)/float64(n)) / math.Log(float64(a.n)/float64(b.n))
			if a.w <= 0 || b.w <= 0 { // no logarithm: linear in log n
				return float64(a.w) + t*float64(b.w-a.w)
			}
			return math.Exp(math.Log(float64(a.w)) + t*math.Log(float64(b.w)/float64(a.w)))
		}
	}
	return float64(e[0].w)
}

// roadsMatch reports whether a road (isRoads) whose numbering has
// locality (hasLocality) is coarsened as lessExposed chooses, the
// matchings' hierarchy built first: where more than spreadMax of its
// adjacency entries lie across the ranks. Where no more do (FLA and COL
// in their own numbering, NE and NW renumbered: 0.1-1.0% at P=2 and P=4;
// every road at P=1), label propagation alone coarsens it, and the
// matchings' hierarchy, which lost every duel there, is not built. The
// duels onto 4:8:6, seeds 1 and 2, P=2 and P=4 (-trace's exposed edge
// weight at the larger coarsest size, matchings against label
// propagation): NE 354,221-354,299 against 297,987-299,092 (renumbered),
// NW 218,020-218,077 against 191,201-191,585 (renumbered), FLA
// 233,915-233,950 against 191,706-192,091, COL 86,838-86,867 against
// 73,760-73,957; at P=1, seed 1, NE 362,788 against 297,720 and NW
// 221,720 against 190,258 in their own numbering. Label propagation
// alone writes the duel's files (it is the same hierarchy). Above
// spreadMax the duel stays: there (NE and NW in their own numbering at
// P=2 and P=4, before the renumbering) label propagation fell behind in
// 6 of 12 runs and the matchings won J in 5 of those 6 (lessExposed's
// comment). Collective.
func roadsMatch(g *Graph) (bool, error) {
	if g.size < 2 {
		return false, nil
	}
	far, all, err := acrossRanks(g)
	return float64(far) > spreadMax*float64(all), err
}

// lessExposed builds, beside the local matchings' hierarchy m, the label
// propagation hierarchy of g (coarsest size small, clusters up to limit;
// first, when not nil, its first round already run) and returns the one
// that leaves less edge weight exposed at the larger of their coarsest
// sizes (matchings on a tie, or where label propagation falls behind on
// the way), the other dropped (collective: every rank holds the same
// sizes and weights, and so chooses alike).
//
// One round of label propagation on the input (mapLevels) chooses
// matchings where it leaves more than a quarter of the vertices as
// clusters; finan512's numbering has locality and its round leaves 1/3,
// yet its matchings pair vertices across its dense blocks: two copies
// joined by an edge (149,504 vertices) onto 4:8:6 at P=2, seed 21, left
// 278,979 of 522,241 edges exposed at 11,080 coarse vertices against
// label propagation's 234,716 at the same size (its coarsest graph's
// mappings J 525,607 and 775,540 against 326,309 and 357,891), and J
// came out 1.49x the one-process J against 1.09x. A 3D grid's matchings
// hide more (312,760 against 335,693 at 16,093: J 0.96x against 1.14x),
// two copies of luxembourg_osm's less (25,753 against 24,028: J 1.106x
// against 1.099x). Label propagation's levels shrink the graph 3-4x
// each, so its hierarchy costs a fraction of the matchings'. No
// threshold: the measure is the graph's own, both sides alike.
//
// The matchings' hierarchy is built to its end even where it loses
// (FLA at P=2: 0.55 s idle): the rule's mirror (label propagation first,
// the matchings going on only while they expose no more than it at
// their size) keeps no choice of today's. The matchings' exposure over
// label propagation's at each matchings level, seed 1 (P=2 / P=4):
// 100^3 grid +0.44% / +0.53%, +0.73% / +0.99%, then ahead from n/8
// (label propagation behind at 134,294: the matchings win, J 0.96x the
// one-process J against 1.14x); FLA +0.21%, +2.3%, +4.7%, +7.3%;
// luxembourg_osm x2 -0.25%, +0.48%, +2.9%, +5.8%; finan512 x2 +9.6%,
// +12.5%. The mirror drops the grid's matchings at their first level;
// only a margin between 0.99% and 2.3% (fitted, and FLA would still
// pay its first two levels, about 0.4 s of 0.55) tells them apart.
//
// Nor did roads (mean degree below sparseDegree) in their own
// numbering lose every duel, so label propagation alone on every road
// (tried, issue 24's distwall2, before the renumbering; now only where
// the numbering leaves few entries across the ranks: roadsMatch) changed
// mappings: onto 4:8:6, seeds 1-3, label propagation won at P=2 and
// P=4 on cal x7, TG x8 (fit half), COL, FLA and luxembourg_osm x2
// (report half), where label propagation alone wrote the same files
// (seed 1) for 0.61-0.81x of FLA's CPU at P=2 (3 alternating pairs,
// load 12-16) and 0.70x at P=4 (one pair), but on the fit half's NW (P=4 seeds 2, 3) and NE (P=2
// seeds 2, 3; P=4 seeds 2, 3) label propagation fell behind on the
// way (0.05-2.2% more exposed at its first or second level), and the
// matchings' hierarchy (about 100k coarsest vertices against 12-50k)
// won J in 5 of those 6 (full runs, main's duel against label
// propagation alone, which gave NE P=2 69,158 / 60,421 against
// 63,501 / 55,239, P=4 50,766 / 51,795 against 53,845 / 48,917, NW
// P=4 34,494 / 32,523 against 32,023 / 26,988). The first level does
// not tell them apart either: label propagation 0.46% ahead there
// (NW P=4 seed 2) fell behind later, 0.20% (NE P=4 seed 1) and 0.28%
// (cal x7) stayed ahead.
func lessExposed(g *Graph, opt Options, m *hierarchy, small, limit int64, first *clustering, share, block int) (*hierarchy, error) {
	// Label propagation goes on only while it exposes less than the
	// matchings at its own size (where theirs reach): its first level
	// costs the most, and a 3D grid's second (30,430 vertices) already
	// exposes 391,789 against the matchings' 371,400, a 2D grid's first.
	lp, err := coarsen(g, opt, small, limit, false, first, share, block, func(e exposure) bool {
		return e.n < m.coarseN || float64(e.w) < exposedAt(m.exposed, e.n)
	})
	if err != nil {
		return nil, err
	}
	if lp.behind {
		if opt.Trace != nil && g.rank == 0 {
			fmt.Fprintf(opt.Trace, "exposed edge weight: label propagation behind the matchings at %v, matchings %v\n", lp.exposed, m.exposed)
		}
		return m, nil
	}
	at := max(m.coarseN, lp.coarseN)
	wm, wl := exposedAt(m.exposed, at), exposedAt(lp.exposed, at)
	if opt.Trace != nil && g.rank == 0 {
		fmt.Fprintf(opt.Trace, "exposed edge weight at n=%d: matchings %.0f %v, label propagation %.0f %v\n", at, wm, m.exposed, wl, lp.exposed)
	}
	if wl < wm {
		return lp, nil
	}
	return m, nil
}
