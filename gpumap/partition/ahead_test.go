package partition

import (
	"reflect"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// A hierarchy built ahead is handed out once, only for the graph, limits
// and coarsening it was built for, and is the hierarchy Coarsen builds.
func TestAheadOnlyForItsOwnCoarsening(t *testing.T) {
	g := graph.RandomGeometric(6000, 5)
	other := graph.RandomGeometric(6000, 5)
	maxW := limits(g.TotalVertexWeight(), 6, 0.03)
	cfg := Config{Tries: 4, LPRounds: 2, FMRounds: 2, Local: true, FM: refinement.FMConfig{Alpha: 30}}
	plan := func() ([]int64, Config, bool) { return maxW, cfg, true }
	finer := cfg
	finer.CoarsenC = 2 * cfg.withDefaults().CoarsenC
	for _, c := range []struct {
		name string
		g    *graph.Graph
		maxW []int64
		cfg  Config
	}{
		{"another graph", other, maxW, cfg},
		{"other limits", g, limits(g.TotalVertexWeight(), 4, 0.03), cfg},
		{"another coarsening", g, maxW, finer},
	} {
		a := CoarsenAhead(par.New(1), g, plan)
		if _, ok := a.Hierarchy(c.g, c.maxW, c.cfg, 2); ok || a.Taken() {
			t.Fatalf("%s: took the hierarchy built ahead", c.name)
		}
	}
	a := CoarsenAhead(par.New(1), g, plan)
	h, ok := a.Hierarchy(g, maxW, cfg, 2)
	if !ok || !a.Taken() {
		t.Fatal("the hierarchy built ahead for the same graph, limits and coarsening was not taken")
	}
	if _, again := a.Hierarchy(g, maxW, cfg, 2); again {
		t.Fatal("the hierarchy built ahead was handed out twice")
	}
	want := Coarsen(par.New(2), g, maxW, cfg, 2)
	if len(h.levels) != len(want.levels) || len(h.levels) < 2 {
		t.Fatalf("%d levels ahead, %d from Coarsen", len(h.levels), len(want.levels))
	}
	for i := range h.levels {
		if !slices.Equal(h.levels[i].CMap, want.levels[i].CMap) || !slices.Equal(h.levels[i].Graph.Adj, want.levels[i].Graph.Adj) {
			t.Fatalf("level %d differs from Coarsen's", i)
		}
	}
	none := CoarsenAhead(par.New(1), g, func() ([]int64, Config, bool) { return nil, cfg, false })
	if _, ok := none.Hierarchy(g, maxW, cfg, 2); ok {
		t.Fatal("a plan that declined built a hierarchy")
	}
	var nilAhead *Ahead
	nilAhead.Wait()
	if _, ok := nilAhead.Hierarchy(g, maxW, cfg, 2); ok {
		t.Fatal("a nil Ahead gave a hierarchy")
	}
}

// sameCoarsening compares every field of coarsening.Config: one added
// there must be compared too.
func TestSameCoarseningSeesEveryField(t *testing.T) {
	if n := reflect.TypeOf(coarsening.Config{}).NumField(); n != 10 {
		t.Fatalf("coarsening.Config has %d fields, sameCoarsening compares 10", n)
	}
	base := coarsening.Config{StopSize: 100, MaxWeight: 50, MinShrink: 0.05, MaxLevels: 3, Seed: 9, Natural: true}
	changed := []func(*coarsening.Config){
		func(c *coarsening.Config) { c.StopSize++ },
		func(c *coarsening.Config) { c.MaxWeight++ },
		func(c *coarsening.Config) { c.MinShrink = 0.1 },
		func(c *coarsening.Config) { c.MaxLevels++ },
		func(c *coarsening.Config) { c.Matcher = coarsening.MatchTwoHop },
		func(c *coarsening.Config) { c.Seed++ },
		func(c *coarsening.Config) { c.Natural = false },
		func(c *coarsening.Config) { c.Block = []int32{0} },
		func(c *coarsening.Config) { c.Stall = 0.5 },
		func(c *coarsening.Config) { c.Attach = true },
	}
	if !sameCoarsening(base, base) {
		t.Fatal("a configuration differs from itself")
	}
	for i, change := range changed {
		c := base
		change(&c)
		if sameCoarsening(base, c) || sameCoarsening(c, base) {
			t.Fatalf("change %d not seen", i)
		}
	}
}
