package gpumap

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// shuffled renumbers g randomly: no locality left for natural-order
// matching or chunked work to exploit.
func shuffled(g *graph.Graph, seed uint64) *graph.Graph {
	n := g.N()
	perm := rand.New(rand.NewPCG(seed, 1)).Perm(n)
	b := graph.NewBuilder(n)
	for v := 0; v < n; v++ {
		b.SetVertexWeight(perm[v], g.VW[v])
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := int(g.Adj[e]); u > v {
				b.AddEdge(perm[v], perm[u], g.W(e))
			}
		}
	}
	h, _ := b.Build()
	return h
}

// Determinism across thread counts: every parallel phase cuts its work and
// combines results independently of the thread count, so -t 1, 2 and 3
// give byte-identical mappings. The graphs are large enough for the
// parallel paths (several contraction tasks, parallel loops) to run, and
// the parallel FM and label propagation are switched on for them.
func TestSameMappingForAnyThreadCount(t *testing.T) {
	old := refinement.ParallelFMMin
	refinement.ParallelFMMin = 1 << 12
	defer func() { refinement.ParallelFMMin = old }()
	top, _ := topology.Parse("4:8:3", "1:10:100")
	graphs := map[string]*graph.Graph{
		"rgg":             graph.RandomGeometric(20000, 11),
		"grid3d":          graph.Grid(28, 28, 25),
		"weighted random": graph.Random(10000, 45000, 1000, 5, 12),
		"shuffled rgg":    shuffled(graph.RandomGeometric(15000, 13), 14),
		"road-like":       graph.RoadGrid(70, 70), // partition.Config.Attach
		// the automatic choice: label propagation (skewed), IM (dense blocks)
		"power law":    graph.PowerLaw(12000, 4, 15),
		"dense blocks": graph.DenseBlocks(150, 20, 80, 16),
	}
	if underRace { // every algorithm still, the rgg above ParallelFMMin
		graphs = map[string]*graph.Graph{
			"rgg":          graph.RandomGeometric(4500, 11),
			"power law":    graph.PowerLaw(1500, 4, 15),
			"dense blocks": graph.DenseBlocks(20, 20, 80, 16),
		}
	}
	// MappingThreads' rule on: the power-law graph and those smaller map
	// on one thread whatever the thread count, the larger ones on all.
	defer func(n int) { serialMaxVertices = n }(serialMaxVertices)
	serialMaxVertices = graphs["power law"].N() + 1
	sides := map[bool]int{}
	for _, g := range graphs {
		sides[g.N() < serialMaxVertices]++
	}
	if sides[true] == 0 || sides[false] == 0 {
		t.Fatalf("the graphs lie on one side of the threshold %d: %v", serialMaxVertices, sides)
	}
	for name, g := range graphs {
		for _, alg := range []Algorithm{Multisection, Integrated, AutoAlgorithm} {
			if alg == Integrated && name != "rgg" || alg == AutoAlgorithm && name != "power law" && name != "dense blocks" {
				continue
			}
			var ref []int32
			for _, threads := range []int{1, 2, 3} {
				var progress strings.Builder
				opt := DefaultOptions()
				opt.Algorithm, opt.Seed, opt.Threads, opt.Backend, opt.Progress = alg, 3, threads, CPU, &progress
				res, err := Map(g, top, opt)
				if err != nil {
					t.Fatal(err)
				}
				used := threads
				if g.N() < serialMaxVertices {
					used = 1
				}
				if want := fmt.Sprintf(" threads=%d", used); !strings.Contains(progress.String(), want) {
					t.Fatalf("%s %s, threads=%d: no %q in the progress\n%s", name, alg, threads, want, progress.String())
				}
				if ref == nil {
					ref = res.PE
					continue
				}
				for v := range ref {
					if res.PE[v] != ref[v] {
						t.Fatalf("%s %s: threads=%d maps vertex %d to %d, threads=1 to %d", name, alg, threads, v, res.PE[v], ref[v])
					}
				}
			}
		}
	}
}

