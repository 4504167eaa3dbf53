package refinement

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// stripes cuts g's vertex range into k equal blocks (on an rgg, numbered
// by cell, these are strips of the square: a rough partition to refine).
func stripes(g *graph.Graph, k int) ([]int32, []int64) {
	n := g.N()
	part := make([]int32, n)
	for v := range part {
		part[v] = int32(v * k / n)
	}
	maxW := make([]int64, k)
	for b := range maxW {
		maxW[b] = graph.Lmax(g.TotalVertexWeight(), k, 0.03)
	}
	return part, maxW
}

func benchFM(b *testing.B, parallel bool, obj func(k int) Objective, k int) {
	g := graph.RandomGeometric(1<<18, 3)
	x := par.New(0)
	b.ResetTimer()
	var gain int64
	for i := 0; i < b.N; i++ {
		part, maxW := stripes(g, k)
		s := NewState(g, k, part, maxW, obj(k))
		cfg := FMConfig{Rounds: 2, Alpha: 30, SkipExplored: true, Seed: 1}
		if parallel {
			gain = RunFMParallel(x, s, cfg, -1)
		} else {
			gain = RunFM(s, cfg, -1)
		}
	}
	b.ReportMetric(float64(gain), "gain")
}

func cutObj(int) Objective { return Cut() }

func mapObj(k int) Objective {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	if top.K() != k {
		panic("k")
	}
	return Mapping(top)
}

func BenchmarkFMCutSequential(b *testing.B) { benchFM(b, false, cutObj, 6) }
func BenchmarkFMCutParallel(b *testing.B)   { benchFM(b, true, cutObj, 6) }
func BenchmarkFMJSequential(b *testing.B)   { benchFM(b, false, mapObj, 192) }
func BenchmarkFMJParallel(b *testing.B)     { benchFM(b, true, mapObj, 192) }

// The parallel FM and label propagation: the same result for any thread
// count, a reported gain equal to the cost change recomputed from scratch,
// never a worse cost, and no block pushed over its limit.
func TestParallelRefinersInvariants(t *testing.T) {
	old := ParallelFMMin
	ParallelFMMin = 0
	defer func() { ParallelFMMin = old }()
	top, _ := topology.Parse("4:8:3", "1:10:100")
	graphs := map[string]*graph.Graph{
		"rgg":      graph.RandomGeometric(20000, 4),
		"grid":     graph.Grid(120, 100),
		"weighted": graph.Random(8000, 40000, 100, 4, 5),
	}
	if underRace { // the same refiners on 1, 2 and 3 threads, smaller graphs
		graphs = map[string]*graph.Graph{
			"rgg":      graph.RandomGeometric(3000, 4),
			"grid":     graph.Grid(40, 30),
			"weighted": graph.Random(1500, 7500, 100, 4, 5),
		}
	}
	for name, g := range graphs {
		for _, k := range []int{6, top.K()} {
			obj := Cut()
			if k == top.K() {
				obj = Mapping(top)
			}
			for _, mode := range []string{"fm", "fm filtered", "lp"} {
				var ref []int32
				for _, threads := range []int{1, 2, 3} {
					part, maxW := stripes(g, k)
					s := NewState(g, k, part, maxW, obj)
					before, over := s.Cost(), s.Overloaded()
					x := par.New(threads)
					var gain int64
					switch mode {
					case "lp":
						gain = LabelPropagationParallel(x, s, 3, 9)
					default:
						cfg := FMConfig{Rounds: 2, Alpha: 20, SkipExplored: true, Seed: 9, FilterLarge: mode == "fm filtered"}
						gain = RunFMParallel(x, s, cfg, before)
					}
					after := s.Cost()
					if gain != before-after || gain < 0 {
						t.Fatalf("%s k=%d %s threads=%d: gain %d, cost %d -> %d", name, k, mode, threads, gain, before, after)
					}
					if s.Overloaded() > over {
						t.Fatalf("%s k=%d %s threads=%d: %d blocks overloaded, %d before", name, k, mode, threads, s.Overloaded(), over)
					}
					if ref == nil {
						ref = append([]int32(nil), s.Part...)
						continue
					}
					for v := range ref {
						if s.Part[v] != ref[v] {
							t.Fatalf("%s k=%d %s: threads=%d differs from threads=1 at vertex %d", name, k, mode, threads, v)
						}
					}
				}
			}
		}
	}
}

// After a round the boundary is looked for among the last boundary, the
// moved vertices and their neighbours only: it must be the boundary a
// scan of the whole graph finds.
func TestBoundaryAfterARoundIsTheWholeScan(t *testing.T) {
	g := graph.RandomGeometric(1<<14, 9)
	part, maxW := stripes(g, 6)
	s := NewState(g, 6, part, maxW, Cut())
	f := newBatchFM(par.New(2), s, FMConfig{Rounds: 3, Alpha: 30, SkipExplored: true, Seed: 4})
	defer f.release()
	for r := 0; r < 3; r++ {
		if f.round1() <= 0 {
			t.Fatalf("round %d gained nothing: nothing to check", r)
		}
		inc := f.boundaryAfter()
		prev := f.prev
		f.prev = nil
		full := f.boundary()
		f.prev = prev
		if len(inc) != len(full) {
			t.Fatalf("round %d: %d boundary vertices after the round, %d by a whole scan", r, len(inc), len(full))
		}
		for i := range full {
			if inc[i] != full[i] {
				t.Fatalf("round %d: boundary[%d] = %d after the round, %d by a whole scan", r, i, inc[i], full[i])
			}
		}
	}
}

