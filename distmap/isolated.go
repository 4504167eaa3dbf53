package distmap

// groupIsolated puts each rank's isolated vertices (no edges) that label
// leaves alone into clusters of consecutive local ids weighing at most
// limit, each labelled by its first member's global id. Neither the
// matching nor label propagation has an edge to join them by, so they
// stayed one coarse vertex each down to the coarsest graph, which every
// rank gathers and maps whole: rgg150k with 300k isolated vertices
// between its ids kept a coarsest graph of ~308k vertices, and at P=4
// the largest rank took 0.79x the RSS of `gpumap map -t 2`. An isolated
// vertex adds nothing to J wherever it goes; grouped, it weighs at most
// a quarter of an average coarsest vertex (limit). Groups of a whole
// limit made coarse levels the coarsest mapping and the input level's
// balance could not bring under a tight Lmax cheaply (the review:
// that graph at eps 0, J 270,444 at P=2 and 284,911 at P=4, against
// 180,209 and 191,614 before grouping; with a quarter 153,905 and
// 146,634; a graph of 30,000 isolated vertices of weights 0-20 with
// -coarsest 500 ended above Lmax at eps 0); at eps 0.03 a quarter moved J
// by -4% to +4% on it (P=2-4) and the largest rank's RSS not at all.
// Local and in id order: the same clusters on every thread count.
func groupIsolated(g *Graph, label []int64, limit int64) {
	limit = max(1, limit/4)
	first := g.First()
	head, w := int64(-1), int64(0)
	for v := range g.N() {
		id := first + int64(v)
		if g.XAdj[v+1] != g.XAdj[v] || label[v] != id {
			continue
		}
		if head >= 0 && w+g.VW[v] <= limit {
			label[v] = head
			w += g.VW[v]
			continue
		}
		head, w = id, g.VW[v]
	}
}
