package multisection

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/kway"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

func TestWideAppliesByHand(t *testing.T) {
	w := WideConfig{PerPE: 4, MinK: 4096}
	for _, c := range []struct {
		n, k int
		want bool
	}{
		{16383, 4096, true},   // 3.99 per PE
		{16384, 4096, false},  // 4 per PE
		{1000, 4095, false},   // too few PEs
		{121192, 98304, true}, // the instance
	} {
		if got := w.Applies(c.n, c.k); got != c.want {
			t.Errorf("n=%d k=%d: wide %v, want %v", c.n, c.k, got, c.want)
		}
	}
	if (WideConfig{}).Applies(10, 1<<20) {
		t.Errorf("the zero WideConfig applies")
	}
}

// A wide mapping (k = 4096, 1.5 vertices per PE) with its extra tries
// below the top, its cheap low splits (into sockets by kway.Flat:
// FlatTries), its splits into 16 groups of ~48 vertices by deep
// multilevel k-way (KWay) and its splits into PEs by growing (GrowPEs):
// feasible, and the same for any number of workers (the second-level splits run their tries side by
// side on small graphs).
func TestWideSameMappingForAnyWorkerCount(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 11)
	if underRace {
		g = graph.RandomGeometric(4500, 11)
	}
	cfg := Config{Eps: 0.03, Seed: 3, TopTries: 2,
		Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3, GrowPEs: true, FlatTries: 2, FlatMaxN: 80,
			FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1},
			MidPerChild: 64, Mid: partition.Config{Tries: 2, LPRounds: 2, FMRounds: 1},
			KWayChildren: 16, KWay: kway.Config{C: 16, LPRounds: 2, FMRounds: -1, Bisect: partition.Config{Tries: 2},
				Pair: refinement.PairFMConfig{Rounds: 1}}}}
	var ref []int32
	for _, threads := range []int{1, 2, 3} {
		pe := Map(par.New(threads), g, top, cfg)
		check(t, g, top, 0.03, pe)
		if ref == nil {
			ref = pe
		} else if !slices.Equal(pe, ref) {
			t.Fatalf("threads=%d: another mapping than threads=1", threads)
		}
	}
}

// coarseSplit splits a child of the top on a coarse level graph: every
// vertex gets one of the group's children, each child within the limits
// of the split of the subgraph itself, the same split for any thread
// count, and another one than split's of the subgraph (the coarse path
// ran). Map with it is feasible and the same for any worker count.
func TestCoarseSplitOfTheTopsChildren(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 5)
	cfg := Config{Eps: 0.03, Seed: 2, TopTries: 2, Partition: partition.Config{Tries: 2, LPRounds: 2, FMRounds: 1},
		Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 2, GrowPEs: true,
			CoarseSecondC: 16, CoarseSecond: partition.Config{LPRounds: 4, FM: refinement.FMConfig{Rounds: 2, Alpha: 30}}}}
	x := par.New(1)
	m := newMapper(x, g, top, cfg)
	root := top.Root()
	grp := top.Children(root)[0]
	if !m.coarseSecond(grp) || m.coarseSecond(root) || m.coarseSecond(top.Children(grp)[0]) {
		t.Fatalf("coarseSecond: want the top's children only")
	}
	part := m.split(x, g, root, mustLimits(t, m, g, root), m.cfg.Partition, 1)
	sub := partition.NewBlocks(g, part, len(top.Children(root))).Extract(0)
	lim, pc, tries, _ := m.splitConfig(sub.G, grp)
	var ref []int32
	for _, threads := range []int{1, 2, 3} {
		p := m.coarseSplit(par.New(threads), sub.G, grp)
		if ref == nil {
			ref = p
			continue
		}
		if !slices.Equal(p, ref) {
			t.Fatalf("threads=%d: another split than threads=1", threads)
		}
	}
	load := make([]int64, len(lim))
	for v, c := range ref {
		if c < 0 || int(c) >= len(lim) {
			t.Fatalf("vertex %d in child %d of %d", v, c, len(lim))
		}
		load[c] += sub.G.VW[v]
	}
	for c, w := range load {
		if w > lim[c] {
			t.Errorf("child %d weighs %d, above its limit %d", c, w, lim[c])
		}
	}
	if slices.Equal(ref, m.split(x, sub.G, grp, lim, pc, tries)) {
		t.Errorf("the coarse split is split's of the subgraph itself")
	}
	var first []int32
	for _, threads := range []int{1, 2} {
		pe := Map(par.New(threads), g, top, cfg)
		check(t, g, top, 0.03, pe)
		if first == nil {
			first = pe
		} else if !slices.Equal(pe, first) {
			t.Fatalf("Map, threads=%d: another mapping than threads=1", threads)
		}
	}
}

