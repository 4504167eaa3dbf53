package coarsening

import "github.com/gpumap/gpumap/gpumap/graph"

// GreedyFrom continues Greedy's natural-order matching (natural set, no
// blocks) from a partial one: match holds every vertex's partner, itself,
// or Unmatched. The unmatched vertices below visit are visited in id
// order and paired with their unmatched neighbour of highest rating (any
// vertex, visited or not), ties to the lowest id; match is completed in
// place and returned. From all Unmatched with visit = n it is Greedy's
// natural matching. The distributed mapper matches each rank's vertices
// so, with the vertices of the next ranks past visit (distmap.match).
func GreedyFrom(g *graph.Graph, maxWeight int64, match []int32, visit int) []int32 {
	for v := int32(0); v < int32(visit); v++ {
		if match[v] != Unmatched {
			continue
		}
		u := greedyPick(g, v, match, maxWeight, nil)
		match[v], match[u] = u, v
	}
	return match
}
