package distmap

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// Road-like graphs (mean degree below sparseDegree) map their coarsest
// graph once more on every rank with the first round's best algorithm
// (moreTries), and keep the better mapping, unless the default preset
// mapped it with strong's HM (roadsStrongHM: its mean degree is
// sparseDegree or more): on 2 ranks a road grid (graph.RoadGrid, mean
// degree 2.65) gets the second round under the fast preset and, under
// the default preset, exactly where roadsStrongHM says no; the same
// mapping at 1 and 2 threads, and a coarsest J no higher than the first
// round's; a 3D grid (mean degree 5.6) gets one round only, and so does
// the road grid under the strong preset. Roads run no V-cycle (vcycle).
func TestSparseCoarsestTries(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 2, "TestSparseCoarsestTries")
		if regexp.MustCompile(`(?m)^tries ok.*$`).FindString(out) == "" {
			t.Fatalf("rank 0 did not pass:\n%s", out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	firstJ := regexp.MustCompile(`(?m)^coarsest n=(\d+) m=(\d+) J by rank \[(.*)\]$`)
	moreJ := regexp.MustCompile(`(?m)^coarsest after 1 more tries of \w+: J by rank \[(.*)\]$`)
	vStep := regexp.MustCompile(`(?m)^level +\d+ n=\S+\s+v\w+\s`) // the V-cycle's steps (vlp, vjet, vfm)
	least := func(s string) int64 {
		var best int64 = -1
		for _, f := range regexp.MustCompile(`\d+`).FindAllString(s, -1) {
			x, _ := strconv.ParseInt(f, 10, 64)
			if best < 0 || x < best {
				best = x
			}
		}
		return best
	}
	for _, tc := range []struct {
		name   string
		whole  *graph.Graph
		sparse bool // the input is a road (then roadsStrongHM decides under the default preset)
		preset gpumap.Preset
	}{{"road grid, fast", graph.RoadGrid(100, 100), true, gpumap.Fast}, {"3D grid", graph.Grid(30, 30, 30), false, gpumap.Default},
		{"road grid", graph.RoadGrid(100, 100), true, gpumap.Default}, {"road grid, strong", graph.RoadGrid(60, 60), false, gpumap.Strong}} {
		g := spreadEvenly(c, size, rank, tc.whole)
		var pes [][]int32
		for _, threads := range []int{1, 2} {
			var tr bytes.Buffer
			res, err := Map(g, top, Options{Eps: 0.03, Seed: 1, Threads: threads, Coarsest: 600, Trace: &tr, Preset: tc.preset})
			if err != nil {
				rankFail("%s: %v", tc.name, err)
			}
			pes = append(pes, res.PE)
			if rank != 0 {
				continue
			}
			f, m := firstJ.FindStringSubmatch(tr.String()), moreJ.FindStringSubmatch(tr.String())
			if f == nil {
				rankFail("%s: no coarsest mapping traced:\n%s", tc.name, tr.String())
			}
			cn, _ := strconv.ParseInt(f[1], 10, 64)
			cm, _ := strconv.ParseInt(f[2], 10, 64)
			want := tc.sparse && tc.preset != gpumap.Strong && !roadsStrongHM(Options{Preset: tc.preset}, tc.sparse, cn, cm)
			if (m != nil) != want {
				rankFail("%s: the second round ran %v, want %v:\n%s", tc.name, m != nil, want, tr.String())
			}
			if tc.sparse && vStep.MatchString(tr.String()) {
				rankFail("%s: a road ran the V-cycle:\n%s", tc.name, tr.String())
			}
			if m != nil && least(m[1]) > least(f[3]) {
				rankFail("%s: the second round's best J %d is above the first's %d", tc.name, least(m[1]), least(f[3]))
			}
		}
		if !slices.Equal(pes[0], pes[1]) {
			rankFail("%s: the mapping differs at 1 and 2 threads", tc.name)
		}
	}
	if rank == 0 {
		fmt.Println("tries ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// On roads under the default preset, where the coarsest graph's mean
// degree is sparseDegree or more, the first round of the coarsest
// mapping is strong's HM on every rank with its own seed, and no second
// round; elsewhere the default preset's duel (HM on even ranks, IM on odd
// ones, ranks 2i and 2i+1 with one seed), the other presets' own choice
// and the roads' second round stay as they were.
func TestRoadsCoarsestOptions(t *testing.T) {
	for _, tc := range []struct {
		preset     gpumap.Preset
		roads      bool
		n, m       int64 // the coarsest graph
		rank, size int
		wantStrong bool
		wantPreset gpumap.Preset
		wantAlg    gpumap.Algorithm
		wantSeed   uint64
		wantMore   int
	}{
		{gpumap.Default, true, 1000, 1350, 0, 2, true, gpumap.Strong, gpumap.Multisection, 7, 0},
		{gpumap.Default, true, 1000, 1750, 1, 2, true, gpumap.Strong, gpumap.Multisection, 8, 0},
		{gpumap.Default, true, 1000, 1750, 3, 4, true, gpumap.Strong, gpumap.Multisection, 10, 0},
		{gpumap.Default, true, 1000, 1750, 0, 1, true, gpumap.Strong, gpumap.Multisection, 7, 0},
		// The coarsest graph below sparseDegree (2.66 < 2.7): the duel and a second round.
		{gpumap.Default, true, 1000, 1330, 1, 2, false, gpumap.Default, gpumap.Integrated, 7, 1},
		{gpumap.Default, false, 1000, 1750, 0, 2, false, gpumap.Default, gpumap.Multisection, 7, 0},
		{gpumap.Default, false, 1000, 1750, 1, 2, false, gpumap.Default, gpumap.Integrated, 7, 0},
		{gpumap.Default, false, 1000, 1750, 3, 4, false, gpumap.Default, gpumap.Integrated, 8, 0},
		{gpumap.Default, false, 1000, 1750, 0, 1, false, gpumap.Default, gpumap.AutoAlgorithm, 7, 0},
		{gpumap.Fast, true, 1000, 1750, 1, 2, false, gpumap.Fast, gpumap.AutoAlgorithm, 8, 1},
		{gpumap.Fast, false, 1000, 1750, 1, 2, false, gpumap.Fast, gpumap.AutoAlgorithm, 8, 0},
		{gpumap.Strong, true, 1000, 1750, 1, 2, false, gpumap.Strong, gpumap.AutoAlgorithm, 8, 0},
	} {
		opt := Options{Preset: tc.preset, Eps: 0.05, Seed: 7, Threads: 3}
		strong := roadsStrongHM(opt, tc.roads, tc.n, tc.m)
		if strong != tc.wantStrong {
			t.Errorf("%v roads=%v n=%d m=%d: strong's HM %v, want %v", tc.preset, tc.roads, tc.n, tc.m, strong, tc.wantStrong)
		}
		o := firstOptions(opt, tc.rank, tc.size, strong)
		if o.Preset != tc.wantPreset || o.Algorithm != tc.wantAlg || o.Seed != tc.wantSeed || o.Eps != 0.05 || o.Threads != 3 {
			t.Errorf("%v roads=%v n=%d m=%d rank %d of %d: %v %v seed %d eps %v threads %d, want %v %v seed %d eps 0.05 threads 3",
				tc.preset, tc.roads, tc.n, tc.m, tc.rank, tc.size, o.Preset, o.Algorithm, o.Seed, o.Eps, o.Threads, tc.wantPreset, tc.wantAlg, tc.wantSeed)
		}
		// On the CPU, as wholePlan's: the automatic backend opens a GPU
		// for a coarsest graph of gpumap.GPUMinVertices or more (NE at
		// P=2, seeds 2 and 3: 126,732), on every rank of a node.
		if o.Backend != gpumap.CPU {
			t.Errorf("%v rank %d of %d: backend %v, want cpu", tc.preset, tc.rank, tc.size, o.Backend)
		}
		if got := coarsestOptions(opt); got.Backend != gpumap.CPU || got.Preset != tc.preset || got.Eps != 0.05 || got.Threads != 3 {
			t.Errorf("%v: the second round's options %v %v eps %v threads %d, want cpu %v eps 0.05 threads 3", tc.preset, got.Backend, got.Preset, got.Eps, got.Threads, tc.preset)
		}
		if got := moreTries(opt, tc.roads, strong); got != tc.wantMore {
			t.Errorf("%v roads=%v n=%d m=%d: %d more tries, want %d", tc.preset, tc.roads, tc.n, tc.m, got, tc.wantMore)
		}
	}
}

// Where the default preset's duel maps the coarsest graph and gpumap.Map
// would duel HM and IM on it (duelFirst), the ranks run them as Map's
// duel (runDealt): HM takes IM's thread once IM is done and stops where
// Map stops it. On 2 ranks a 3D grid's coarsest graph duels: the duel's
// options are firstOptions', every rank keeps the least J of the first
// round (feasible), and the mapping is the same twice and at 1 and 2
// threads a rank. Before, HM ran alone to its end while IM's rank spun
// (lpl1 at P=2: HM 1.22 s, IM 0.35 s).
func TestCoarsestDuel(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestCoarsestDuel", "duel ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	firstJ := regexp.MustCompile(`(?m)^coarsest n=\d+ m=\d+ J by rank \[(\d+) (\d+)\]$`)
	g := spreadEvenly(c, size, rank, graph.Grid(30, 30, 30))
	var pes [][]int32
	for _, threads := range []int{1, 2, 1} {
		var tr bytes.Buffer
		before := coarsestDuels.Load()
		res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: threads, Coarsest: 3000, Trace: &tr})
		if err != nil {
			rankFail("%v", err)
		}
		if coarsestDuels.Load() != before+1 {
			rankFail("threads %d: the coarsest graph did not duel:\n%s", threads, tr.String())
		}
		if !res.Metrics.Feasible {
			rankFail("threads %d: infeasible mapping", threads)
		}
		pes = append(pes, res.PE)
		if rank == 0 {
			f := firstJ.FindStringSubmatch(tr.String())
			if f == nil {
				rankFail("threads %d: no coarsest mapping traced:\n%s", threads, tr.String())
			}
			if f[2] == fmt.Sprint(int64(math.MaxInt64)) || f[1] == fmt.Sprint(int64(math.MaxInt64-1)) {
				rankFail("threads %d: IM's rank has no feasible mapping, or HM's an infeasible one: %s", threads, f[0])
			}
			// traceSpread: the input's entries (2 x 3 x 30 x 30 x 29), some
			// across the two ranks' halves.
			s := regexp.MustCompile(`(?m)^level +0 vtxdist \[0 \d+ 27000\], (\d+) of 156600 adjacency entries \(\d+\.\d%\) across the ranks$`).FindStringSubmatch(tr.String())
			if s == nil || s[1] == "0" {
				rankFail("threads %d: no spread of the input traced:\n%s", threads, tr.String())
			}
		}
	}
	if !slices.Equal(pes[0], pes[1]) || !slices.Equal(pes[0], pes[2]) {
		rankFail("the mapping differs between runs or thread counts")
	}
	if rank == 0 {
		fmt.Println("duel ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// The ranks duel the coarsest graph only where every rank's duelFirst
// says so: with rank 1's answer made false, both ranks map with
// firstOptions alone (no duel counted on either) and agree on one
// feasible mapping. Before, rank 0 entered the duel's collectives
// (runDealt) while rank 1 mapped alone and waited in agree's: a hang.
func TestCoarsestDuelAgreed(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestCoarsestDuelAgreed", "agreed ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	if rank == 1 {
		duelFirstAt = func(*graph.Graph, *topology.Topology, Options, int, int, bool) ([]gpumap.Options, bool) {
			return nil, false
		}
	}
	whole := graph.Grid(30, 30, 30)
	g := spreadEvenly(c, size, rank, whole)
	before := coarsestDuels.Load()
	res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: 1, Coarsest: 3000})
	if err != nil {
		rankFail("%v", err)
	}
	if coarsestDuels.Load() != before {
		rankFail("rank %d duelled the coarsest graph where rank 1 would not", rank)
	}
	all, _, err := mpi.Allgatherv(c, res.PE, size)
	if err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		m, err := graph.Evaluate(whole, top, all, 0.03)
		if err != nil || !m.Feasible || m.J != res.Metrics.J {
			rankFail("the mapping evaluates to %+v (%v), the result says J %d", m, err, res.Metrics.J)
		}
		fmt.Println("agreed ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// duelFirst deals firstOptions' HM and IM (seed + rank/2) where gpumap.Map
// duels them on the coarsest graph, and nothing on one rank, under
// another preset or where the roads' coarsest graph maps with strong's HM.
func TestDuelFirstOptions(t *testing.T) {
	top, _ := topology.Parse("4:4:2", "1:10:100")
	cg := graph.Grid(15, 15, 14)
	opt := Options{Preset: gpumap.Default, Eps: 0.03, Seed: 5, Threads: 2}
	for _, size := range []int{2, 3, 4} {
		for rank := range size {
			mine, ok := duelFirst(cg, top, opt, size, rank, false)
			if !ok || len(mine) != 1 || mine[0] != firstOptions(opt, rank, size, false) {
				t.Errorf("rank %d of %d: %v %v, want firstOptions' %v", rank, size, mine, ok, firstOptions(opt, rank, size, false))
			}
		}
	}
	fast := opt
	fast.Preset = gpumap.Fast
	for _, tc := range []struct {
		name     string
		opt      Options
		size     int
		strongHM bool
	}{{"one rank", opt, 1, false}, {"fast", fast, 2, false}, {"strong's HM", opt, 2, true}} {
		if _, ok := duelFirst(cg, top, tc.opt, tc.size, 0, tc.strongHM); ok {
			t.Errorf("%s: duelled", tc.name)
		}
	}
}