// mustLimits is the limits of m's split of g on grp.
func mustLimits(t *testing.T, m *mapper, g *graph.Graph, grp topology.Group) []int64 {
	t.Helper()
	lim, _, _, ok := m.splitConfig(g, grp)
	if !ok {
		t.Fatalf("no split of %+v", grp)
	}
	return lim
}

// Truncate cuts the fewest bottom levels whose groups hold GroupMin
// vertices on average, and leaves at least one level on top.
func TestTruncateByHand(t *testing.T) {
	w := WideConfig{PerPE: 4, MinK: 4096, GroupMin: 16}
	for _, c := range []struct {
		n          int
		h          string
		bottom     int // 0: no truncation
		top        string
		size, topK int
	}{
		// 1.23 per PE: 4.9 per socket, 39 per group of 32 PEs
		{121192, "4:8:64:8:6", 2, "64:8:6 / 100:1000:10000", 32, 3072},
		// 3.05 per PE: 12.2 per socket, 97.7 per 32 PEs
		{100000, "4:8:16:8:8", 2, "16:8:8 / 100:1000:10000", 32, 1024},
		// 3.9 per PE: 15.6 per socket of 4, 62 per 16 PEs
		{16000, "4:4:256", 2, "256 / 100", 16, 256},
		{16384, "4:8:16:8", 0, "", 0, 0},       // 4 per PE: not wide
		{4000, "1024:4", 1, "4 / 10", 1024, 4}, // 1000 per socket of 1024 PEs
		{8000, "8192", 0, "", 0, 0},            // no level above a cut
		{100000, "4:8:64:8:6", 2, "64:8:6 / 100:1000:10000", 32, 3072},
	} {
		top, err := topology.Parse(c.h, dists(strings.Count(c.h, ":")+1))
		if err != nil {
			t.Fatal(err)
		}
		tr, ok := w.Truncate(c.n, top)
		if ok != (c.bottom > 0) {
			t.Errorf("n=%d %s: truncated %v, want %v", c.n, c.h, ok, c.bottom > 0)
			continue
		}
		if !ok {
			continue
		}
		if tr.Bottom != c.bottom || tr.Size != c.size || tr.Top.K() != c.topK || tr.Top.String() != c.top {
			t.Errorf("n=%d %s: %d levels cut, groups of %d, top %s (k=%d); want %d, %d, %s (k=%d)",
				c.n, c.h, tr.Bottom, tr.Size, tr.Top, tr.Top.K(), c.bottom, c.size, c.top, c.topK)
		}
		if g := tr.Group(5); g.Level != c.bottom || g.Lo != 5*c.size || g.Hi != 6*c.size {
			t.Errorf("n=%d %s: group of top PE 5 is %+v", c.n, c.h, g)
		}
	}
	irregular, _ := topology.NewTree([][]int{{0, 0, 1}}, []int64{1, 10})
	if _, ok := (WideConfig{PerPE: 4, MinK: 1, GroupMin: 1}).Truncate(2, irregular); ok {
		t.Errorf("an irregular machine was truncated")
	}
}

// dists is 1:10:100:... with l levels.
func dists(l int) string {
	s := "1"
	for d, i := 1, 1; i < l; i++ {
		d *= 10
		s += ":" + strconv.Itoa(d)
	}
	return s
}

