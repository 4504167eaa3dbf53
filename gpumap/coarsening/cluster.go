package coarsening

import (
	"slices"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// clusterRounds is the number of label-propagation rounds of Cluster; a
// round that moves fewer than clusterQuiet of the vertices ends it early.
const (
	clusterRounds = 5
	clusterQuiet  = 0.01
)

// Cluster computes a size-constrained label-propagation clustering (as
// KaMinPar coarsens): every vertex starts in its own cluster, and in each
// round the vertices, visited in Greedy's order (shuffled blocks of 64 ids
// drawn from seed, or id order when natural), join the neighbouring
// cluster they are most strongly connected to, as long as its weight stays
// at most maxWeight. A vertex moves only to a cluster it is connected to
// more strongly than to its own; equal connections are ordered by
// pairNoise.
//
// Matching merges at most two vertices: around a hub (a star: one leaf
// per level) and along chains of weak edges it removes few vertices per
// level, so the hierarchy grows deep and its coarsest graph stays large.
// A cluster takes as many vertices as its weight allows.
//
// Leaves left alone (a hub's cluster is full, or it is a singleton whose
// only neighbours are full) are then clustered among themselves, grouped
// by the cluster they are most connected to: the two-hop clustering of
// KaMinPar, the twin and leaf matching of TwoHop.
//
// With block set, a cluster never straddles blocks. The result maps every
// vertex to its cluster's id, the id of one of its members. It is
// sequential, so the same for any thread count.
func Cluster(g *graph.Graph, maxWeight int64, seed uint64, block []int32, natural bool) []int32 {
	label, _ := cluster(g, maxWeight, seed, block, natural)
	return label
}

// cluster is Cluster, and reports whether pairNoise broke a tie between
// two distinct clusters for a vertex's move or a singleton's favourite
// (tied). Where natural and not tied, the clustering is the same for every
// seed.
func cluster(g *graph.Graph, maxWeight int64, seed uint64, block []int32, natural bool) (label []int32, tied bool) {
	n := g.N()
	label = make([]int32, n)
	cw := make([]int64, n) // cluster weights, indexed by cluster id
	size := make([]int32, n)
	for v := range label {
		label[v] = int32(v)
		cw[v] = g.VW[v]
		size[v] = 1
	}
	blocks := visitBlocks(n, seed, 0x636c7573746572, natural)
	conn := make([]int64, n) // connection of the visited vertex to each cluster
	var touched []int32
	gather := func(v int32) { touched = gatherConn(g, v, label, block, conn, touched[:0]) }
	reset := func() {
		for _, c := range touched {
			conn[c] = 0
		}
	}
	for r := 0; r < clusterRounds; r++ {
		moved := 0
		for _, b := range blocks {
			for v := b * chunk; v < min(b*chunk+chunk, int32(n)); v++ {
				gather(v)
				own, cv := label[v], g.VW[v]
				best, bestC, bestH := own, conn[own], uint64(0)
				tie := false // another cluster than best (not own) is connected bestC
				for _, c := range touched {
					if c == own || cw[c]+cv > maxWeight {
						continue
					}
					if conn[c] > bestC {
						tie = false
					} else if conn[c] == bestC && best != own {
						tie = true
					}
					if h := pairNoise(seed, v, c); conn[c] > bestC || conn[c] == bestC && best != own && h > bestH {
						best, bestC, bestH = c, conn[c], h
					}
				}
				reset()
				if best != own {
					tied = tied || tie
					cw[own] -= cv
					size[own]--
					cw[best] += cv
					size[best]++
					label[v] = best
					moved++
				}
			}
		}
		if float64(moved) < clusterQuiet*float64(n) {
			break
		}
	}
	tied = clusterSingletons(g, label, cw, size, maxWeight, block, conn, seed) || tied
	return label, tied
}

// gatherConn adds v's connections to its neighbouring clusters (of v's
// block) into conn and appends the clusters it touched first to touched.
func gatherConn(g *graph.Graph, v int32, label, block []int32, conn []int64, touched []int32) []int32 {
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		u := g.Adj[e]
		if block != nil && block[u] != block[v] {
			continue
		}
		c := label[u]
		if conn[c] == 0 {
			touched = append(touched, c)
		}
		conn[c] += max(g.W(e), 1)
	}
	return touched
}

