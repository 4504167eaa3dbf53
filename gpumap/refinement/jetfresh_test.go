package refinement

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// uncachedJet is the ORACLE for label propagation's kept choices: the CPU
// Jet with every vertex evaluated in every label propagation, by
// forgetting the kept choices first. It gives the mapping of the Jet
// before the choices were kept (main at 2f624a5), not its cost: it still
// writes fresh, lpDest and lpGain and runs the stale pass (BenchmarkJet).
type uncachedJet struct{ *jet }

func (u uncachedJet) LabelPropagation() error {
	clear(u.fresh)
	return u.jet.LabelPropagation()
}

// countingJet counts the vertices whose kept choice label propagation
// used (fresh, unlocked).
type countingJet struct {
	*jet
	kept int
}

func (c *countingJet) LabelPropagation() error {
	for v := range c.fresh {
		if c.fresh[v] && !c.locked[v] {
			c.kept++
		}
	}
	return c.jet.LabelPropagation()
}

// TestJetKeptChoicesAsEvaluated: Jet with label propagation's kept
// choices ends with the assignment and cost of the oracle that evaluates
// every vertex every time, on meshes, geometric and random graphs,
// balanced starts and overloaded ones (rebalancing between label
// propagations), the cut and J, on 1 and 3 threads; and it does keep
// choices.
func TestJetKeptChoicesAsEvaluated(t *testing.T) {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	k := top.K()
	kept := 0
	for gi, g := range []*graph.Graph{graph.Grid(60, 70), graph.RandomGeometric(5000, 3), graph.Random(4000, 16000, 9, 3, 5)} {
		for _, obj := range []Objective{Cut(), Mapping(top)} {
			for _, overload := range []bool{false, true} {
				for _, threads := range []int{1, 3} {
					start, maxW := stripes(g, k)
					if overload {
						for v := range start {
							if v%5 == 0 {
								start[v] = 0
							}
						}
					}
					run := func(cached bool) ([]int32, int64) {
						s := NewState(g, k, slices.Clone(start), maxW, obj)
						j := newJet(par.New(threads), s, JetConfig{Seed: 3})
						var ops JetOps = uncachedJet{j}
						var cj *countingJet
						if cached {
							cj = &countingJet{jet: j}
							ops = cj
						}
						c, err := RunJet(ops, JetConfig{Seed: 3})
						if err != nil {
							t.Fatal(err)
						}
						if cj != nil {
							kept += cj.kept
						}
						return s.Part, c
					}
					p0, c0 := run(false)
					p1, c1 := run(true)
					if c0 != c1 || !slices.Equal(p0, p1) {
						t.Fatalf("graph %d obj cut=%v overload=%v t=%d: cost %d, oracle %d (assignments equal: %v)",
							gi, obj.IsCut(), overload, threads, c1, c0, slices.Equal(p0, p1))
					}
				}
			}
		}
	}
	if kept == 0 {
		t.Fatal("no label propagation kept a choice")
	}
	t.Logf("%d kept choices", kept)
}

// BenchmarkJet: the CPU Jet loop on J onto 4:8:6, from a start of
// stripes with every fifth vertex in block 0 (rebalancing, then label
// propagation), one thread; "evaluated" is the oracle (every vertex every
// label propagation), "kept" reuses the choices that hold. "evaluated" is
// the new code with its choices cleared, no stand-in for main at 2f624a5:
// measured against that main's own Jet, it took 1.01-1.09x (rgg 2^16)
// and 1.00-1.19x (grid256), "kept" 0.81-0.90x and 0.56-0.65x.
func BenchmarkJet(b *testing.B) {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	k := top.K()
	for _, tc := range []struct {
		name string
		g    *graph.Graph
	}{{"rgg2^16", graph.RandomGeometric(1<<16, 1)}, {"grid256", graph.Grid(256, 256)}} {
		start, maxW := stripes(tc.g, k)
		for v := range start {
			if v%5 == 0 {
				start[v] = 0
			}
		}
		for _, cached := range []bool{false, true} {
			name := tc.name + "/evaluated"
			if cached {
				name = tc.name + "/kept"
			}
			b.Run(name, func(b *testing.B) {
				var cost int64
				for i := 0; i < b.N; i++ {
					s := NewState(tc.g, k, slices.Clone(start), maxW, Mapping(top))
					j := newJet(par.New(1), s, JetConfig{Seed: 1})
					var ops JetOps = uncachedJet{j}
					if cached {
						ops = j
					}
					cost, _ = RunJet(ops, JetConfig{Seed: 1})
				}
				b.ReportMetric(float64(cost), "J")
			})
		}
	}
}