// Stages: the coarse truncation, the finer one when it cuts fewer levels,
// and the whole machine; Within renumbers a truncation's groups as groups
// of a finer stage's PEs.
func TestStagesByHand(t *testing.T) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	w := WideConfig{PerPE: 4, MinK: 4096, GroupMin: 64, FineGroupMin: 16}
	st := w.Stages(121192, top)
	if len(st) != 3 {
		t.Fatalf("%d stages, want 3", len(st))
	}
	for i, c := range []struct {
		bottom, size int
		top          string
	}{{3, 2048, "8:6 / 1000:10000"}, {2, 32, "64:8:6 / 100:1000:10000"}, {0, 1, top.String()}} {
		if st[i].Bottom != c.bottom || st[i].Size != c.size || st[i].Top.String() != c.top {
			t.Errorf("stage %d: %d levels cut, groups of %d, top %s; want %d, %d, %s",
				i, st[i].Bottom, st[i].Size, st[i].Top, c.bottom, c.size, c.top)
		}
	}
	if in := st[0].Within(st[1]); in.Bottom != 1 || in.Size != 64 || in.Top != st[0].Top {
		t.Errorf("stage 0 within stage 1: %d levels, groups of %d", in.Bottom, in.Size)
	}
	if in := st[0].Within(st[2]); in != st[0] {
		t.Errorf("stage 0 within the whole machine: %+v, want itself", in)
	}
	// The finer truncation cuts as many levels: no second stage.
	w.FineGroupMin = 64
	if st := w.Stages(121192, top); len(st) != 2 || st[1].Bottom != 0 {
		t.Errorf("FineGroupMin = GroupMin: %d stages, want the truncation and the machine", len(st))
	}
	if st := (WideConfig{PerPE: 4, MinK: 4096}).Stages(121192, top); st != nil {
		t.Errorf("GroupMin 0: %d stages, want none", len(st))
	}
}

// CoarseStage: coarser graphs get larger groups, never smaller than the
// first stage's, and the groups below the top level when even those hold
// fewer than GroupMin vertices.
func TestCoarseStageByHand(t *testing.T) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	w := WideConfig{PerPE: 4, MinK: 4096, GroupMin: 64, FineGroupMin: 16}
	first := w.Stages(121192, top)[0]
	for _, c := range []struct{ n, bottom int }{
		{121192, 3}, // 2,525 per group of 2048 PEs (not 39 per 32: never finer than first)
		{3072, 3},   // 64 per group of 2048
		{3071, 4},   // 63.98: the nodes, 512 each
		{384, 4},
		{100, 4}, // 16.7 per node: still the nodes
	} {
		if st := w.CoarseStage(c.n, top, first); st.Bottom != c.bottom || st.Top.K() != top.K()/st.Size {
			t.Errorf("n=%d: %d levels cut (top k=%d, groups of %d), want %d", c.n, st.Bottom, st.Top.K(), st.Size, c.bottom)
		}
	}
}

// BenchmarkWideSplitsIntoPEs: the wide instance (rgg 121,192
// onto 4:8:64:8:6, one thread) with the default preset's wide effort,
// the splits into PEs by the partitioner and by growing (GrowPEs); J is
// reported beside the time.
func BenchmarkWideSplitsIntoPEs(b *testing.B) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	g := graph.RandomGeometric(121192, 1)
	for _, grow := range []bool{false, true} {
		b.Run(map[bool]string{false: "partitioner", true: "grow"}[grow], func(b *testing.B) {
			cfg := Config{Eps: 0.03, Seed: 1, TopTries: 3, SlackDepth: 0.03,
				Partition: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2},
				Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3, GrowPEs: grow,
					FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1},
					MidPerChild: 64, Mid: partition.Config{Tries: 4, LPRounds: 2, FMRounds: 2}}}
			var pe []int32
			for b.Loop() {
				pe = Map(par.New(1), g, top, cfg)
			}
			m, err := graph.Evaluate(g, top, pe, cfg.Eps)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(m.J), "J")
		})
	}
}

// BenchmarkWideKWay: the wide instance (rgg 121,192 onto
// 4:8:64:8:6, one thread) with the default preset's wide effort, the
// splits into 64 groups by the partitioner's recursive bisection (Mid)
// and by deep multilevel k-way (KWay); J is reported beside the time.
func BenchmarkWideKWay(b *testing.B) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	g := graph.RandomGeometric(121192, 1)
	fm := refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25}
	for _, kw := range []bool{false, true} {
		b.Run(map[bool]string{false: "recursive", true: "kway"}[kw], func(b *testing.B) {
			cfg := Config{Eps: 0.03, TopTries: 3, SlackDepth: 0.03,
				Partition: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2, FM: fm},
				Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3, GrowPEs: true,
					FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1},
					MidPerChild: 64, Mid: partition.Config{Tries: 4, LPRounds: 2, FMRounds: 2, FM: fm}}}
			if kw {
				cfg.Wide.KWayChildren = 16
				cfg.Wide.KWay = kway.Config{C: 16, LPRounds: 2, FMRounds: -1, Bisect: partition.Config{Tries: 4, FM: fm},
					Pair: refinement.PairFMConfig{Rounds: 1, Alpha: 30}}
			}
			var pe []int32
			for b.Loop() {
				pe = Map(par.New(1), g, top, cfg)
			}
			m, err := graph.Evaluate(g, top, pe, cfg.Eps)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(m.J), "J")
		})
	}
}

