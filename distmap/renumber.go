package distmap

import (
	"fmt"

	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// spreadMax is the share of a road's or mesh's adjacency entries across
// the ranks above which renumbered maps it in a breadth-first order.
// Every level's exchanges, contraction and refinement pay for such entries, and the
// levels' clustering and matchings follow the numbering: at P=2 NE's
// input numbering left 32.1% of its entries across the two ranks (NW's
// 10.6%, FLA's and COL's 0.5%), and NE took 3.1-3.6x map -t 2's wall.
// Renumbered (onto 4:8:6, seeds 1, 2, P=2 then P=4, J against the
// levels in the input's numbering): fit half NE 0.867, 1.174 / 0.932,
// 1.025, NW 0.814, 0.861 / 0.853, 0.785; the report half's roads stay
// below spreadMax (FLA, COL, luxembourg_osm x2: the same files), and
// FLA with its ids shuffled (50% across) 0.981, 0.849 / 0.907, 0.794.
// P=2 wall (one pair each, machine shared at load 3-6): NE 3.5-3.9 s
// against 6.2 s, NW 3.0-5.7 s against 4.9-8.0 s, shuffled FLA 1.6-2.8 s
// against 5.7-6.5 s. Meshes too (meshCV), J against their own
// numbering: fit half igea 0.972, 0.977 / 0.966, 1.034, and with
// shuffled ids fe_pwt x5 0.994, 0.981 / 0.955, 0.951, t60k x3 0.960,
// 0.932 / 0.833, 0.943; report half wing x3 (its own numbering, 50% of
// a copy's entries across a half split) 0.985, 0.985 / 0.990, 0.975,
// fe_body x4 shuffled 1.042, 0.935 / 0.928, 0.983; CPU at P=2 0.6-1.0x.
const spreadMax = 0.05

// acrossRanks returns the adjacency entries of g whose other end another
// rank owns, and all of them, summed over the ranks (collective).
func acrossRanks(g *Graph) (far, all int64, err error) {
	n := int32(g.N())
	for _, u := range g.Adj {
		if u >= n {
			far++
		}
	}
	s, err := sumAll(g.c, far, int64(len(g.Adj)))
	if err != nil {
		return 0, 0, err
	}
	return s[0], s[1], nil
}

// meshCV is the degree CV below which a graph that is not a road is
// renumbered too (renumberable): meshes (igea 0.11, wing 0.07, fe_pwt
// 0.09, t60k 0.05) gained J from the breadth-first order, graphs of
// spread degrees lost it (fit half's ibm14, CV 0.81: +3% to +14% at three
// of four runs; finan512 x2, 0.90: +9.5% at P=4).
const meshCV = 0.5

// renumberable reports whether a graph of n vertices, entries adjacency
// entries and degree CV cv may be mapped in a breadth-first order: a
// road (isRoads) or a mesh (cv below meshCV), within hubWhole's bounds
// (every rank gathers it once).
func renumberable(n, entries int64, cv float64) bool {
	return (isRoads(n, entries) || cv < meshCV) && n <= hubWholeVertices && entries <= hubWholeEntries
}

// renumbered returns the share of g's adjacency entries (entries in
// all, degree CV cv) across the ranks where g is mapped in a
// breadth-first order (mapRenumbered), and 0 where it is not: a
// renumberable graph of which more than spreadMax of the entries lie
// across the ranks (collective).
func renumbered(g *Graph, entries int64, cv float64) (float64, error) {
	if g.size < 2 || !renumberable(g.GlobalN(), entries, cv) {
		return 0, nil
	}
	far, all, err := acrossRanks(g)
	if err != nil || float64(far) <= spreadMax*float64(all) {
		return 0, err
	}
	return float64(far) / float64(all), nil
}

// bfsOrder returns the vertices of the graph with arrays xadj and adj in
// breadth-first order (order[i] is the vertex that becomes i): from
// vertex 0, neighbours in adjacency order, each further component from
// its smallest vertex.
func bfsOrder(xadj []int64, adj []int32) []int32 {
	n := len(xadj) - 1
	order := make([]int32, 0, n)
	seen := make([]bool, n)
	for s := range n {
		if seen[s] {
			continue
		}
		seen[s] = true
		order = append(order, int32(s))
		for h := len(order) - 1; h < len(order); h++ {
			v := order[h]
			for _, u := range adj[xadj[v]:xadj[v+1]] {
				if !seen[u] {
					seen[u] = true
					order = append(order, u)
				}
			}
		}
	}
	return order
}

// mapRenumbered maps g as mapLevels does, on a copy numbered in
// breadth-first order (bfsOrder) and split over the ranks by vertices
// plus entries, and returns the mapping of g's own vertices; its note
// gives the share of g's entries that lay across the ranks, spread
// (collective).
func mapRenumbered(g *Graph, top *topology.Topology, opt Options, total int64, cv float64, entries, lmax int64, spread float64) (*Result, error) {
	// The arrays alone: g was checked when it was built, and
	// graph.FromCSR's copies and checks were a quarter of the
	// renumbering's CPU on NE at P=2.
	cg, err := gatherCSR(g)
	if err != nil {
		return nil, err
	}
	order := bfsOrder(cg.xadj, cg.adj)
	n := len(cg.vw)
	inv := make([]int32, n)
	for i, v := range order {
		inv[v] = int32(i)
	}
	// Ranges of about equal vertices plus entries, as the reader's.
	size, rank := g.size, g.rank
	vtxdist := make([]int64, size+1)
	work := int64(n) + int64(len(cg.adj))
	var sum int64
	r := 1
	for i, v := range order {
		for r < size && sum >= evenSplit(work, r, size) {
			vtxdist[r] = int64(i)
			r++
		}
		sum += 1 + cg.xadj[v+1] - cg.xadj[v]
	}
	for ; r <= size; r++ {
		vtxdist[r] = int64(n)
	}
	lo, hi := vtxdist[rank], vtxdist[rank+1]
	var arcs int64
	for i := lo; i < hi; i++ {
		v := order[i]
		arcs += cg.xadj[v+1] - cg.xadj[v]
	}
	xadj := make([]int64, hi-lo+1)
	adj := make([]int64, 0, arcs)
	vw := make([]int64, hi-lo)
	// The gathered graph's weights, the same on every rank: a rank that
	// stored none of its own may own weighted edges now.
	var w []int64
	if cg.w != nil {
		w = make([]int64, 0, arcs)
	}
	for i := lo; i < hi; i++ {
		v := order[i]
		vw[i-lo] = cg.vw[v]
		for e := cg.xadj[v]; e < cg.xadj[v+1]; e++ {
			adj = append(adj, int64(inv[cg.adj[e]]))
			if w != nil {
				w = append(w, cg.w[e])
			}
		}
		xadj[i-lo+1] = int64(len(adj))
	}
	cg, order = csr{}, nil
	collect()
	ng, err := build(g.c, vtxdist, xadj, adj, w, vw)
	if err != nil {
		return nil, err
	}
	// The breadth-first split must leave at most half the input's share
	// of entries across the ranks, or the input's numbering is kept. The
	// share grows with P in any numbering: a 64^3 grid in its natural
	// numbering at P=16 had 8.1% across, 13.7% after the breadth-first
	// split, and J +21-25% (review of stop 47;
	// TestRenumberingLowersSpread).
	far, all, err := acrossRanks(ng)
	if err != nil {
		return nil, err
	}
	if float64(far) >= 0.5*spread*float64(all) {
		ng, inv = nil, nil
		collect()
		return mapLevels(g, top, opt, total, cv, entries, lmax)
	}
	if err := opt.Phases.Done("renumber"); err != nil {
		return nil, err
	}
	res, err := mapLevels(ng, top, opt, total, cv, entries, lmax)
	if err != nil {
		return nil, err
	}
	whole, _, err := mpi.Allgatherv(g.c, res.PE, size)
	if err != nil {
		return nil, err
	}
	pe := make([]int32, g.N())
	for v := range pe {
		pe[v] = whole[inv[g.First()+int64(v)]]
	}
	res.PE = pe
	res.Notes = append(res.Notes, fmt.Sprintf("numbered breadth-first before the levels: %.1f%% of the input's adjacency entries lay across the ranks", 100*spread))
	return res, nil
}
