package coarsening

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

func checkMatching(t *testing.T, g *graph.Graph, match []int32, maxW int64) int {
	t.Helper()
	pairs := 0
	for v, u := range match {
		if match[u] != int32(v) {
			t.Fatalf("match not symmetric at %d", v)
		}
		if int(u) != v {
			pairs++
			if g.VW[u]+g.VW[v] > maxW {
				t.Fatalf("pair (%d,%d) exceeds weight cap", v, u)
			}
		}
	}
	return pairs / 2
}

func checkContraction(t *testing.T, fine, coarse *graph.Graph, cmap []int32) {
	t.Helper()
	if err := coarse.Validate(); err != nil {
		t.Fatal(err)
	}
	if fine.TotalVertexWeight() != coarse.TotalVertexWeight() {
		t.Fatal("vertex weight changed")
	}
	// Edge weight between coarse vertices equals the fine weight crossing.
	var crossing int64
	for v := 0; v < fine.N(); v++ {
		for e := fine.XAdj[v]; e < fine.XAdj[v+1]; e++ {
			if cmap[v] != cmap[fine.Adj[e]] {
				crossing += fine.W(e)
			}
		}
	}
	if crossing/2 != coarse.TotalEdgeWeight() {
		t.Fatalf("crossing weight %d, coarse edge weight %d", crossing/2, coarse.TotalEdgeWeight())
	}
}

func TestMatchersAndContraction(t *testing.T) {
	graphs := map[string]*graph.Graph{
		"grid":   graph.Grid(30, 20),
		"random": graph.Random(500, 3000, 9, 3, 1),
		"rgg":    graph.RandomGeometric(2000, 2),
		"star":   star(50),
	}
	for name, g := range graphs {
		for _, threads := range []int{1, 3} {
			x := par.New(threads)
			for _, m := range []Matcher{MatchGreedy, MatchTwoHop} {
				var match []int32
				if m == MatchGreedy {
					match = Greedy(g, 4, 7, nil, false)
				} else {
					match = TwoHop(x, g, TwoHopConfig{MaxWeight: 4, Seed: 7})
				}
				pairs := checkMatching(t, g, match, 4)
				if name == "grid" && pairs < g.N()/3 {
					t.Errorf("%s/%d: only %d pairs on %d vertices", name, m, pairs, g.N())
				}
				cmap, leaders := CoarseMap(x, match)
				if len(leaders) != g.N()-pairs {
					t.Fatalf("%d coarse vertices, want %d", len(leaders), g.N()-pairs)
				}
				c := Contract(x, g, match, cmap, leaders)
				checkContraction(t, g, c, cmap)
			}
		}
	}
}

// star: two-hop leaf matching must pair the leaves of a star.
func star(n int) *graph.Graph {
	b := graph.NewBuilder(n)
	for i := 1; i < n; i++ {
		b.AddEdge(0, i, 1)
	}
	g, _ := b.Build()
	return g
}

func TestTwoHopMatchesLeaves(t *testing.T) {
	g := star(41)
	match := TwoHop(par.New(2), g, TwoHopConfig{MaxWeight: 2, Seed: 1})
	if pairs := checkMatching(t, g, match, 2); pairs != 20 {
		t.Fatalf("%d pairs on a 40-leaf star, want 20", pairs)
	}
}

func TestDeterministicAcrossThreads(t *testing.T) {
	g := graph.RandomGeometric(30000, 5)
	var ref []int32
	for _, threads := range []int{1, 2, 4} {
		m := TwoHop(par.New(threads), g, TwoHopConfig{MaxWeight: 8, Seed: 3})
		if ref == nil {
			ref = m
			continue
		}
		for i := range m {
			if m[i] != ref[i] {
				t.Fatalf("threads=%d differs at %d", threads, i)
			}
		}
	}
}

func TestCoarsenHierarchy(t *testing.T) {
	g := graph.Grid(64, 64)
	x := par.New(2)
	levels := Coarsen(x, g, Config{StopSize: 100, MaxWeight: 64, Seed: 1})
	if len(levels) == 0 {
		t.Fatal("no levels")
	}
	fine := g
	for _, l := range levels {
		checkContraction(t, fine, l.Graph, l.CMap)
		fine = l.Graph
	}
	if fine.N() > 200 {
		t.Fatalf("coarsest has %d vertices", fine.N())
	}
}