// On wide machines the splits take their partition configurations
// ForIM: the default preset's clustering of stalled levels and FM bound on
// fruitless work cost J +9% on the 121k-vertex rgg onto 4:8:64:8:6
// (stop 35's merge); elsewhere they stay.
func TestWideSplitsMatchWithUnboundedFM(t *testing.T) {
	top, err := topology.Parse("4:8:64", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	pc := partition.Config{Tries: 2, Stall: 0.6, FM: refinement.FMConfig{WasteWork: 3}}
	cfg := Config{Eps: 0.03, Partition: pc, Lower: pc, Bottom: pc, Wide: WideConfig{PerPE: 4, MinK: 1024}}
	x := par.New(1)
	for _, c := range []struct {
		n    int // a grid of n x n vertices onto 2048 PEs: wide below 8192
		wide bool
	}{{64, true}, {128, false}} {
		m := newMapper(x, graph.Grid(c.n, c.n), top, cfg)
		for _, p := range []partition.Config{m.cfg.Partition, m.cfg.Lower, m.cfg.Bottom} {
			if off := p.Stall == 0 && p.FM.WasteWork == 0; off != c.wide || m.wide != c.wide {
				t.Errorf("n=%d: wide %v, Stall %v WasteWork %v", c.n, m.wide, p.Stall, p.FM.WasteWork)
			}
		}
	}
}

// GrowSockets maps the groups above the sockets by growing and swaps: the
// mapping stays feasible and the same for any worker count, differs from
// the one with the sockets' splits (the path ran), and on vertex weights
// other than 1, where a socket within its capacity might not fit its
// PEs, it is the mapping without GrowSockets.
func TestGrowSockets(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	wide := WideConfig{PerPE: 4, MinK: 4096, SecondTries: 2, GrowPEs: true, FlatTries: 2, FlatMaxN: 80,
		FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1}}
	cfg := Config{Eps: 0.03, Seed: 3, TopTries: 2, Wide: wide}
	grown := cfg
	grown.Wide.GrowSockets = true
	for _, weighted := range []bool{false, true} {
		g := graph.RandomGeometric(6144, 11)
		if weighted {
			b := graph.NewBuilder(g.N())
			for v := range g.N() {
				if v%16 == 0 {
					b.SetVertexWeight(v, 2)
				}
				for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
					if u := int(g.Adj[e]); u > v {
						b.AddEdge(v, u, g.W(e))
					}
				}
			}
			var err error
			if g, err = b.Build(); err != nil {
				t.Fatal(err)
			}
		}
		plain := Map(par.New(1), g, top, cfg)
		var ref []int32
		for _, threads := range []int{1, 2, 3} {
			pe := Map(par.New(threads), g, top, grown)
			check(t, g, top, 0.03, pe)
			if ref == nil {
				ref = pe
			} else if !slices.Equal(pe, ref) {
				t.Fatalf("weighted %v, threads=%d: another mapping than threads=1", weighted, threads)
			}
		}
		if same := slices.Equal(ref, plain); same != weighted {
			t.Fatalf("weighted %v: the same mapping as without GrowSockets: %v", weighted, same)
		}
	}
}

// GrowSockets leaves groups whose sockets differ in size to the split
// into sockets: improvePEs gives every socket the first one's capacity,
// and on sockets of 6, 2, 4, ... PEs per group of 32 (the review's
// machine) the grown mappings were infeasible.
func TestGrowSocketsIrregular(t *testing.T) {
	sizes := []int{6, 2, 4, 4, 4, 4, 4, 4}
	var sock, grp, rack []int
	s := 0
	for r := range 2 {
		for gi := range 4 {
			for _, z := range sizes {
				for range z {
					sock = append(sock, s)
					grp = append(grp, r*4+gi)
					rack = append(rack, r)
				}
				s++
			}
		}
	}
	top, err := topology.NewTree([][]int{sock, grp, rack}, []int64{1, 10, 100, 1000})
	if err != nil {
		t.Fatal(err)
	}
	wide := WideConfig{PerPE: 4, MinK: 1, SecondTries: 3, GrowPEs: true, GrowSockets: true, FlatTries: 4, FlatMaxN: 80,
		FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1}}
	for seed := range uint64(4) {
		g := graph.RandomGeometric(3*top.K(), seed+1)
		cfg := Config{Eps: 0.03, Seed: seed, TopTries: 2, Wide: wide}
		check(t, g, top, 0.03, Map(par.New(2), g, top, cfg))
	}
}

