package distmap

import (
	"fmt"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// spreadMax is the share of a road's adjacency entries across the ranks
// above which renumbered maps it in a breadth-first order. Every level's
// exchanges, contraction and refinement pay for such entries, and the
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
// against 5.7-6.5 s. Roads only: on others the order cost J (finan512
// x2 at P=4 +9.5%, ibm14 +3-14% at three of four runs; wing x3 -1% to
// -2.5%, igea -3% to +3%).
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

// renumbered returns the share of g's adjacency entries (entries in
// all) across the ranks where g is mapped in a breadth-first order
// (mapRenumbered), and 0 where it is not: a road (isRoads) of which more
// than spreadMax of the entries lie across the ranks, within hubWhole's
// bounds (every rank gathers it once) (collective).
func renumbered(g *Graph, entries int64) (float64, error) {
	if g.size < 2 || !isRoads(g.GlobalN(), entries) || g.GlobalN() > hubWholeVertices || entries > hubWholeEntries {
		return 0, nil
	}
	far, all, err := acrossRanks(g)
	if err != nil || float64(far) <= spreadMax*float64(all) {
		return 0, err
	}
	return float64(far) / float64(all), nil
}

// bfsOrder returns g's vertices in breadth-first order (order[i] is the
// vertex that becomes i): from vertex 0, neighbours in adjacency order,
// each further component from its smallest vertex.
func bfsOrder(g *graph.Graph) []int32 {
	n := g.N()
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
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := g.Adj[e]; !seen[u] {
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
	cg, err := gather(g)
	if err != nil {
		return nil, err
	}
	order := bfsOrder(cg)
	n := cg.N()
	inv := make([]int32, n)
	for i, v := range order {
		inv[v] = int32(i)
	}
	// Ranges of about equal vertices plus entries, as the reader's.
	size, rank := g.size, g.rank
	vtxdist := make([]int64, size+1)
	work := int64(n) + int64(len(cg.Adj))
	var sum int64
	r := 1
	for i, v := range order {
		for r < size && sum >= int64(r)*work/int64(size) {
			vtxdist[r] = int64(i)
			r++
		}
		sum += 1 + cg.XAdj[v+1] - cg.XAdj[v]
	}
	for ; r <= size; r++ {
		vtxdist[r] = int64(n)
	}
	lo, hi := vtxdist[rank], vtxdist[rank+1]
	var arcs int64
	for i := lo; i < hi; i++ {
		v := order[i]
		arcs += cg.XAdj[v+1] - cg.XAdj[v]
	}
	xadj := make([]int64, hi-lo+1)
	adj := make([]int64, 0, arcs)
	vw := make([]int64, hi-lo)
	// The gathered graph's weights, the same on every rank: a rank that
	// stored none of its own may own weighted edges now.
	var w []int64
	if _, unit := cg.UnitWeights(); !unit {
		w = make([]int64, 0, arcs)
	}
	for i := lo; i < hi; i++ {
		v := order[i]
		vw[i-lo] = cg.VW[v]
		for e := cg.XAdj[v]; e < cg.XAdj[v+1]; e++ {
			adj = append(adj, int64(inv[cg.Adj[e]]))
			if w != nil {
				w = append(w, cg.W(e))
			}
		}
		xadj[i-lo+1] = int64(len(adj))
	}
	cg, order = nil, nil
	collect()
	ng, err := build(g.c, vtxdist, xadj, adj, w, vw)
	if err != nil {
		return nil, err
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
