package vcycle

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

var cfg = Config{Budget: 1 << 40, LPRounds: 2, FM: refinement.FMConfig{Rounds: 2, Alpha: 30}}

// balanced is a feasible mapping of g onto k PEs: the vertices in a
// seeded random order (or, with seed 0, in id order), each PE filled up to
// Lmax before the next.
func balanced(g *graph.Graph, k int, seed uint64) []int32 {
	order := make([]int32, g.N())
	for i := range order {
		order[i] = int32(i)
	}
	if seed != 0 {
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	lmax := limits(g, k)[0]
	pe := make([]int32, g.N())
	b, w := int32(0), int64(0)
	for _, v := range order {
		if w+g.VW[v] > lmax {
			b, w = b+1, 0
		}
		pe[v], w = b, w+g.VW[v]
	}
	return pe
}

func limits(g *graph.Graph, k int) []int64 {
	maxW := make([]int64, k)
	for i := range maxW {
		maxW[i] = graph.Lmax(g.TotalVertexWeight(), k, 0.03)
	}
	return maxW
}

var testGraphs = map[string]*graph.Graph{
	"rgg":       graph.RandomGeometric(2000, 5),
	"grid":      graph.Grid(30, 30),
	"power law": graph.PowerLaw(1000, 4, 6),
	"weighted":  graph.Random(800, 3000, 9, 5, 7),
}

// The constrained hierarchy keeps the mapping exactly: on every level the
// projected blocks have the input's J and block weights (edges inside a
// PE cost nothing, so contracting them, and merging parallel edges, does
// not change J), and every fine vertex's coarse vertex is on its PE.
func TestProjectionIsExact(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	k := top.K()
	obj := refinement.Mapping(top)
	x := par.New(2)
	for name, g := range testGraphs {
		pe := balanced(g, k, 0)
		j := obj.Cost(g, pe)
		bw := refinement.NewState(g, k, pe, limits(g, k), obj).BW
		levels := hierarchy(x, g, pe, 9, graph.Lmax(g.TotalVertexWeight(), k, 0.03)/4, 4*k)
		if len(levels) == 0 {
			t.Fatalf("%s: %d levels", name, len(levels))
		}
		fine, fineG := pe, g
		for at, l := range levels {
			for v, c := range l.CMap {
				if l.Block[c] != fine[v] {
					t.Fatalf("%s level %d: vertex %d on PE %d, its coarse vertex %d on %d", name, at, v, fine[v], c, l.Block[c])
				}
			}
			if got := obj.Cost(l.Graph, l.Block); got != j {
				t.Errorf("%s level %d (%d of %d vertices): J %d, input %d", name, at, l.Graph.N(), fineG.N(), got, j)
			}
			if got := refinement.NewState(l.Graph, k, l.Block, limits(g, k), obj).BW; !slices.Equal(got, bw) {
				t.Errorf("%s level %d: block weights %v, input %v", name, at, got, bw)
			}
			fine, fineG = l.Block, l.Graph
		}
	}
}

// A V-cycle never raises J and keeps the mapping feasible; from a poor
// mapping (PEs filled in id order or a random order) it lowers J; its
// stats are the mapping's J.
func TestNeverWorse(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	k := top.K()
	obj := refinement.Mapping(top)
	for name, g := range testGraphs {
		for seed := range uint64(3) {
			pe := balanced(g, k, seed)
			j := obj.Cost(g, pe)
			c := cfg
			c.Seed, c.MaxCycles = seed, 2
			st := Run(par.New(1), g, top, pe, limits(g, k), c)
			after := obj.Cost(g, pe)
			s := refinement.NewState(g, k, pe, limits(g, k), obj)
			switch {
			case st.Before != j || st.After != after:
				t.Errorf("%s seed %d: stats J %d -> %d, mapping %d -> %d", name, seed, st.Before, st.After, j, after)
			case after > j || s.Overloaded() > 0:
				t.Errorf("%s seed %d: J %d -> %d, %d PEs overloaded", name, seed, j, after, s.Overloaded())
			case after == j || st.Kept == 0:
				t.Errorf("%s seed %d: J %d unchanged from a random mapping (%d cycles)", name, seed, j, st.Cycles)
			}
			// A second run from the refined mapping: never worse again.
			c.Seed++
			Run(par.New(1), g, top, pe, limits(g, k), c)
			if again := obj.Cost(g, pe); again > after {
				t.Errorf("%s seed %d: J %d -> %d on a second run", name, seed, after, again)
			}
		}
	}
}

// An infeasible mapping is left as it is.
func TestInfeasibleUntouched(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	g := testGraphs["rgg"]
	pe := make([]int32, g.N()) // all on PE 0
	st := Run(par.New(1), g, top, pe, limits(g, top.K()), cfg)
	if st.Cycles != 0 || slices.ContainsFunc(pe, func(b int32) bool { return b != 0 }) {
		t.Fatalf("%d cycles ran on an infeasible mapping", st.Cycles)
	}
}

// The cycles stop at the counted budget: none when even the first
// cycle's estimate does not fit, and the work done is within the budget
// plus the last cycle's.
func TestBudget(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	g := testGraphs["rgg"]
	k := top.K()
	c := cfg
	c.Patience = 1 << 20
	c.Budget = 2*Work(g.N(), len(g.Adj)) - 1
	if st := Run(par.New(1), g, top, balanced(g, k, 1), limits(g, k), c); st.Cycles != 0 {
		t.Errorf("budget %d: %d cycles", c.Budget, st.Cycles)
	}
	c.Budget = 10 * Work(g.N(), len(g.Adj))
	st := Run(par.New(1), g, top, balanced(g, k, 1), limits(g, k), c)
	if st.Cycles < 2 || st.Work > c.Budget {
		t.Errorf("budget %d: %d cycles, work %d", c.Budget, st.Cycles, st.Work)
	}
}

// The same mapping for any thread count, on a graph large enough for the
// parallel label propagation and FM (ParallelFMMin lowered).
func TestSameForAnyThreadCount(t *testing.T) {
	defer func(m int) { refinement.ParallelFMMin = m }(refinement.ParallelFMMin)
	refinement.ParallelFMMin = 1000
	top, _ := topology.Parse("4:4:2", "1:10:100")
	g := graph.RandomGeometric(4000, 11)
	k := top.K()
	var first []int32
	for _, threads := range []int{1, 2, 3} {
		pe := balanced(g, k, 2)
		c := cfg
		c.MaxCycles = 2
		Run(par.New(threads), g, top, pe, limits(g, k), c)
		if first == nil {
			first = pe
		} else if !slices.Equal(pe, first) {
			t.Fatalf("%d threads map differently than 1", threads)
		}
	}
}

// With EntryUnits the FM's counted entries are charged: on a hub graph
// (a ring whose vertices also link to a few dozen hubs) they are most of
// the work, and the work stays within the budget plus the costliest cycle;
// a first cycle the caller estimates past the budget does not start.
func TestBudgetChargesFMEntries(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	const n, hubs = 3000, 40
	b := graph.NewBuilder(n + hubs)
	for v := range n {
		b.AddEdge(v, (v+1)%n, 1)
		b.AddEdge(v, n+v%hubs, 1)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	k := top.K()
	c := cfg
	c.Patience, c.EntryUnits = 1<<20, 1
	c.Budget = 12 * Work(g.N(), len(g.Adj))
	st := Run(par.New(1), g, top, balanced(g, k, 1), limits(g, k), c)
	if st.Cycles < 1 || st.Entries == 0 || st.Work > c.Budget+st.Largest || st.Work < st.Entries {
		t.Fatalf("budget %d: %d cycles, work %d, %d FM entries, the costliest cycle %d", c.Budget, st.Cycles, st.Work, st.Entries, st.Largest)
	}
	c.FirstWork = c.Budget + 1 // the caller's estimate of the first cycle does not fit
	if st := Run(par.New(1), g, top, balanced(g, k, 1), limits(g, k), c); st.Cycles != 0 {
		t.Fatalf("first cycle estimated past the budget: %d cycles", st.Cycles)
	}
	c.FirstWork, c.EntryUnits = 0, 0
	if free := Run(par.New(1), g, top, balanced(g, k, 1), limits(g, k), c); free.Cycles <= st.Cycles {
		t.Fatalf("the same budget ran %d cycles with the FM charged, %d without", st.Cycles, free.Cycles)
	}
}