// On 4:8:16:1 the groups of 32 PEs are the children of the machine's
// first split (the root has one child): AfterSecond sees their splits
// into sockets, once, with GrowSockets on, and the mapping is the one
// without hooks (GrowSockets grew them into sockets, and AfterSecond
// saw no split).
func TestGrowSocketsKeepsSecondSplits(t *testing.T) {
	top, _ := topology.Parse("4:8:16:1", "1:10:100:1000")
	wide := WideConfig{PerPE: 4, MinK: 1, SecondTries: 2, GrowPEs: true, GrowSockets: true, FlatTries: 2, FlatMaxN: 80,
		FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1}}
	cfg := Config{Eps: 0.03, Seed: 3, TopTries: 2, Wide: wide}
	g := graph.RandomGeometric(3*top.K(), 11)
	plain := Map(par.New(1), g, top, cfg)
	want := int64(0)
	for v := range g.N() {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if top.CommonLevel(int(plain[v]), int(plain[g.Adj[e]])) == 2 {
				want += g.W(e) * top.Distances()[1]
			}
		}
	}
	want /= 2 // every edge seen from both ends
	calls, cost, level := 0, int64(0), 0
	cfg.AfterTop = func(int, []int32) bool { return true }
	cfg.AfterSecond = func(l int, c int64) bool {
		calls++ // one thread
		level, cost = l, c
		return true
	}
	pe := Map(par.New(1), g, top, cfg)
	if calls != 1 || level != 2 || cost != want {
		t.Fatalf("AfterSecond called %d times, last with level %d, cost %d; want once, 2, %d", calls, level, cost, want)
	}
	if !slices.Equal(pe, plain) {
		t.Fatal("the mapping with hooks differs from the one without")
	}
}

// BenchmarkSecondSplitTries: the split of a top's child of a wide machine
// (4:8:64:8:6, into 8 nodes) with the default preset's 3 tries, on a
// graph of the size coarseSplit leaves (an rgg of 3,000 vertices). The
// first and third tries (natural order) share one hierarchy: CPU of 150
// ops 2.23-2.49 s against 2.29-2.92 s when each built its own (6 pairs).
func BenchmarkSecondSplitTries(b *testing.B) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	g := graph.RandomGeometric(3000, 5)
	cfg := Config{Eps: 0.03, Seed: 2, TopTries: 3, SlackDepth: 0.03,
		Partition: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2,
			FM: refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25}},
		Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3}}
	x := par.New(1)
	m := newMapper(x, g, top, cfg)
	grp := top.Children(top.Root())[0]
	maxW, pc, tries, _ := m.splitConfig(g, grp)
	if tries != 3 {
		b.Fatalf("%d tries", tries)
	}
	for b.Loop() {
		m.split(x, g, grp, maxW, pc, tries)
	}
}

// split's tries on the first child of a wide machine's top (tries 0 and 2
// in natural order, sharing try 0's hierarchy where CoarsenExact reports
// it exact, try 1 in random order, on its own) give the lowest cut of the
// tries run alone (partition.Partition, Levels nil), the first on ties:
// sharing changes nothing. Sharing with the random-order try as well
// changed the splits of seeds 0, 1, 2 and 4 and passed every other test.
func TestSplitTriesAsAlone(t *testing.T) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	grp := top.Children(top.Root())[0]
	cut := refinement.Cut()
	for seed := range uint64(6) {
		g := graph.RandomGeometric(3000, 5+seed)
		cfg := Config{Eps: 0.03, Seed: seed, TopTries: 3, SlackDepth: 0.03,
			Partition: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2,
				FM: refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25}},
			Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3}}
		x := par.New(1)
		m := newMapper(x, g, top, cfg)
		maxW, pc, tries, ok := m.splitConfig(g, grp)
		if !ok || tries != 3 || g.N() >= refinement.ParallelFMMin {
			t.Fatalf("seed %d: split %v with %d tries on %d vertices: not the small graphs' tries", seed, ok, tries, g.N())
		}
		for tr, shared := range []bool{true, false, true} {
			if partition.SharedCoarsening(g, maxW, m.tryConfig(pc, grp, tr)) != shared {
				t.Fatalf("seed %d: try %d shares a hierarchy: %v, want %v", seed, tr, !shared, shared)
			}
		}
		got := m.split(x, g, grp, maxW, pc, tries)
		var want []int32
		var best int64
		for tr := range tries {
			p := partition.Partition(x, g, maxW, m.tryConfig(pc, grp, tr))
			if c := cut.CostParallel(x, g, p); want == nil || c < best {
				want, best = p, c
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: split differs from the best of its tries run alone", seed)
		}
	}
}

