package gpumap

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// On graphs below refinement.ParallelFMMin the default preset's final J
// pass runs the sequential FM with the seed filter (only vertices whose
// best move gains start searches), as the parallel FM filters on larger
// graphs: the mapping is exactly that FM's, not the unfiltered one's.
func TestFinalJPassFiltersSeedsOnSmallGraphs(t *testing.T) {
	g := graph.RandomGeometric(3000, 7)
	if g.N() >= refinement.ParallelFMMin {
		t.Fatal("the graph must take the sequential FM")
	}
	top, err := topology.Parse("4:8:2", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	// Blocks of consecutive vertices: a mapping with gains to find.
	pe := make([]int32, g.N())
	for v := range pe {
		pe[v] = int32(v * top.K() / g.N())
	}
	opt := Options{Preset: Default, Eps: 0.03, Threads: 1, Seed: 3}
	p := newPipeline(par.New(1), g, top, opt, &tracker{})
	got := slices.Clone(pe)
	p.refineJ(got)
	run := func(filter bool) []int32 {
		part := slices.Clone(pe)
		s := refinement.NewState(g, top.K(), part, p.limits(), refinement.Mapping(top))
		if s.Overloaded() > 0 {
			refinement.Rebalance(s)
		}
		fm := presets[Default].finalFM
		fm.Seed, fm.SeedFilter = opt.Seed^0xf1a1, filter
		refinement.RunFM(s, fm, -1)
		return part
	}
	filtered, unfiltered := run(true), run(false)
	if slices.Equal(filtered, unfiltered) {
		t.Fatal("the instance does not tell the filtered FM from the unfiltered one")
	}
	if !slices.Equal(got, filtered) {
		t.Errorf("the final J pass's mapping is not the filtered FM's (unfiltered's: %v)", slices.Equal(got, unfiltered))
	}
	obj := refinement.Mapping(top)
	if j0, j := obj.Cost(g, pe), obj.Cost(g, got); j > j0 {
		t.Errorf("J rose from %d to %d", j0, j)
	}
}

// BenchmarkFinalJPass runs default's final J pass on a mapping of a
// 20,000-vertex random geometric graph onto 4:8:6 by blocks of
// consecutive vertices (the sequential FM, seeds filtered); entries/op is
// the FM's counted work (FMConfig.Work), exact under any load.
func BenchmarkFinalJPass(b *testing.B) {
	g := graph.RandomGeometric(20000, 5)
	top, err := topology.Parse("4:8:6", "1:10:100")
	if err != nil {
		b.Fatal(err)
	}
	pe := make([]int32, g.N())
	for v := range pe {
		pe[v] = int32(v * top.K() / g.N())
	}
	p := newPipeline(par.New(1), g, top, Options{Preset: Default, Eps: 0.03, Threads: 1}, &tracker{})
	part := make([]int32, g.N())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(part, pe)
		p.refineJ(part)
	}
	b.ReportMetric(float64(p.work.Load())/float64(b.N), "entries/op")
}
