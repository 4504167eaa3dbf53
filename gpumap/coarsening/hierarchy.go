package coarsening

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Matcher selects the matching algorithm.
type Matcher int

const (
	MatchGreedy Matcher = iota // sequential greedy heavy-edge (exp*2)
	MatchTwoHop                // data-parallel mutual preference + two-hop
)

// Config controls Coarsen.
type Config struct {
	StopSize  int     // stop once the graph has at most this many vertices
	MaxWeight int64   // cap on a coarse vertex's weight
	MinShrink float64 // stop when a level removes less than this fraction (0: 0.05)
	MaxLevels int     // 0: unlimited
	Matcher   Matcher
	Seed      uint64
	Block     []int32 // when set, only vertices of the same block are merged (greedy matcher)
	Natural   bool    // greedy matcher visits vertices in id order (see Greedy)
	// Stall, when positive, clusters a level by label propagation
	// (Cluster) where its matching keeps more than this fraction of the
	// vertices (and the clustering keeps fewer), in hierarchies whose
	// first level stalled so (hubs, LP models). Where the first level
	// matches well (meshes, roads), the coarse levels that stall near the
	// weight cap keep their matching: clustering them cost HM 15% of J on
	// luxembourg_osm onto 4:8:2, and the corpus's fit half 0.9986x ->
	// 0.9960x HM's J of main (report half 0.9947x -> 0.9985x; 4:8:{2,6}).
	Stall float64
	// Attach lets every vertex a level's matching left alone join the
	// pair of its best-rated neighbour (groups of up to three; see
	// attachSingles). On road networks a random matching of degree-2
	// chains leaves a fifth of the vertices alone, and the levels shrink
	// by 0.59 each: a 300k-vertex road graph took 19 levels to reach 160
	// vertices, 10 with Attach (their vertices summed 0.54x).
	Attach bool
}

// Level is one step of the hierarchy: Graph is the coarse graph and CMap
// maps the vertices of the next finer graph onto it.
type Level struct {
	Graph *graph.Graph
	CMap  []int32
	Block []int32 // blocks of the coarse vertices (constrained coarsening only)
}

// Coarsen contracts g level by level. Levels[0] is the first coarse graph;
// the coarsest is last. It returns no levels when g is already small.
//
// With cfg.Block set, coarse vertices never straddle blocks, and every level
// carries the projected blocks in Level.Block.
func Coarsen(x *par.Exec, g *graph.Graph, cfg Config) []Level {
	levels, _, _, _ := coarsen(x, g, cfg, false)
	return levels
}

// CoarsenSeeded is Coarsen, and reports whether any choice that built the
// levels came from cfg.Seed: a random-order or two-hop matching, a tie
// between distinct pairs that a vertex's attaching broke by pairNoise
// (Attach), a clustering of a stalled level in random order or with such
// a tie (Stall). Where it reports false, Coarsen builds the same levels
// under any other seed.
func CoarsenSeeded(x *par.Exec, g *graph.Graph, cfg Config) (levels []Level, seeded bool) {
	levels, _, _, seeded = coarsen(x, g, cfg, false)
	return levels, seeded
}

// CoarsestSize returns the vertices and adjacency entries (len(Adj)) of
// the coarsest graph Coarsen would build, g's own when it builds none. The
// coarsest level is matched and counted but not contracted: a caller that
// needs only its size (the features' second level) saves its edge arrays,
// which on a 2^20 grid are fresh pages written once and dropped.
func CoarsestSize(x *par.Exec, g *graph.Graph, cfg Config) (n int, adj int64) {
	levels, n, adj, _ := coarsen(x, g, cfg, true)
	if n < 0 {
		c := g
		if len(levels) > 0 {
			c = levels[len(levels)-1].Graph
		}
		n, adj = c.N(), int64(len(c.Adj))
	}
	return n, adj
}

// coarsen builds the levels; with countLast it counts the coarsest level
// instead of contracting it and returns its size (n < 0: nothing counted,
// the coarsest level is the last one returned), and whether a choice came
// from cfg.Seed (see CoarsenSeeded).
func coarsen(x *par.Exec, g *graph.Graph, cfg Config, countLast bool) (levels []Level, n int, adj int64, seeded bool) {
	minShrink := cfg.MinShrink
	if minShrink <= 0 {
		minShrink = 0.05
	}
	cur := g
	block := cfg.Block
	more := func(n, lvl int) bool { return n > cfg.StopSize && (cfg.MaxLevels == 0 || lvl < cfg.MaxLevels) }
	firstStalled := false
	for lvl := 0; more(cur.N(), lvl); lvl++ {
		// A level is the same on any thread count, so a team member
		// (par.Team) takes the threads its team left between levels, and
		// within a level between rounds of contraction tasks (growRound). The
		// hierarchy built ahead during the features is one: on a 2^20
		// rgg at -t 2 its levels after the first ran on one core after the
		// features, while the split waited for them (1.3 s at load 28).
		x.Grow()
		seed := cfg.Seed*0x100000001b3 + uint64(lvl)
		var match []int32
		if cfg.Matcher == MatchTwoHop && block == nil {
			match = TwoHop(x, cur, TwoHopConfig{MaxWeight: cfg.MaxWeight, Seed: seed})
			seeded = true
		} else {
			// Natural order only pays on the input's own numbering.
			if cfg.Natural {
				match = greedyNatural(x, cur, cfg.MaxWeight, block)
			} else {
				match = Greedy(cur, cfg.MaxWeight, seed, block, false)
				seeded = true
			}
		}
		cmap, leaders := CoarseMap(x, match)
		gr := MatchGroups(match, leaders)
		stalled := float64(len(leaders)) > cfg.Stall*float64(cur.N())
		if lvl == 0 {
			firstStalled = stalled
		}
		// A stalled hierarchy's levels may cluster instead of matching;
		// elsewhere the matching's single vertices may join its pairs.
		clusters := cfg.Stall > 0 && stalled && firstStalled
		if clusters {
			label, tied := cluster(cur, cfg.MaxWeight, seed, block, cfg.Natural)
			seeded = seeded || tied || !cfg.Natural
			lcmap, lgr := ClusterMap(label)
			if lgr.N() < gr.N() {
				cmap, gr = lcmap, lgr
			}
		}
		if cfg.Attach && !clusters {
			joiner, joined, tied := attachSingles(cur, match, cfg.MaxWeight, seed, block)
			seeded = seeded || tied
			if joined > 0 {
				cmap, gr = attachMap(x, match, joiner)
			}
		}
		nc := gr.N()
		if float64(nc) > (1-minShrink)*float64(cur.N()) {
			break
		}
		if countLast && !more(nc, lvl+1) {
			return levels, nc, CoarseAdjacency(x, cur, cmap, gr), seeded
		}
		coarse := contractGroups(x, cur, cmap, gr, true)
		lvl := Level{Graph: coarse, CMap: cmap}
		if block != nil {
			lvl.Block = make([]int32, nc)
			for c, v := range gr.Leaders {
				lvl.Block[c] = block[v]
			}
			block = lvl.Block
		}
		levels = append(levels, lvl)
		cur = coarse
	}
	return levels, -1, 0, seeded
}