func BenchmarkGreedy(b *testing.B) {
	g := graph.RandomGeometric(1<<17, 1)
	for i := 0; i < b.N; i++ {
		Greedy(g, 1<<30, uint64(i), nil, false)
	}
}

func BenchmarkTwoHop(b *testing.B) {
	g := graph.RandomGeometric(1<<17, 1)
	x := par.New(0)
	for i := 0; i < b.N; i++ {
		TwoHop(x, g, TwoHopConfig{MaxWeight: 1 << 30, Seed: uint64(i)})
	}
}

// BenchmarkContract contracts a random-order greedy matching of a 2D rgg
// and a 3D grid on 1 and 2 threads (what features.Measure and every
// coarsening level do).
func BenchmarkContract(b *testing.B) {
	for _, in := range []struct {
		name string
		g    *graph.Graph
	}{{"rgg17", graph.RandomGeometric(1<<17, 1)}, {"grid3d20", graph.Grid(128, 128, 64)}} {
		match := Greedy(in.g, 1<<30, 1, nil, false)
		for _, threads := range []int{1, 2} {
			x := par.New(threads)
			cmap, leaders := CoarseMap(x, match)
			b.Run(fmt.Sprintf("%s/t%d", in.name, threads), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					Contract(x, in.g, match, cmap, leaders)
				}
			})
		}
	}
}

func TestConstrainedCoarsening(t *testing.T) {
	g := graph.Grid(40, 40)
	block := make([]int32, g.N())
	for v := range block {
		block[v] = int32((v % 40) / 10) // four vertical stripes
	}
	levels := Coarsen(par.New(2), g, Config{StopSize: 8, MaxWeight: 1 << 20, Seed: 3, Block: block})
	fine, fb := g, block
	for _, l := range levels {
		for v := 0; v < fine.N(); v++ {
			if l.Block[l.CMap[v]] != fb[v] {
				t.Fatalf("coarse vertex mixes blocks")
			}
		}
		fine, fb = l.Graph, l.Block
	}
	if fine.N() > 40 {
		t.Fatalf("constrained coarsening stalled at %d vertices", fine.N())
	}
}

// The two-thread natural-order matching is Greedy's, vertex for vertex:
// on numberings with locality (where the repair is short), without
// (where it runs long), under tight weight caps and block constraints.
func TestGreedyNaturalEqualsGreedy(t *testing.T) {
	rgg := graph.RandomGeometric(50000, 3)
	cases := map[string]*graph.Graph{
		"rgg":      rgg,
		"grid":     graph.Grid(40, 40, 25),
		"random":   graph.Random(40000, 160000, 9, 7, 4),
		"weighted": graph.Random(40000, 100000, 1000, 5, 5),
	}
	for name, g := range cases {
		var block []int32
		for _, cap := range []int64{2, 3, 1 << 40} {
			for _, blocked := range []bool{false, true} {
				if blocked {
					block = make([]int32, g.N())
					for v := range block {
						block[v] = int32(v*7/g.N()) ^ int32(v%3)
					}
				} else {
					block = nil
				}
				want := Greedy(g, cap, 0, block, true)
				for _, threads := range []int{2, 3} {
					got := greedyNatural(par.New(threads), g, cap, block)
					for v := range want {
						if got[v] != want[v] {
							t.Fatalf("%s cap %d blocks %v threads %d: vertex %d matched to %d, Greedy says %d", name, cap, blocked, threads, v, got[v], want[v])
						}
					}
				}
			}
		}
	}
}

// A team member (par.Team) takes the threads its team left from the next
// level on, as the hierarchy built ahead during the features does once
// they are done, and builds the levels one thread builds: the level that
// grew uses the parallel natural-order matching (above parallelGreedyMin).
func TestCoarsenGrowsAcrossThreadsInATeam(t *testing.T) {
	g := graph.RandomGeometric(parallelGreedyMin+parallelGreedyMin/4, 9)
	cfg := Config{StopSize: 500, MaxWeight: 64, Natural: true}
	want := Coarsen(par.New(1), g, cfg)
	team := par.NewTeam(2, 2)
	team.Done(team.Member(1))
	x := team.Member(1)
	got := Coarsen(x, g, cfg)
	if x.Threads() != 2 {
		t.Fatalf("the member coarsened on %d threads, its team left it 2", x.Threads())
	}
	if len(got) != len(want) || len(got) < 3 {
		t.Fatalf("%d levels on the team, %d on one thread", len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i].CMap, want[i].CMap) || !slices.Equal(got[i].Graph.Adj, want[i].Graph.Adj) ||
			!slices.Equal(got[i].Graph.VW, want[i].Graph.VW) {
			t.Fatalf("level %d differs from one thread's", i)
		}
	}
}

