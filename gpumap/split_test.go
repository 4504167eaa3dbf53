package gpumap

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Split names the pipelines of default's portfolio: where Map runs HM and
// IM side by side, the two options, and Map's mapping is the better of
// their mappings (the first on equal J); elsewhere opt alone (one
// pipeline, another preset or algorithm, a possible GPU).
func TestSplit(t *testing.T) {
	top, _ := topology.Parse("4:8", "1:10")
	opt := DefaultOptions()
	opt.Seed, opt.Threads = 3, 2
	// A 24x24 grid: 1,104 edges, both algorithms under -a auto (every
	// graph below bothMaxEdges); with -a hm the one algorithm asked for.
	// A graph that IM coarsens (4,000 vertices, 125 per PE), where default
	// duels, is split too: its HM runs to its end alone.
	grid := graph.Grid(24, 24)
	rgg := graph.RandomGeometric(4000, 21)
	hm := opt
	hm.Algorithm = Multisection
	for _, c := range []struct {
		name string
		g    *graph.Graph
		opt  Options
		want int
	}{{"grid", grid, opt, 2}, {"grid -a hm", grid, hm, 1}, {"rgg", rgg, opt, 2}} {
		opt := c.opt
		split := Split(c.g, top, opt)
		if len(split) != c.want {
			t.Fatalf("%s: %d pipelines, want %d", c.name, len(split), c.want)
		}
		whole, err := Map(c.g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		var best *Result
		for i, o := range split {
			if c.want == 2 && (o.Algorithm != [2]Algorithm{Multisection, Integrated}[i] || o.Seed != opt.Seed || o.Preset != Default) {
				t.Errorf("%s: pipeline %d: %+v", c.name, i, o)
			}
			o.Threads = 1
			r, err := Map(c.g, top, o)
			if err != nil {
				t.Fatal(err)
			}
			if best == nil || r.Metrics.Feasible && !best.Metrics.Feasible || r.Metrics.Feasible == best.Metrics.Feasible && r.Metrics.J < best.Metrics.J {
				best = r
			}
		}
		if !slices.Equal(best.PE, whole.PE) {
			t.Errorf("%s: the best of Split's pipelines (J %d) is not Map's mapping (J %d)", c.name, best.Metrics.J, whole.Metrics.J)
		}
	}
	for _, o := range []Options{
		func() Options { o := opt; o.Preset = Strong; return o }(),
		func() Options { o := opt; o.Algorithm = Integrated; return o }(),
		func() Options { o := opt; o.Backend = GPU; return o }(),
	} {
		if s := Split(grid, top, o); len(s) != 1 || s[0] != o {
			t.Errorf("%+v: split into %d", o, len(s))
		}
	}
}
