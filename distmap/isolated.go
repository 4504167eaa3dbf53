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
// an average coarsest vertex (limit), as the other clusters do. Local
// and in id order: the same clusters on every thread count.
func groupIsolated(g *Graph, label []int64, limit int64) {
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
