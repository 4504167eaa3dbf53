package distmap

import (
	"fmt"
	"math"
	"regexp"
	"runtime"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// A graph that is not coarsened is mapped as the one-process mapper maps
// it, its pipelines dealt out over the ranks: at P = 1, 2 and 3 every
// rank's PEs are those of the best of the pipelines that dealt gives the
// ranks (computed here one by one with gpumap.Map), and where the ranks
// run each of default's pipelines once (P = 1; P = 2 on a graph mapped
// with HM and IM) the mapping is gpumap.Map's, byte for byte.
func TestWhole(t *testing.T) {
	if !mpitest.Child() {
		runRanks(t, "TestWhole", 1, 2, 3)
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:8", "1:10")
	// A grid and a dense random graph (36,000 edges of degree 60 onto 32
	// PEs): both below 2^19 edges, so default maps each with both
	// algorithms.
	for _, w := range []*graph.Graph{graph.Grid(24, 24), graph.Random(1200, 36000, 1, 1, 5)} {
		g := spreadEvenly(c, size, rank, w)
		opt := Options{Eps: 0.03, Seed: 5, Threads: 1, Preset: gpumap.Default}
		res, err := Map(g, top, opt)
		if err != nil {
			rankFail("%v", err)
		}
		// Rank 0 checks the whole mapping against the best of every
		// rank's pipelines, mapped one by one.
		all, _, err := mpi.Allgatherv(c, res.PE, size)
		if err != nil {
			rankFail("%v", err)
		}
		if rank > 0 {
			continue
		}
		o := gpumap.DefaultOptions()
		o.Eps, o.Seed, o.Threads, o.Backend = opt.Eps, opt.Seed, 1, gpumap.CPU
		cands, _ := gpumap.Split(w, top, o)
		want, _ := wholeOneByOne(w, top, o, size, opt.TakeCPUs)
		if !slices.Equal(all, want.PE) || res.Metrics.J != want.Metrics.J || res.Levels != 0 {
			rankFail("n=%d P=%d: J %d (%d levels), want the best pipeline's J %d", w.N(), size, res.Metrics.J, res.Levels, want.Metrics.J)
		}
		if size == 1 || size == len(cands) {
			one, err := gpumap.Map(w, top, o)
			if err != nil {
				rankFail("%v", err)
			}
			if !slices.Equal(all, one.PE) {
				rankFail("n=%d P=%d: J %d, not gpumap.Map's mapping (J %d)", w.N(), size, res.Metrics.J, one.Metrics.J)
			}
		}
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// wholeOneByOne is the mapping that mapWhole gives size ranks for w (the
// best of the pipelines that dealt gives them, each mapped here by
// gpumap.Map, and where Split reports a duel, each HM by gpumap.MapDuel
// against its IM's mapping), and how many HM runs the duels stopped;
// take: Options.TakeCPUs (wholePlan's lend).
func wholeOneByOne(w *graph.Graph, top *topology.Topology, o gpumap.Options, size int, take bool) (*gpumap.Result, int) {
	cands, duel := gpumap.Split(w, top, o)
	lend := len(cands) == 1 && take
	var want *gpumap.Result
	stopped := 0
	res := make([]*gpumap.Result, size)
	for r := range size {
		mine := []gpumap.Options{o}
		if size > 1 {
			mine = dealt(cands, size, r, lend)
		}
		if size > 1 && duel && r%2 == 0 {
			continue // HM: below, once its IM has mapped
		}
		for _, x := range mine {
			m, err := gpumap.Map(w, top, x)
			if err != nil {
				rankFail("%v", err)
			}
			res[r] = m
		}
	}
	for r := range size {
		if size > 1 && duel && r%2 == 0 {
			im := r + 1
			if im == size {
				im = r - 1
			}
			m, err := gpumap.MapDuel(w, top, dealt(cands, size, r, lend)[0], gpumap.Duel{IM: sent(res[im].PE)})
			if err != nil {
				rankFail("%v", err)
			}
			if m == nil {
				stopped++
			}
			res[r] = m
		}
	}
	for _, m := range res {
		if m != nil && (want == nil || m.Metrics.Feasible && !want.Metrics.Feasible || m.Metrics.Feasible == want.Metrics.Feasible && m.Metrics.J < want.Metrics.J) {
			want = m
		}
	}
	return want, stopped
}

// sent is a channel on which IM's mapping pe has come (gpumap.Duel).
func sent(pe []int32) <-chan []int32 {
	c := make(chan []int32, 1)
	c <- pe
	return c
}

// Where Map duels HM and IM (R-MAT 2^11 onto 4:8, where Map stops HM
// after its top split), the ranks duel too: at P=2 HM's rank stops its
// HM, and the mapping is Map's byte for byte; at P=3 the third rank's HM
// duels the second rank's IM, and the mapping is wholeOneByOne's; a graph
// that differs between ranks is an error on every rank. Before,
// HM ran to its end on its rank (R-MAT 2^16 at P=2: 1.51x the one-process
// wall).
func TestWholeDuel(t *testing.T) {
	if !mpitest.Child() {
		runRanks(t, "TestWholeDuel", 2, 3)
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:8", "1:10")
	w := graph.RMAT(11, 8, 1)
	opt := Options{Eps: 0.03, Seed: 0, Threads: 1, Preset: gpumap.Default, TakeCPUs: true}
	own, _ := threadMask()
	got, m, err := MapWhole(c, w, top, opt)
	if err != nil {
		rankFail("%v", err)
	}
	// Where the launcher bound the ranks to CPUs of their own (mpirun
	// binds each of 2 ranks to a core), HM's rank took IM's CPUs for its
	// extra thread once IM was done, and has its own binding back.
	bound := boundApart(c, own, size) && size == 2
	after, _ := threadMask()
	if rank == 0 && (bound && hmWidened.Load() != 1 || after != own) {
		rankFail("P=%d: HM's rank took IM's CPUs %d times (bound to other CPUs than IM: %v), mask %x after, %x before",
			size, hmWidened.Load(), bound, after[0], own[0])
	}
	stopped := []int64{hmStopped.Load()}
	if err := mpi.Allreduce(c, stopped, mpi.Sum); err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		o := gpumap.DefaultOptions()
		o.Eps, o.Seed, o.Threads, o.Backend = opt.Eps, opt.Seed, 1, gpumap.CPU
		if _, duel := gpumap.Split(w, top, o); !duel {
			rankFail("R-MAT 2^11 onto 4:8: no duel")
		}
		want, wantStopped := wholeOneByOne(w, top, o, size, opt.TakeCPUs)
		if !slices.Equal(got, want.PE) || m.J != want.Metrics.J || stopped[0] != int64(wantStopped) || stopped[0] < 1 {
			rankFail("P=%d: J %d with %d HM stopped, want J %d with %d stopped", size, m.J, stopped[0], want.Metrics.J, wantStopped)
		}
		if size == 2 {
			one, err := gpumap.Map(w, top, o)
			if err != nil {
				rankFail("%v", err)
			}
			if !slices.Equal(got, one.PE) {
				rankFail("P=2: J %d, not gpumap.Map's mapping (J %d)", m.J, one.Metrics.J)
			}
		}
	}
	// A library caller (TakeCPUs unset) keeps its threads' binding: the
	// same duel takes no CPUs.
	lib := opt
	lib.TakeCPUs = false
	before := hmWidened.Load()
	if _, _, err := MapWhole(c, w, top, lib); err != nil {
		rankFail("%v", err)
	}
	if after, _ := threadMask(); hmWidened.Load() != before || after != own {
		rankFail("without TakeCPUs HM's rank took IM's CPUs (%d times, mask %x after, %x before)", hmWidened.Load()-before, after[0], own[0])
	}
	// A graph that differs between ranks is one clear error on every
	// rank, not a duel that some ranks wait for.
	other := w
	if rank == 0 {
		other = graph.RMAT(11, 8, 2)
	}
	if _, _, err := MapWhole(c, other, top, opt); KindOf(err) != KindInconsistent {
		rankFail("a graph that differs between ranks: %v", err)
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// dealt gives every pipeline to some rank, each to one rank where there
// are fewer ranks than pipelines, and further seeds of them in turn to
// the ranks beyond; a lone pipeline's rank 1 runs none (it lends its
// CPUs to rank 0).
func TestDealt(t *testing.T) {
	a, b, c := gpumap.DefaultOptions(), gpumap.DefaultOptions(), gpumap.DefaultOptions()
	a.Seed, b.Algorithm, c.Algorithm = 9, gpumap.Multisection, gpumap.Integrated
	seeded := func(o gpumap.Options, s uint64) gpumap.Options { o.Seed = s; return o }
	for _, x := range []struct {
		cands []gpumap.Options
		size  int
		lend  bool
		want  [][]gpumap.Options
	}{
		// Lent: rank 1 maps nothing, the others try seeds 9, 10, 11 (none skipped).
		{[]gpumap.Options{a}, 4, true, [][]gpumap.Options{{a}, nil, {seeded(a, 10)}, {seeded(a, 11)}}},
		{[]gpumap.Options{a}, 3, true, [][]gpumap.Options{{a}, nil, {seeded(a, 10)}}},
		{[]gpumap.Options{a}, 2, true, [][]gpumap.Options{{a}, nil}},
		// Not lent (no TakeCPUs): rank r tries seed+r.
		{[]gpumap.Options{a}, 2, false, [][]gpumap.Options{{a}, {seeded(a, 10)}}},
		{[]gpumap.Options{a}, 3, false, [][]gpumap.Options{{a}, {seeded(a, 10)}, {seeded(a, 11)}}},
		{[]gpumap.Options{b, c}, 2, false, [][]gpumap.Options{{b}, {c}}},
		{[]gpumap.Options{b, c}, 5, false, [][]gpumap.Options{{b}, {c}, {seeded(b, 1)}, {seeded(c, 1)}, {seeded(b, 2)}}},
		{[]gpumap.Options{a, b, c}, 2, false, [][]gpumap.Options{{a, c}, {b}}},
	} {
		for r := range x.size {
			if got := dealt(x.cands, x.size, r, x.lend); !slices.Equal(got, x.want[r]) {
				t.Errorf("%d pipelines, lend %v, rank %d of %d: %+v, want %+v", len(x.cands), x.lend, r, x.size, got, x.want[r])
			}
		}
	}
}

// degreeCV, read as Map reads it (skewed at features.SkewedCV), agrees
// with the one-process features on graphs spread over 2 ranks: a grid and
// a random graph are not skewed, R-MAT and preferential attachment graphs
// and a star are.
func TestSkewedDegrees(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 2, "TestSkewedDegrees")
		if ok := regexp.MustCompile(`(?m)^rank \d: ok$`).FindAllString(out, -1); len(ok) != 2 {
			t.Fatalf("%d of 2 ranks passed:\n%s", len(ok), out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	star := graph.NewBuilder(300)
	for v := 1; v < 300; v++ {
		star.AddEdge(0, v, 1)
	}
	sg, _ := star.Build()
	for i, w := range []*graph.Graph{graph.Grid(20, 30), graph.Random(500, 3000, 1, 1, 2), graph.RMAT(10, 8, 3), graph.PowerLaw(600, 3, 4), sg} {
		n := int64(w.N())
		vtxdist := []int64{0, n / 3, n}
		g, err := rankSlice(c, w, vtxdist[:size+1], rank, false, w.W)
		if err != nil {
			rankFail("%v", err)
		}
		dcv, _, err := degreeCV(g)
		if err != nil {
			rankFail("%v", err)
		}
		got := dcv >= features.SkewedCV
		cv := features.DegreeCV(w)
		if want := cv >= features.SkewedCV; got != want || want != (i >= 2) {
			rankFail("graph %d: skewed %v, degree CV %.3f", i, got, cv)
		}
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// Label propagation with a share per rank (skewed degrees) keeps every
// cluster within its limit, summed over the ranks: on a star and an R-MAT
// graph spread over 3 ranks, whose hubs' clusters every rank joins at
// once (without shares, R-MAT 2^18 at P=2 made clusters of 37 under a
// limit of 19).
func TestClusterShare(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestClusterShare")
		if ok := regexp.MustCompile(`(?m)^rank \d: ok$`).FindAllString(out, -1); len(ok) != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", len(ok), out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	star := graph.NewBuilder(400)
	for v := 1; v < 400; v++ {
		star.AddEdge(0, v, 1)
		star.AddEdge(v, 1+v%399, 1)
	}
	sg, _ := star.Build()
	for i, w := range []*graph.Graph{sg, graph.RMAT(11, 8, 3)} {
		g := spreadEvenly(c, size, rank, w)
		for _, limit := range []int64{3, 8, 20} {
			cl, err := newClustering(g, limit, 1, 0, size, 0)
			if err != nil {
				rankFail("%v", err)
			}
			if err := cl.run(clusterRounds); err != nil {
				rankFail("%v", err)
			}
			// Every rank's labels, summed by label.
			labels, _, err := mpi.Allgatherv(c, cl.label[:g.N()], size)
			if err != nil {
				rankFail("%v", err)
			}
			sum := map[int64]int64{}
			for v, l := range labels {
				sum[l] += w.VW[v]
			}
			for l, x := range sum {
				if x > limit {
					rankFail("graph %d, limit %d: cluster %d weighs %d", i, limit, l, x)
				}
			}
		}
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// spreadEvenly gives this rank its even share of w's vertices (n*r/size
// to n*(r+1)/size) with all their edges, as New takes them.
func spreadEvenly(c mpi.Comm, size, rank int, w *graph.Graph) *Graph {
	g, err := rankSlice(c, w, evenVtxdist(int64(w.N()), size), rank, false, w.W)
	if err != nil {
		rankFail("%v", err)
	}
	return g
}

// evenVtxdist gives rank r of size the vertices n*r/size to
// n*(r+1)/size-1.
func evenVtxdist(n int64, size int) []int64 {
	vtxdist := make([]int64, size+1)
	for r := range size {
		vtxdist[r+1] = n * int64(r+1) / int64(size)
	}
	return vtxdist
}

// Where Split names one pipeline (here fast's) and TakeCPUs is set,
// rank 1 maps nothing and lends its CPUs to rank 0, whose pipeline runs
// on its own threads and rank 1's (2x Threads, at most
// gpumap.MaxThreads: -t 4096 maps as at P=1), with GOMAXPROCS back
// after: at P=2 the mapping is gpumap.Map's byte for byte; where the
// launcher bound the ranks to CPUs of their own, rank 0 widened its
// binding to rank 1's and has its own back; at P=3 the third rank maps
// seed+1 (seeds 8 and 9 tried: 9's J, 1956, beats 8's, 1978, and 10's,
// 1975, which rank 2 tried before), and the best of the two wins
// (wholeOneByOne). Without TakeCPUs (a library caller) nothing is
// widened or lent and rank 1 maps seed+1: at P=2 seed 9's mapping wins.
func TestWholeLend(t *testing.T) {
	if !mpitest.Child() {
		runRanks(t, "TestWholeLend", 2, 3)
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:8", "1:10")
	w := graph.Grid(40, 40)
	opt := Options{Eps: 0.03, Seed: 8, Threads: 1, Preset: gpumap.Fast, TakeCPUs: true}
	o := gpumap.DefaultOptions()
	o.Preset, o.Eps, o.Seed, o.Threads, o.Backend = opt.Preset, opt.Eps, opt.Seed, 1, gpumap.CPU
	// seedMap is gpumap.Map's mapping with seed s.
	seedMap := func(s uint64) *gpumap.Result {
		x := o
		x.Seed = s
		r, err := gpumap.Map(w, top, x)
		if err != nil {
			rankFail("%v", err)
		}
		return r
	}
	if rank == 0 {
		if cands, _ := gpumap.Split(w, top, o); len(cands) != 1 {
			rankFail("fast on a grid onto 4:8: %d pipelines, want 1", len(cands))
		}
		if j8, j9, j10 := seedMap(8).Metrics.J, seedMap(9).Metrics.J, seedMap(10).Metrics.J; j9 >= j8 || j9 >= j10 {
			rankFail("grid 40x40: seed 9's J %d does not beat 8's %d and 10's %d", j9, j8, j10)
		}
	}
	own, _ := threadMask()
	lentThreads.Store(0)
	p0 := runtime.GOMAXPROCS(0)
	got, m, err := MapWhole(c, w, top, opt)
	if err != nil {
		rankFail("%v", err)
	}
	if p := runtime.GOMAXPROCS(0); p != p0 {
		rankFail("P=%d: GOMAXPROCS %d after MapWhole, %d before", size, p, p0)
	}
	// The ranks of mpitest share this node: rank 0 runs on 2 threads.
	if th := lentThreads.Load(); rank == 0 && th != 2*int64(opt.Threads) {
		rankFail("P=%d: the lent pipeline ran on %d threads, want %d", size, th, 2*opt.Threads)
	}
	bound := boundApart(c, own, size)
	after, _ := threadMask()
	if rank == 0 && (bound != (lentWidened.Load() == 1) || after != own) {
		rankFail("P=%d: rank 0 took rank 1's CPUs %d times (bound to other CPUs than rank 1: %v), mask %x after, %x before",
			size, lentWidened.Load(), bound, after[0], own[0])
	}
	if rank == 0 {
		want, _ := wholeOneByOne(w, top, o, size, opt.TakeCPUs)
		seeded := map[int]uint64{2: 8, 3: 9}[size] // the seed that wins
		if one := seedMap(seeded); !slices.Equal(got, want.PE) || m.J != want.Metrics.J || !slices.Equal(got, one.PE) {
			rankFail("P=%d: J %d, want J %d (seed %d's mapping: %v)", size, m.J, want.Metrics.J, seeded, slices.Equal(got, one.PE))
		}
	}
	// -t gpumap.MaxThreads maps as at P=1: rank 0 runs MaxThreads.
	most := opt
	most.Threads = gpumap.MaxThreads
	lentThreads.Store(0)
	if most, _, err := MapWhole(c, w, top, most); err != nil || !slices.Equal(most, got) {
		rankFail("P=%d, -t %d: %v (the same mapping as -t 1: %v)", size, gpumap.MaxThreads, err, slices.Equal(most, got))
	}
	if th := lentThreads.Load(); rank == 0 && th != gpumap.MaxThreads {
		rankFail("P=%d, -t %d: the lent pipeline ran on %d threads", size, gpumap.MaxThreads, th)
	}
	lib := opt
	lib.TakeCPUs = false
	before := lentWidened.Load()
	lentThreads.Store(0)
	libGot, libM, err := MapWhole(c, w, top, lib)
	if err != nil {
		rankFail("%v", err)
	}
	if after, _ := threadMask(); lentWidened.Load() != before || after != own || lentThreads.Load() != 0 {
		rankFail("without TakeCPUs rank 0 took rank 1's CPUs (%d times, mask %x after, %x before) or threads (%d)",
			lentWidened.Load()-before, after[0], own[0], lentThreads.Load())
	}
	if rank == 0 {
		// Seeds 8, 9 (and 10 at P=3) tried: 9's wins.
		want, _ := wholeOneByOne(w, top, o, size, lib.TakeCPUs)
		if !slices.Equal(libGot, want.PE) || libM.J != want.Metrics.J || !slices.Equal(libGot, seedMap(9).PE) {
			rankFail("P=%d without TakeCPUs: J %d, want J %d (seed 9's)", size, libM.J, want.Metrics.J)
		}
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// boundApart reports whether the launcher bound ranks 0 and 1 to
// different CPUs: own is this rank's binding before the call under test
// (collective: every rank gathers every binding).
func boundApart(c mpi.Comm, own cpuMask, size int) bool {
	mine := make([]int64, len(own))
	for i, w := range own {
		mine[i] = int64(w)
	}
	masks, err := mpi.Allgather(c, mine, size)
	if err != nil {
		rankFail("%v", err)
	}
	return !slices.Equal(masks[:len(own)], masks[len(own):2*len(own)])
}

// A hub graph above 2^17 vertices (a ring of 140,000 leaves and 20 hubs
// of degree 2,000: degree CV 9, at least gpumap.HubCV) is mapped whole
// under the default preset, as gpumap.Map maps it: at P=1 byte for byte, at P=2 the best of the
// pipelines dealt to the ranks (wholeOneByOne). Before, the distributed
// levels mapped it (R-MAT 2^18 onto 4:8:6 at P=2: J 1.43x the
// one-process J).
func TestHubsWhole(t *testing.T) {
	if !mpitest.Child() {
		runRanks(t, "TestHubsWhole", 1, 2)
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	const leaves, hubs, deg = 140000, 20, 2000
	b := graph.NewBuilder(leaves + hubs)
	for v := range leaves {
		b.AddEdge(v, (v+1)%leaves, 1)
	}
	for h := range hubs {
		for i := range deg {
			b.AddEdge(leaves+h, (h*7919+i*(leaves/deg)+i*i)%leaves, 1)
		}
	}
	w, err := b.Build()
	if err != nil {
		rankFail("%v", err)
	}
	if cv := features.DegreeCV(w); w.N() <= 1<<17 || cv < gpumap.HubCV {
		rankFail("%d vertices, degree CV %.2f: the test tests nothing", w.N(), cv)
	}
	top, _ := topology.Parse("4:2", "1:10")
	g := spreadEvenly(c, size, rank, w)
	opt := Options{Eps: 0.03, Seed: 3, Threads: 1, Preset: gpumap.Default}
	res, err := Map(g, top, opt)
	if err != nil {
		rankFail("%v", err)
	}
	all, _, err := mpi.Allgatherv(c, res.PE, size)
	if err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		o := gpumap.DefaultOptions()
		o.Preset, o.Eps, o.Seed, o.Threads, o.Backend = opt.Preset, opt.Eps, opt.Seed, 1, gpumap.CPU
		want, _ := wholeOneByOne(w, top, o, size, opt.TakeCPUs)
		if res.Levels != 0 || res.CoarseN != int64(w.N()) || !slices.Equal(all, want.PE) {
			rankFail("P=%d: J %d, %d levels, coarsest n=%d; want mapped whole, J %d", size, res.Metrics.J, res.Levels, res.CoarseN, want.Metrics.J)
		}
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// hubWhole maps whole only hub graphs within both bounds under the
// default preset, and none where Options.Coarsest is set.
func TestHubWholeBounds(t *testing.T) {
	def := Options{Preset: gpumap.Default}
	checkBounds(t, "hubWhole", hubWhole, gpumap.HubCV, []wholeBound{
		// R-MAT 2^21 (gpumap gen -t rmat -n 2097152 -s 5): its 1,048,752
		// vertices passed the old 2^20 and sent it top-down (P=4 did
		// not finish in 37 minutes).
		{1048752, 2 * 16208882, 5, def, true},
	})
}

// wholeBound is a case of a rule that maps a graph whole: n vertices,
// entries adjacency entries, its degree CV, the options, and whether
// the rule says whole.
type wholeBound struct {
	n, entries int64
	cv         float64
	opt        Options
	want       bool
}

// checkBounds checks rule (hubWhole, skewedWhole), whose least CV is
// minCV, on cases and on the bounds they share: hubWhole's vertices and
// entries, the default preset, Options.Coarsest not set.
func checkBounds(t *testing.T, name string, rule func(n, entries int64, cv float64, opt Options) bool, minCV float64, cases []wholeBound) {
	t.Helper()
	def := Options{Preset: gpumap.Default}
	cv := minCV + 2
	for _, x := range append([]wholeBound{
		{1 << 18, 1 << 22, minCV, def, true},
		{hubWholeVertices, hubWholeEntries, cv, def, true},
		{1 << 18, 1 << 22, minCV - 0.01, def, false},
		{hubWholeVertices + 1, 1 << 22, cv, def, false},
		{1 << 18, hubWholeEntries + 1, cv, def, false},
		{1 << 18, 1 << 22, cv, Options{Preset: gpumap.Default, Coarsest: 500}, false},
		{1 << 18, 1 << 22, cv, Options{Preset: gpumap.Fast}, false},
		{1 << 18, 1 << 22, cv, Options{Preset: gpumap.Strong}, false},
	}, cases...) {
		if got := rule(x.n, x.entries, x.cv, x.opt); got != x.want {
			t.Errorf("%s(%d, %d, %.2f, %v Coarsest %d) = %v, want %v", name, x.n, x.entries, x.cv, x.opt.Preset, x.opt.Coarsest, got, x.want)
		}
	}
}

// skewedWhole maps whole only graphs whose vertices with an edge have a
// degree CV of features.SkewedCV or more, within hubWhole's bounds,
// under the default preset and without Options.Coarsest (the same table
// as hubWhole's); isolated vertices do not count (degrees.cv).
func TestSkewedWholeBounds(t *testing.T) {
	def := Options{Preset: gpumap.Default}
	checkBounds(t, "skewedWhole", skewedWhole, features.SkewedCV, []wholeBound{
		{164951, 762518, 2.09, def, true},   // lpl1
		{279500, 924256, 1.13, def, true},   // pds-40
		{147605, 1369254, 0.81, def, false}, // ibm14
	})
	// A cycle of 1,000 vertices with 2,000 isolated ones: CV 0 over the
	// linked vertices, sqrt(2) over all.
	d := degrees{n: 3000, entries: 2000, squares: 4000, isolated: 2000}
	if got := d.cv(true); got != 0 {
		t.Errorf("linked CV %v, want 0", got)
	}
	if got := d.cv(false); math.Abs(got-math.Sqrt2) > 1e-12 {
		t.Errorf("CV %v, want %v", got, math.Sqrt2)
	}
	if got := (degrees{n: 5}).cv(false); got != 0 {
		t.Errorf("CV without edges %v, want 0", got)
	}
}

// skewedWhole is asked with the degree CV of the vertices with an edge:
// a 3D grid of 64,000 vertices with 100,000 isolated ones after it
// (164,000 > 2^17: not mapped whole for its size) has CV 1.25 over all
// vertices but 0.1 over the linked ones, and keeps the levels.
func TestIsolatedNotSkewed(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestIsolatedNotSkewed", "isolated ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:8:6", "1:10:100")
	grid := graph.Grid(40, 40, 40)
	const isolated = 100000
	xadj := slices.Clone(grid.XAdj)
	for range isolated {
		xadj = append(xadj, xadj[len(xadj)-1])
	}
	vw := append(slices.Clone(grid.VW), make([]int64, isolated)...)
	for i := grid.N(); i < len(vw); i++ {
		vw[i] = 1
	}
	whole, err := graph.FromCSR(xadj, slices.Clone(grid.Adj), vw, nil)
	if err != nil {
		rankFail("%v", err)
	}
	g := spreadEvenly(c, size, rank, whole)
	res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: 1})
	if err != nil {
		rankFail("%v", err)
	}
	if res.Levels == 0 {
		rankFail("mapped whole (%d levels, coarsest %d of %d vertices): the isolated vertices made it skewed", res.Levels, res.CoarseN, whole.N())
	}
	if rank == 0 {
		fmt.Println("isolated ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
