package coarsening

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

func buildGraph(t *testing.T, n int, vw []int64, edges [][3]int64) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(n)
	for v, w := range vw {
		b.SetVertexWeight(v, w)
	}
	for _, e := range edges {
		b.AddEdge(int(e[0]), int(e[1]), e[2])
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Worked by hand: the matching pairs {0,1} and {2,3}; 4 hangs off 3
// (weight 1) and off 0 (weight 2), so it rates pair {0,1} at 2^2/(1*2) = 2
// and pair {2,3} at 1/2 and joins {0,1}. 5 hangs off 1 only: {0,1} has
// taken 4, so 5 stays alone. 6 hangs off 2 but the pair {2,3} weighs 2 and
// 6 weighs 2, over the cap of 3.
func TestAttachSinglesByHand(t *testing.T) {
	g := buildGraph(t, 7, []int64{1, 1, 1, 1, 1, 1, 2}, [][3]int64{
		{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {0, 4, 2}, {1, 5, 1}, {2, 6, 1},
	})
	match := []int32{1, 0, 3, 2, 4, 5, 6}
	joiner, joined, _ := attachSingles(g, match, 3, 1, nil)
	if want := []int32{4, -1, -1, -1, -1, -1, -1}; !slices.Equal(joiner, want) || joined != 1 {
		t.Fatalf("joiners %v (%d joined), want %v (1)", joiner, joined, want)
	}
	// Blocks: 4 may not join a pair of another block, so it takes {2,3},
	// and 5 takes {0,1}.
	joiner, joined, _ = attachSingles(g, match, 3, 1, []int32{0, 0, 1, 1, 1, 0, 1})
	if want := []int32{5, -1, 4, -1, -1, -1, -1}; !slices.Equal(joiner, want) || joined != 2 {
		t.Fatalf("with blocks: joiners %v (%d joined), want %v (2)", joiner, joined, want)
	}
	// Groups {0,1,5}, {2,3,4} and {6}, numbered by their lowest members.
	cmap, gr := attachMap(par.New(1), match, joiner)
	if want := []int32{0, 0, 1, 1, 1, 0, 2}; !slices.Equal(cmap, want) {
		t.Fatalf("cmap %v, want %v", cmap, want)
	}
	for c, want := range [][]int32{{0, 1, 5}, {2, 3, 4}, {6}} {
		if v, u, rest := gr.of(c); !slices.Equal(append([]int32{v}, rest...), want) || u != v {
			t.Fatalf("group %d: %d %d %v, want %v", c, v, u, rest, want)
		}
	}
}

// attachMap numbers the groups exactly as ClusterMap numbers the same
// groups given as labels, on any thread count, whichever member of a
// group is lowest (random matchings with singles joined at random).
func TestAttachMapIsClusterMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		// Above par.MinGrain (4096) in a third of the trials: there the
		// numbering runs in several chunks (found in review: n <= 3000
		// left the threads untested).
		n := 1 + rng.IntN(3000)
		if trial%3 == 0 {
			n = 1 + rng.IntN(30000)
		}
		perm := rng.Perm(n)
		match := make([]int32, n)
		for v := range match {
			match[v] = int32(v)
		}
		var singles, pairs []int32
		for i := 0; i+1 < n; i += 2 {
			if rng.IntN(3) == 0 {
				singles = append(singles, int32(perm[i]), int32(perm[i+1]))
				continue
			}
			a, b := int32(perm[i]), int32(perm[i+1])
			match[a], match[b] = b, a
			pairs = append(pairs, min(a, b))
		}
		joiner := make([]int32, n)
		label := make([]int32, n)
		for v := range joiner {
			joiner[v] = -1
			label[v] = min(int32(v), match[v])
		}
		for i, s := range singles {
			if i < len(pairs) && rng.IntN(2) == 0 {
				joiner[pairs[i]] = s
				label[s] = pairs[i]
			}
		}
		wantMap, want := ClusterMap(label)
		for _, threads := range []int{1, 2, 4} {
			cmap, gr := attachMap(par.New(threads), match, joiner)
			if !slices.Equal(cmap, wantMap) || !slices.Equal(gr.Leaders, want.Leaders) ||
				!slices.Equal(gr.first, want.first) || !slices.Equal(gr.members, want.members) {
				t.Fatalf("trial %d, n=%d, threads=%d: attachMap differs from ClusterMap", trial, n, threads)
			}
		}
	}
}

// With Attach the first level keeps fewer vertices than matching alone
// and the hierarchy is shallower; groups hold at most three vertices
// within the weight cap, the contraction keeps every weight, and the
// levels are the same for any thread count.
func TestAttachCoarsensRoadsFaster(t *testing.T) {
	g := graph.RoadGrid(60, 60)
	cfg := Config{StopSize: 160, MaxWeight: 60, Seed: 7}
	plain := Coarsen(par.New(1), g, cfg)
	cfg.Attach = true
	var ref []Level
	for _, threads := range []int{1, 2, 4} {
		levels := Coarsen(par.New(threads), g, cfg)
		if ref == nil {
			ref = levels
			continue
		}
		for i := range ref {
			if !slices.Equal(levels[i].CMap, ref[i].CMap) {
				t.Fatalf("threads=%d: level %d differs from threads=1", threads, i)
			}
		}
	}
	if len(ref) >= len(plain) || ref[0].Graph.N() >= plain[0].Graph.N() {
		t.Fatalf("attach: %d levels, first %d vertices; matching: %d, %d", len(ref), ref[0].Graph.N(), len(plain), plain[0].Graph.N())
	}
	fine := g
	for _, l := range ref {
		checkContraction(t, fine, l.Graph, l.CMap)
		size := make([]int, l.Graph.N())
		for _, c := range l.CMap {
			size[c]++
		}
		if slices.Max(size) > 3 || l.Graph.MaxVertexWeight() > 60 {
			t.Fatalf("a coarse vertex of %d members, heaviest %d", slices.Max(size), l.Graph.MaxVertexWeight())
		}
		fine = l.Graph
	}
}