// TopPair refines the split of the whole machine of a wide mapping: the
// top split's cut is never above the one without it, every child stays
// within its limit, only the split of the whole machine is refined
// (another group's split is split's as it was), and Map with it is
// feasible and the same for any worker count.
func TestTopPair(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 3)
	base := Config{Eps: 0.03, Seed: 2, TopTries: 2, Partition: partition.Config{Tries: 2, LPRounds: 2, FMRounds: 1},
		Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 2, GrowPEs: true}}
	paired := base
	paired.Wide.TopPair = refinement.PairFMConfig{Rounds: 1, Alpha: 30}
	x := par.New(1)
	root := top.Root()
	m0, m1 := newMapper(x, g, top, base), newMapper(x, g, top, paired)
	lim := mustLimits(t, m0, g, root)
	p0 := m0.split(x, g, root, lim, m0.cfg.Partition, 2)
	p1 := m1.split(x, g, root, lim, m1.cfg.Partition, 2)
	cut := refinement.Cut()
	c0, c1 := cut.Cost(g, p0), cut.Cost(g, p1)
	if c1 >= c0 { // 189 -> 187 when written
		t.Errorf("top cut %d with TopPair, %d without: want lower", c1, c0)
	}
	load := make([]int64, len(lim))
	for v, c := range p1 {
		load[c] += g.VW[v]
	}
	for c, w := range load {
		if w > lim[c] {
			t.Errorf("child %d weighs %d, above its limit %d", c, w, lim[c])
		}
	}
	sub := partition.NewBlocks(g, p1, len(top.Children(root))).Extract(0)
	grp := top.Children(root)[0]
	sl, pc, tries, _ := m1.splitConfig(sub.G, grp)
	if !slices.Equal(m0.split(x, sub.G, grp, sl, pc, tries), m1.split(x, sub.G, grp, sl, pc, tries)) {
		t.Errorf("TopPair changed a split below the top")
	}
	var first []int32
	for _, threads := range []int{1, 2, 3} {
		pe := Map(par.New(threads), g, top, paired)
		check(t, g, top, 0.03, pe)
		if first == nil {
			first = pe
		} else if !slices.Equal(pe, first) {
			t.Fatalf("threads=%d: another mapping than threads=1", threads)
		}
	}
}

// The tries of a wide mapping's top split compete on the first coarse
// level and only those within pauseMargin of the least cut there are
// refined on the input graph (pauses, finishPaused): here, as on the wide
// instances of DEVELOPERS.md, the same split as finishing every try, on
// one thread and two. Graphs below refinement.ParallelFMMin do not pause.
func TestPausedTopTries(t *testing.T) {
	top, _ := topology.Parse("4:8:16:16", "1:10:100:1000")
	defer func() { pauseTopTries = true }()
	g := graph.RandomGeometric(refinement.ParallelFMMin+4000, 5)
	root := top.Root()
	for seed := range uint64(2) {
		cfg := Config{Eps: 0.03, Seed: seed, TopTries: 3, SlackDepth: 0.03,
			Partition: partition.Config{Tries: 4, LPRounds: 2, FMRounds: 2},
			Wide:      WideConfig{PerPE: 10, MinK: 4096, SecondTries: 2, GrowPEs: true}}
		for _, threads := range []int{1, 2} {
			x := par.New(threads)
			m := newMapper(x, g, top, cfg)
			if m.pauses(g, root, 3) == nil {
				t.Fatal("the top split's tries do not pause")
			}
			lim := mustLimits(t, m, g, root)
			pauseTopTries = false
			all := m.split(x, g, root, lim, m.cfg.Partition, 3)
			pauseTopTries = true
			if got := m.split(x, g, root, lim, m.cfg.Partition, 3); !slices.Equal(got, all) {
				t.Errorf("seed %d, threads %d: the paused tries split otherwise", seed, threads)
			}
		}
	}
	small := graph.RandomGeometric(6144, 3)
	cfg := Config{Eps: 0.03, TopTries: 3, Wide: WideConfig{PerPE: 4, MinK: 4096, GrowPEs: true}}
	if m := newMapper(par.New(1), small, top, cfg); m.pauses(small, root, 3) != nil {
		t.Error("a graph below ParallelFMMin pauses")
	}
}
