package gpumap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// The automatic algorithm of the fast preset (and of default on graphs of
// bothMaxEdges+ edges) follows the graph's features: skewed graphs run the
// multisection with label propagation, dense-block and hub graphs IM,
// regular ones the multisection; an explicit algorithm measures nothing.
// Every mapping is feasible.
func TestAutoAlgorithmByFeatures(t *testing.T) {
	top, _ := topology.Parse("4:8:2", "1:10:100")
	for _, c := range []struct {
		name, kind, alg string
		g               *graph.Graph
	}{
		{"power law", "skewed", "hm", graph.PowerLaw(6000, 4, 21)},
		{"dense blocks", "dense-blocks", "im", graph.DenseBlocks(100, 20, 80, 22)},
		{"rgg", "regular", "hm", graph.RandomGeometric(6000, 23)},
		{"r-mat", "hubs", "im", graph.RMAT(13, 8, 24)},
	} {
		for _, alg := range []Algorithm{AutoAlgorithm, Multisection} {
			var log bytes.Buffer
			opt := DefaultOptions()
			opt.Preset, opt.Algorithm, opt.Backend, opt.Progress = Fast, alg, CPU, &log
			res, err := Map(c.g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Metrics.Feasible {
				t.Errorf("%s %s: infeasible mapping", c.name, alg)
			}
			want := ": " + c.kind + ", algorithm " + c.alg
			if got := log.String(); alg == AutoAlgorithm && !strings.Contains(got, want) {
				t.Errorf("%s: progress lacks %q:\n%s", c.name, want, got)
			} else if alg != AutoAlgorithm && strings.Contains(got, "features:") {
				t.Errorf("%s: -a %s measured features:\n%s", c.name, alg, got)
			}
		}
	}
}

// On hub graphs strong's own settings are default's (its extra tries
// measured 5-9x the time for no better J there): its portfolio runs
// default's pipelines with more seeds and both algorithms, default's
// mapping among them, so its J is at most default's.
func TestStrongOnHubs(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	g := graph.RMAT(12, 8, 25)
	var js [2]int64
	for i, p := range []Preset{Default, Strong} {
		var log bytes.Buffer
		opt := DefaultOptions()
		opt.Preset, opt.Backend, opt.Progress = p, CPU, &log
		res, err := Map(g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		js[i] = res.Metrics.J
		if p == Strong && strings.Contains(log.String(), "from the strong preset's") {
			t.Errorf("strong's own pipeline won on a hub graph:\n%s", log.String())
		}
	}
	if js[1] > js[0] {
		t.Fatalf("strong J %d, default %d", js[1], js[0])
	}
}

// Strong's large configuration: every graph of 2^18+ edges gets it, except
// (when the features are known) regular 2D-like ones below 3*2^18 edges,
// whose edges shrink under matching much faster than their vertices.
func TestStrongLargeConfigByFeatures(t *testing.T) {
	c := presets[Strong]
	l := c.large
	flat := features.Features{DegreeCV: 0.3, VertexKeep: 0.27, EdgeKeep: 0.19}  // gen_rgg2d_n17
	deep := features.Features{DegreeCV: 0.37, VertexKeep: 0.28, EdgeKeep: 0.27} // rgg3d_n17
	skew := features.Features{DegreeCV: 2, VertexKeep: 0.9, EdgeKeep: 0.6}      // power law
	dense := features.Features{DegreeCV: 0.5, VertexKeep: 0.5, EdgeKeep: 0.2}   // dense blocks
	for _, tc := range []struct {
		m     int64
		f     *features.Features
		large bool
	}{
		{l.m - 1, nil, false}, {l.m - 1, &deep, false}, {l.m, nil, true}, {l.m, &deep, true},
		{l.m, &flat, false}, {l.flatBelow - 1, &flat, false}, {l.flatBelow, &flat, true},
		{l.m, &skew, true}, {l.m, &dense, true},
	} {
		got := c.forSize(tc.m, tc.f)
		if isLarge := got.topTries == l.topTries && got.finalFM == l.finalFM; isLarge != tc.large {
			t.Errorf("m=%d features %v: large config %v, want %v", tc.m, tc.f, isLarge, tc.large)
		}
	}
	if d := presets[Default]; d.forSize(1<<30, &flat).topTries != d.topTries || d.forSize(1<<30, nil).topTries != d.topTries {
		t.Error("the default preset has no large configuration")
	}
}

// Default's HM clusters stalled levels and bounds the FM's fruitless work;
// IM's initial mapping takes neither (partition.Config.ForIM): with them,
// IM onto 4:8:6 on a 2^18 rgg was +4.5% (stop 35's merge).
func TestIMInitialMatchesWithUnboundedFM(t *testing.T) {
	d := presets[Default]
	if d.partition.Stall == 0 || d.partition.FM.WasteWork == 0 || d.bottom.Stall == 0 || d.bottom.FM.WasteWork == 0 {
		t.Fatalf("default's HM: Stall %v/%v WasteWork %v/%v", d.partition.Stall, d.bottom.Stall, d.partition.FM.WasteWork, d.bottom.FM.WasteWork)
	}
	for pr, c := range presets {
		if p := c.imConfig().Initial.Partition; p.Stall != 0 || p.FM.WasteWork != 0 {
			t.Errorf("preset %d: IM's initial Stall %v WasteWork %v", pr, p.Stall, p.FM.WasteWork)
		}
	}
}