// The parallel FM's seed filter keeps exactly the boundary vertices whose
// best move on the round's starting state gains at least SeedMinGain.
func TestPromisingSeedsGainEnough(t *testing.T) {
	top, _ := topology.Parse("4:8:3", "1:10:100")
	g := graph.RandomGeometric(1<<14, 6)
	part, maxW := stripes(g, top.K())
	s := NewState(g, top.K(), part, maxW, Mapping(top))
	f := newBatchFM(par.New(3), s, FMConfig{Rounds: 1, Alpha: 10, SkipExplored: true, Seed: 2, FilterLarge: true})
	defer f.release()
	f.round++
	seeds := f.boundary()
	f.buildAround(seeds)
	kept := f.promising(seeds)
	ct := NewConnTable(s)
	want := []int32{}
	for _, v := range seeds {
		if tgt, gain := ct.BestMove(v, f.cfg.Slack); tgt >= 0 && gain >= f.cfg.SeedMinGain {
			want = append(want, v)
		}
	}
	if len(kept) == 0 || len(kept) == len(seeds) {
		t.Fatalf("%d of %d seeds kept: nothing filtered to check", len(kept), len(seeds))
	}
	if len(kept) != len(want) {
		t.Fatalf("%d seeds kept, %d gain enough", len(kept), len(want))
	}
	for i := range want {
		if kept[i] != want[i] {
			t.Fatalf("seed %d kept, %d expected", kept[i], want[i])
		}
	}
}

// When a searcher's stamp wraps, every slot of its view is cleared: a
// stale slot whose stamp equals the restarted one would read as looked at
// by the current search.
func TestSearcherStampWrapClearsAll(t *testing.T) {
	w := searcherOf(viewMinBits)
	w.fresh()
	w.vs.add(1500).blk = 3
	w.vs.stamp = ^uint32(0)
	for i := range w.vs.slots {
		if w.vs.slots[i].v == 1500 {
			w.vs.slots[i].stamp = 1
		}
	}
	w.fresh()
	if x := w.vs.find(1500); x != nil {
		t.Fatalf("stamp %d after the wrap, and vertex 1500 still reads %+v", w.vs.stamp, *x)
	}
}

// An executor that grows between the parallel FM's batches (a try of the
// whole machine's split that another try left its threads to) gets more
// searchers, and the result is the one of a fixed executor.
func TestParallelFMGrowsMidRun(t *testing.T) {
	old := ParallelFMMin
	ParallelFMMin = 0
	defer func() { ParallelFMMin = old }()
	for name, g := range map[string]*graph.Graph{"rgg": graph.RandomGeometric(20000, 4), "grid": graph.Grid(120, 100)} {
		cfg := FMConfig{Rounds: 2, Alpha: 20, SkipExplored: true, Seed: 9}
		part, maxW := stripes(g, 6)
		ref := NewState(g, 6, part, maxW, Cut())
		RunFMParallel(par.New(1), ref, cfg, ref.Cost())

		part, maxW = stripes(g, 6)
		s := NewState(g, 6, part, maxW, Cut())
		team := par.NewTeam(3, 2)
		x, other := team.Member(1), team.Member(2)
		f := newBatchFM(x, s, withFMDefaults(s, cfg))
		if len(f.ws) != 1 {
			t.Fatalf("%s: %d searchers for one thread", name, len(f.ws))
		}
		team.Done(other)
		f.run(s.Cost())
		if len(f.ws) != 3 {
			t.Fatalf("%s: %d searchers after the executor grew to 3 threads", name, len(f.ws))
		}
		f.release()
		for v := range ref.Part {
			if s.Part[v] != ref.Part[v] {
				t.Fatalf("%s: the grown executor's FM differs at vertex %d", name, v)
			}
		}
	}
}

// The parallel label propagation of a try whose team mates are done (the
// last try of the whole machine's split) takes their threads between its
// batches, and moves what a fixed executor moves.
func TestLabelPropagationGrowsMidRun(t *testing.T) {
	old := ParallelFMMin
	ParallelFMMin = 0
	defer func() { ParallelFMMin = old }()
	for name, g := range map[string]*graph.Graph{"rgg": graph.RandomGeometric(20000, 4), "grid": graph.Grid(120, 100)} {
		part, maxW := stripes(g, 6)
		ref := NewState(g, 6, part, maxW, Cut())
		want := LabelPropagationParallel(par.New(1), ref, 3, 9)

		part, maxW = stripes(g, 6)
		s := NewState(g, 6, part, maxW, Cut())
		team := par.NewTeam(3, 2)
		x, other := team.Member(1), team.Member(2)
		team.Done(other)
		if got := LabelPropagationParallel(x, s, 3, 9); got != want {
			t.Errorf("%s: gain %d on the growing executor, %d on one thread", name, got, want)
		}
		if x.Threads() != 3 {
			t.Errorf("%s: %d threads after the team mate was done, want 3", name, x.Threads())
		}
		for v := range ref.Part {
			if s.Part[v] != ref.Part[v] {
				t.Fatalf("%s: the grown executor's moves differ at vertex %d", name, v)
			}
		}
	}
}
