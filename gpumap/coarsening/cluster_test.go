package coarsening

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// checkClusters checks a clustering's groups against the coarse graph
// built from them by brute force: every cluster weighs at most maxW (or is
// a single vertex), stays in one block, and every coarse edge weighs what
// the fine edges between its ends weigh.
func checkClusters(t *testing.T, g *graph.Graph, label []int32, maxW int64, block []int32, x *par.Exec) {
	t.Helper()
	cmap, gr := ClusterMap(label)
	c := ContractGroups(x, g, cmap, gr)
	checkContraction(t, g, c, cmap)
	members := make([]int, c.N())
	for v := range cmap {
		if label[v] != label[gr.Leaders[cmap[v]]] {
			t.Fatalf("vertex %d is in coarse vertex %d but not in its cluster", v, cmap[v])
		}
		if block != nil && block[v] != block[gr.Leaders[cmap[v]]] {
			t.Fatalf("cluster of %d straddles blocks", v)
		}
		members[cmap[v]]++
	}
	for cv := range members {
		if members[cv] > 1 && c.VW[cv] > maxW {
			t.Fatalf("cluster %d weighs %d > %d", cv, c.VW[cv], maxW)
		}
		if int(gr.Leaders[cv]) != slices.Index(cmap, int32(cv)) {
			t.Fatalf("leader of %d is not its lowest member", cv)
		}
	}
	want := map[[2]int32]int64{}
	for v := 0; v < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if a, b := cmap[v], cmap[g.Adj[e]]; a != b {
				want[[2]int32{a, b}] += g.W(e)
			}
		}
	}
	got := 0
	for a := int32(0); a < int32(c.N()); a++ {
		for e := c.XAdj[a]; e < c.XAdj[a+1]; e++ {
			got++
			if w := want[[2]int32{a, c.Adj[e]}]; w != c.W(e) {
				t.Fatalf("coarse edge (%d,%d) weighs %d, want %d", a, c.Adj[e], c.W(e), w)
			}
		}
	}
	if got != len(want) {
		t.Fatalf("%d coarse edges, want %d", got, len(want))
	}
}

func path(n int) *graph.Graph {
	b := graph.NewBuilder(n)
	for i := 1; i < n; i++ {
		b.AddEdge(i-1, i, 1)
	}
	g, _ := b.Build()
	return g
}

func TestClusterInvariants(t *testing.T) {
	x := par.New(2)
	for _, g := range map[string]*graph.Graph{
		"star":     star(300),
		"path":     path(500),
		"grid":     graph.Grid(30, 20),
		"random":   graph.Random(500, 3000, 9, 3, 1),
		"powerlaw": graph.PowerLaw(1000, 3, 2),
	} {
		for _, maxW := range []int64{3, 10, 64} {
			for _, natural := range []bool{false, true} {
				label := Cluster(g, maxW, 5, nil, natural)
				checkClusters(t, g, label, maxW, nil, x)
				block := make([]int32, g.N())
				for v := range block {
					block[v] = int32(v % 3)
				}
				checkClusters(t, g, Cluster(g, maxW, 5, block, natural), maxW, block, x)
			}
		}
	}
}

// A star shrinks by one leaf per level of matching, so coarsening stops
// (MinShrink) on the star itself. Clustering fills the hub's cluster up to
// the cap (hub and 9 leaves) and groups the 90 leaves left by their
// favourite cluster, the hub's, into 9 more: 10 coarse vertices of weight
// 10, whatever the visiting order.
func TestClusterStar(t *testing.T) {
	g := star(100)
	x := par.New(1)
	for seed := uint64(0); seed < 4; seed++ {
		cmap, gr := ClusterMap(Cluster(g, 10, seed, nil, seed%2 == 0))
		c := ContractGroups(x, g, cmap, gr)
		if c.N() != 10 {
			t.Fatalf("seed %d: %d clusters, want 10", seed, c.N())
		}
		for v := range c.N() {
			if c.VW[v] != 10 {
				t.Fatalf("seed %d: cluster %d weighs %d, want 10", seed, v, c.VW[v])
			}
		}
	}
	if levels := Coarsen(x, g, Config{StopSize: 10, MaxWeight: 10, Seed: 1}); len(levels) != 0 {
		t.Fatalf("matching alone built %d levels on a star", len(levels))
	}
	levels := Coarsen(x, g, Config{StopSize: 10, MaxWeight: 10, Seed: 1, Stall: 0.6})
	if len(levels) != 1 || levels[0].Graph.N() != 10 {
		t.Fatalf("stalled levels clustered: %d levels, want one of 10 vertices", len(levels))
	}
}

// stars builds k stars of the given leaves, their hubs joined in a ring,
// and the blocks that put each star in its own.
func stars(k, leaves int) (*graph.Graph, []int32) {
	n := k * (leaves + 1)
	b := graph.NewBuilder(n)
	block := make([]int32, n)
	for s := 0; s < k; s++ {
		hub := s * (leaves + 1)
		for i := 1; i <= leaves; i++ {
			b.AddEdge(hub, hub+i, 1)
			block[hub+i] = int32(s)
		}
		block[hub] = int32(s)
		b.AddEdge(hub, (hub+leaves+1)%n, 1)
	}
	g, _ := b.Build()
	return g, block
}

// Clustered levels are the same on any thread count, with and without
// blocks, and CoarsestSize counts what Coarsen builds.
func TestStalledCoarseningDeterministic(t *testing.T) {
	pl := graph.PowerLaw(5000, 2, 3)
	st, block := stars(4, 2000)
	for i, in := range []struct {
		g   *graph.Graph
		cfg Config
	}{
		{pl, Config{StopSize: 100, MaxWeight: 100, Seed: 1, Stall: 0.6}},
		{pl, Config{StopSize: 100, MaxWeight: 100, Seed: 2, Stall: 0.6, Natural: true}},
		{st, Config{StopSize: 40, MaxWeight: 1 << 20, Seed: 3, Stall: 0.6, Block: block}},
	} {
		g, cfg := in.g, in.cfg
		var ref []Level
		for _, threads := range []int{1, 2, 4} {
			x := par.New(threads)
			levels := Coarsen(x, g, cfg)
			fine, fb := g, cfg.Block
			clustered := false
			for _, l := range levels {
				checkContraction(t, fine, l.Graph, l.CMap)
				if fb != nil {
					for v := range fine.N() {
						if l.Block[l.CMap[v]] != fb[v] {
							t.Fatal("coarse vertex mixes blocks")
						}
					}
				}
				clustered = clustered || 2*l.Graph.N() < fine.N()
				fine, fb = l.Graph, l.Block
			}
			if !clustered {
				t.Fatalf("case %d: no level clustered", i)
			}
			if ref == nil {
				ref = levels
			} else if len(levels) != len(ref) {
				t.Fatalf("case %d, threads=%d: %d levels, want %d", i, threads, len(levels), len(ref))
			} else {
				for j, l := range levels {
					if !slices.Equal(l.CMap, ref[j].CMap) || !slices.Equal(l.Graph.Adj, ref[j].Graph.Adj) ||
						!slices.Equal(l.Graph.VW, ref[j].Graph.VW) {
						t.Fatalf("case %d, threads=%d: level %d differs", i, threads, j)
					}
				}
			}
			n, adj := CoarsestSize(x, g, cfg)
			if n != fine.N() || adj != int64(len(fine.Adj)) {
				t.Fatalf("case %d: counted %d vertices, %d entries; Coarsen built %d, %d", i, n, adj, fine.N(), len(fine.Adj))
			}
		}
	}
}