// clusterSingletons merges the vertices still alone in their cluster,
// grouped by their favourite cluster (the most strongly connected one,
// full or not), into clusters of at most maxWeight, in id order within a
// group. conn is zero scratch of g.N() entries. It reports whether
// pairNoise broke a tie between two favourites.
func clusterSingletons(g *graph.Graph, label []int32, cw []int64, size []int32, maxWeight int64, block []int32, conn []int64, seed uint64) (tied bool) {
	type single struct{ fav, v int32 }
	var singles []single
	var touched []int32
	for v := int32(0); v < int32(g.N()); v++ {
		if size[label[v]] != 1 {
			continue
		}
		touched = gatherConn(g, v, label, block, conn, touched[:0])
		fav, favC, favH := int32(-1), int64(0), uint64(0)
		tie := false // another cluster than fav is connected favC
		for _, c := range touched {
			if conn[c] > favC {
				tie = false
			} else if fav >= 0 && conn[c] == favC {
				tie = true
			}
			if h := pairNoise(seed, v, c); conn[c] > favC || conn[c] == favC && h > favH {
				fav, favC, favH = c, conn[c], h
			}
			conn[c] = 0
		}
		if fav >= 0 {
			singles = append(singles, single{fav, v})
			tied = tied || tie
		}
	}
	slices.SortFunc(singles, func(a, b single) int {
		if a.fav != b.fav {
			return int(a.fav - b.fav)
		}
		return int(a.v - b.v)
	})
	for i := 0; i < len(singles); {
		j := i + 1
		for j < len(singles) && singles[j].fav == singles[i].fav {
			j++
		}
		// Within a group, each singleton joins the open cluster (started
		// by an earlier member) while it fits, else opens one.
		open := int32(-1)
		for _, s := range singles[i:j] {
			v := s.v
			if open >= 0 && cw[open]+g.VW[v] <= maxWeight && (block == nil || block[open] == block[v]) {
				cw[label[v]] -= g.VW[v]
				size[label[v]]--
				label[v] = open
				cw[open] += g.VW[v]
				size[open]++
			} else {
				open = label[v]
			}
		}
		i = j
	}
	return tied
}

// Groups are the members of each coarse vertex: a matching's pairs, or a
// clustering's clusters.
type Groups struct {
	Leaders []int32 // the first (lowest) member of each coarse vertex
	match   []int32 // pairs: the partner of each vertex (nil for clusters)
	first   []int64 // clusters: members[first[c]:first[c+1]] form coarse vertex c
	members []int32
}

// MatchGroups are the pairs of a matching numbered by CoarseMap.
func MatchGroups(match, leaders []int32) Groups {
	return Groups{Leaders: leaders, match: match}
}

// N returns the number of coarse vertices.
func (gr *Groups) N() int { return len(gr.Leaders) }

// ClusterMap numbers the clusters of a clustering (label[v]: the cluster
// of v, any vertex id) as coarse vertices in increasing order of their
// lowest member, as CoarseMap numbers pairs, and lists their members in
// increasing id order. It returns the fine-to-coarse map and the groups.
func ClusterMap(label []int32) (cmap []int32, gr Groups) {
	n := len(label)
	id := make([]int32, n)
	for i := range id {
		id[i] = -1
	}
	cmap = make([]int32, n)
	nc := int32(0)
	for v := 0; v < n; v++ {
		c := label[v]
		if id[c] < 0 {
			id[c] = nc
			gr.Leaders = append(gr.Leaders, int32(v))
			nc++
		}
		cmap[v] = id[c]
	}
	gr.first = make([]int64, nc+1)
	for _, c := range cmap {
		gr.first[c+1]++
	}
	for c := int32(0); c < nc; c++ {
		gr.first[c+1] += gr.first[c]
	}
	gr.members = make([]int32, n)
	fill := slices.Clone(gr.first[:nc])
	for v, c := range cmap {
		gr.members[fill[c]] = int32(v)
		fill[c]++
	}
	return cmap, gr
}

// of returns the members of coarse vertex c: v, u when u != v (a pair's
// partner), and rest.
func (gr *Groups) of(c int) (v, u int32, rest []int32) {
	if gr.members == nil {
		v = gr.Leaders[c]
		return v, gr.match[v], nil
	}
	m := gr.members[gr.first[c]:gr.first[c+1]]
	return m[0], m[0], m[1:]
}