// On two or more threads the split of the whole machine takes the
// hierarchy built while the features are measured (pipeline.coarsenAhead)
// and maps as one thread does; graphs that the features send elsewhere
// (dense blocks: IM) leave it unused, with the same mapping. (Default
// measures the features from bothMaxEdges edges, which the test lowers.)
func TestHierarchyBuiltAheadKeepsTheMapping(t *testing.T) {
	old := refinement.ParallelFMMin
	refinement.ParallelFMMin = 1 << 12
	defer func() { refinement.ParallelFMMin = old }()
	defer func(m int64) { bothMaxEdges = m }(bothMaxEdges)
	bothMaxEdges = 0
	top, _ := topology.Parse("4:8:3", "1:10:100")
	for _, c := range []struct {
		name string
		g    *graph.Graph
		log  string
	}{
		{"rgg", graph.RandomGeometric(20000, 21), "used the hierarchy built during the features"},
		{"grid3d", graph.Grid(28, 28, 25), "used the hierarchy built during the features"},
		{"road-like", graph.RoadGrid(70, 70), "used the hierarchy built during the features"},
		{"dense blocks", graph.DenseBlocks(150, 20, 80, 16), "the hierarchy built during the features went unused"},
	} {
		var ref []int32
		for _, threads := range []int{1, 2, 3} {
			var progress strings.Builder
			opt := DefaultOptions()
			opt.Seed, opt.Threads, opt.Backend, opt.Progress = 5, threads, CPU, &progress
			res, err := Map(c.g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			if used := strings.Contains(progress.String(), c.log); used != (threads > 1) {
				t.Fatalf("%s, threads=%d: %q in the progress is %v\n%s", c.name, threads, c.log, used, progress.String())
			}
			if ref == nil {
				ref = res.PE
				continue
			}
			for v := range ref {
				if res.PE[v] != ref[v] {
					t.Fatalf("%s: threads=%d maps vertex %d to %d, threads=1 to %d", c.name, threads, v, res.PE[v], ref[v])
				}
			}
		}
	}
}

// TestMain maps the package's tests' small graphs on the threads they ask
// for (serialMaxVertices 0): they were written to run the parallel paths.
// The tests of MappingThreads' rule set it back.
func TestMain(m *testing.M) {
	serialMaxVertices = 0
	os.Exit(m.Run())
}

// The fast and default presets map graphs below defaultSerialMaxVertices
// vertices on one thread, from any thread count asked (0: all cores);
// strong keeps what it was given, and so do larger graphs and one-to-one
// instances. Map's progress names the threads used and those asked.
func TestMappingThreadsRule(t *testing.T) {
	defer func(n int) { serialMaxVertices = n }(serialMaxVertices)
	small := graph.Grid(20, 20, 1) // 400 vertices
	top, _ := topology.Parse("4:2", "1:10")
	ranks, _ := topology.Parse("50:8", "1:10") // 400 PEs: one-to-one
	all := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		preset  Preset
		top     *topology.Topology
		threads int
		n       int // the threshold
		want    int
	}{
		{Default, top, 2, defaultSerialMaxVertices, 1},
		{Fast, top, 3, defaultSerialMaxVertices, 1},
		{Default, top, 1, defaultSerialMaxVertices, 1},
		{Default, top, 0, defaultSerialMaxVertices, 1},
		{Strong, top, 2, defaultSerialMaxVertices, 2},
		{Strong, top, 0, defaultSerialMaxVertices, all},
		{Default, ranks, 2, defaultSerialMaxVertices, 2},
		{Default, top, 2, small.N(), 2}, // at the threshold: all threads
		{Default, top, 0, small.N(), all},
		{Default, top, 2, small.N() + 1, 1},
	} {
		serialMaxVertices = c.n
		opt := DefaultOptions()
		opt.Preset, opt.Threads = c.preset, c.threads
		if c.top == ranks {
			opt.Eps = 0
		}
		if got := MappingThreads(small, c.top, opt); got != c.want {
			t.Errorf("%s onto %s, -t %d, threshold %d: %d threads, want %d", c.preset, c.top, c.threads, c.n, got, c.want)
		}
	}
	// One-to-one on a sparse machine's first PEs keeps its threads, as
	// mapMetered routes it (the whole machine's check put it on one).
	serialMaxVertices = defaultSerialMaxVertices
	rgg := graph.RandomGeometric(4096, 1)
	wide, _ := topology.Parse("64:64:8", "1:10:100")
	opt := DefaultOptions()
	opt.Threads = 2
	if got := MappingThreads(rgg, wide, opt); got != 2 {
		t.Errorf("4,096 vertices onto 64:64:8 (one-to-one on its first 4,096 PEs): %d threads, want 2", got)
	}
	var progress strings.Builder
	opt = DefaultOptions()
	opt.Threads, opt.Backend, opt.Progress = 2, CPU, &progress
	if _, err := Map(small, top, opt); err != nil {
		t.Fatal(err)
	}
	if want := " threads=1 (of 2: "; !strings.Contains(progress.String(), want) {
		t.Fatalf("no %q in the progress:\n%s", want, progress.String())
	}
}
