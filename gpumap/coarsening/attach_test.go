package coarsening

import (
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
	label, joined := attachSingles(g, match, 3, 1, nil)
	if want := []int32{0, 0, 2, 2, 0, 5, 6}; !slices.Equal(label, want) || joined != 1 {
		t.Fatalf("labels %v (%d joined), want %v (1)", label, joined, want)
	}
	// Blocks: 4 may not join a pair of another block, so it takes {2,3}.
	label, joined = attachSingles(g, match, 3, 1, []int32{0, 0, 1, 1, 1, 0, 1})
	if want := []int32{0, 0, 2, 2, 2, 0, 6}; !slices.Equal(label, want) || joined != 2 {
		t.Fatalf("with blocks: labels %v (%d joined), want %v (2)", label, joined, want)
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
