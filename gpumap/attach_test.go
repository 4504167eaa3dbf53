package gpumap

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// The default preset's multisection hands the matchings' single vertices
// to pairs (partition.Config.Attach) on graphs of mean degree below
// attachDegree only: a road grid (2.65) and not the grid (3.93), and
// never in the fast preset or in IM's own coarsening (where IM does not
// coarsen the graph, its initial mapping is HM's multisection, which
// attaches as HM does).
func TestAttachOnSparseGraphsOnly(t *testing.T) {
	top, _ := topology.Parse("4:8:3", "1:10:100")
	for _, c := range []struct {
		name   string
		g      *graph.Graph
		preset Preset
		want   bool
	}{
		{"road grid", graph.RoadGrid(60, 60), Default, true},
		{"grid", graph.Grid(60, 60), Default, false},
		{"road grid, fast", graph.RoadGrid(60, 60), Fast, false},
	} {
		opt := DefaultOptions()
		opt.Preset = c.preset
		p := newPipeline(par.New(1), c.g, top, opt, nil)
		cfg := p.multisectionConfig()
		if cfg.Partition.Attach != c.want || cfg.Bottom.Attach != c.want {
			t.Errorf("%s: Attach %v (bottom %v), want %v", c.name, cfg.Partition.Attach, cfg.Bottom.Attach, c.want)
		}
		if im := p.cfg.imConfig(); im.Initial.Partition.Attach {
			t.Errorf("%s: IM's initial mapping attaches", c.name)
		}
		// IM runs a shorter Jet loop on the same graphs (issue 25).
		if it, want := p.imSettings().Jet.Iterations, map[bool]int{true: sparseJetIters}[c.want]; it != want {
			t.Errorf("%s: IM's Jet iterations %d, want %d", c.name, it, want)
		}
	}
}

// sparseJetIters applies only when > 0: a preset that attaches on sparse
// graphs without a shorter Jet loop keeps its own Jet iterations (strong's
// 16; without the guard it got 0, Jet's 12).
func TestSparseJetItersZeroKeepsPresetJet(t *testing.T) {
	top, _ := topology.Parse("4:8:3", "1:10:100")
	opt := DefaultOptions()
	opt.Preset = Strong
	p := newPipeline(par.New(1), graph.RoadGrid(60, 60), top, opt, nil)
	want := p.cfg.imConfig().Jet.Iterations
	p.cfg.attachDegree, p.cfg.sparseJetIters = attachDegree, 0
	if !p.sparse() {
		t.Fatal("the road grid is not sparse under attachDegree")
	}
	if it := p.imSettings().Jet.Iterations; it != want {
		t.Fatalf("IM's Jet iterations %d, want the preset's %d", it, want)
	}
}
