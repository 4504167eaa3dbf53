package gpumap

import (
	"reflect"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// On regular graphs strong's general mapping is the best of several
// pipelines, default's with the same seed among them (on an expander-like
// random graph, default's alone): never worse than the default preset,
// and the same mapping for any thread count (the candidates run
// side by side on 2 and 3 threads, one after the other on 1). Skewed and
// dense-block graphs run strong's own pipeline: same mapping for any
// thread count.
func TestStrongPortfolio(t *testing.T) {
	top, _ := topology.Parse("4:4:3", "1:10:100")
	graphs := map[string]*graph.Graph{
		"rgg":          graph.RandomGeometric(4000, 21),
		"grid3d":       graph.Grid(14, 14, 12),
		"power law":    graph.PowerLaw(3000, 4, 22),
		"dense blocks": graph.DenseBlocks(50, 20, 60, 23),
		"random":       graph.Random(9000, 70000, 1, 1, 24),
	}
	if underRace {
		graphs = map[string]*graph.Graph{
			"rgg":          graph.RandomGeometric(1000, 21),
			"dense blocks": graph.DenseBlocks(15, 20, 60, 23),
		}
	}
	regular := map[string]bool{"rgg": true, "grid3d": true, "random": true}
	for name, g := range graphs {
		opt := DefaultOptions()
		opt.Seed, opt.Backend, opt.Threads = 5, CPU, 1
		def, err := Map(g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		var ref *Result
		for _, threads := range []int{1, 2, 3} {
			opt.Preset, opt.Threads = Strong, threads
			res, err := Map(g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Metrics.Feasible || regular[name] && res.Metrics.J > def.Metrics.J ||
				name == "random" && !slices.Equal(res.PE, def.PE) {
				t.Fatalf("%s: strong J %d (feasible %v), default %d", name, res.Metrics.J, res.Metrics.Feasible, def.Metrics.J)
			}
			if want, err := graph.Evaluate(g, top, res.PE, opt.Eps); err != nil || !reflect.DeepEqual(res.Metrics, want) {
				t.Fatalf("%s: strong reports %+v, its mapping has %+v (%v)", name, res.Metrics, want, err)
			}
			if ref == nil {
				ref = res
				t.Logf("%s: strong J %d, default %d", name, res.Metrics.J, def.Metrics.J)
			} else if !slices.Equal(res.PE, ref.PE) {
				t.Fatalf("%s: strong maps differently with %d threads than with 1", name, threads)
			}
		}
	}
}