// CoarsestSize counts the coarsest level instead of contracting it: its
// size must be that of the graph Coarsen builds, on graphs whose coarse
// vertices have repeated and internal neighbours, weighted or not, with
// the level count or the stop size or the shrink rule ending the loop.
func TestCoarsestSizeMatchesCoarsen(t *testing.T) {
	wide := graph.Grid(40, 30)
	ew := make([]int64, len(wide.Adj))
	for e := range ew {
		ew[e] = 1 << 40
	}
	wide.SetEdgeWeights(ew)
	for _, in := range []struct {
		name string
		g    *graph.Graph
	}{{"rgg", graph.RandomGeometric(20000, 3)}, {"grid", graph.Grid(64, 64)}, {"star", star(50)}, {"wide", wide}} {
		for _, cfg := range []Config{
			{StopSize: 1, MaxLevels: 2, MaxWeight: 200, Seed: 1},
			{StopSize: 1, MaxLevels: 1, MaxWeight: 200, Seed: 1},
			{StopSize: 300, MaxWeight: 64, Seed: 2},
			{StopSize: 1, MaxWeight: 4, Seed: 3, Natural: true},
		} {
			for _, threads := range []int{1, 2} {
				x := par.New(threads)
				c := in.g
				if levels := Coarsen(x, in.g, cfg); len(levels) > 0 {
					c = levels[len(levels)-1].Graph
				}
				n, adj := CoarsestSize(x, in.g, cfg)
				if n != c.N() || adj != int64(len(c.Adj)) {
					t.Fatalf("%s %+v t%d: counted %d vertices, %d entries; Coarsen built %d, %d",
						in.name, cfg, threads, n, adj, c.N(), len(c.Adj))
				}
			}
		}
	}
}

// A contraction on a team member that takes its team's threads between
// rounds of tasks (the hierarchy built ahead when the features end) builds
// the graph the contraction on one thread builds; a member whose team is
// done before it starts runs one round of growRound tasks, grows to all
// the threads and runs the rest in one round.
func TestContractGrowingMidway(t *testing.T) {
	g := graph.RandomGeometric(1<<18, 3)
	match := Greedy(g, 0, 5, nil, false)
	cmap, leaders := CoarseMap(par.New(1), match)
	want := Contract(par.New(1), g, match, cmap, leaders)
	tasks := (len(leaders) + contractGrain - 1) / contractGrain
	if tasks <= 2*growRound {
		t.Fatalf("%d tasks: too few for rounds", tasks)
	}
	same := func(got *graph.Graph) bool {
		return slices.Equal(got.XAdj, want.XAdj) && slices.Equal(got.Adj, want.Adj) && slices.Equal(got.VW, want.VW) &&
			slices.Equal(got.EdgeWeights(), want.EdgeWeights())
	}
	var rounds []int
	contractRound = func(n int) { rounds = append(rounds, n) }
	defer func() { contractRound = nil }()
	team := par.NewTeam(2, 2)
	x, other := team.Member(1), team.Member(1)
	team.Done(other)
	got := contractGroups(x, g, cmap, MatchGroups(match, leaders), true)
	if !same(got) {
		t.Fatal("the contraction grown after its first round differs")
	}
	if x.Threads() != 2 || !slices.Equal(rounds, []int{growRound, tasks - growRound}) {
		t.Fatalf("rounds of %v tasks, %d threads after; want [%d %d] and 2 threads",
			rounds, x.Threads(), growRound, tasks-growRound)
	}
	contractRound = nil
	for _, after := range []int{0, 1, 3} {
		team := par.NewTeam(2, 2)
		x, other := team.Member(1), team.Member(1)
		done := make(chan struct{})
		go func() {
			// The other member finishes after a few loops of its own.
			y := other
			for range after {
				y.For(1<<14, func(_, _, _ int) {})
			}
			team.Done(other)
			close(done)
		}()
		got := contractGroups(x, g, cmap, MatchGroups(match, leaders), true)
		<-done
		if !same(got) {
			t.Fatalf("after %d loops of the other member: the contraction differs", after)
		}
	}
}
