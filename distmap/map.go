package distmap

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync/atomic"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// Options configures Map. Start from DefaultOptions: the zero value means
// eps 0 (exact balance) and the fast preset (gpumap.Preset's zero, as in
// gpumap.Options), not what gpumap-mpi and gpumap_map_dist use.
type Options struct {
	Eps     float64       // allowed imbalance: Lmax = ceil((1+Eps) c(V)/k)
	Seed    uint64        // the same seed, graph and rank count give the same mapping
	Threads int           // threads per process for the coarsest graph's mapping (0: all cores)
	Preset  gpumap.Preset // the preset of the coarsest graph's mapping
	// Coarsest is the size (vertices) at which coarsening stops; 0 means
	// max(8000, 20k). Small values let tests contract small graphs.
	Coarsest int64
	// Trace, for developers, receives from rank 0 the J of every level
	// after its coarsest mapping or projection and each refinement step
	// (Jet, FM). Each line costs a collective: every rank sets it or none.
	Trace io.Writer
	// Phases, for developers, times the phases of Map (NewPhases): every
	// rank sets it or none.
	Phases *Phases
	// TakeCPUs lets the HM of a duel of a graph mapped whole widen the
	// CPU affinity of every thread of its process to its IM rank's CPUs
	// once IM is done, and set the calling thread's binding back after
	// (mapWhole). Where such a graph is mapped with one pipeline, it
	// also makes rank 1 lend rank 0 its threads, and its CPUs likewise,
	// where it runs on rank 0's node (on another it idles: the mapping
	// does not depend on the ranks' placement), instead of mapping
	// seed+1. Only a process whose threads are all gpumap's may set it
	// (the gpumap-mpi command): a library caller's own threads keep the
	// binding they chose. Every rank sets it or none (sameOptions).
	TakeCPUs bool
}

// Result is a distributed mapping.
type Result struct {
	PE      []int32       // PE of every local vertex
	Metrics graph.Metrics // of the whole mapping, the same on every rank
	Levels  int           // contractions before the coarsest graph
	CoarseN int64         // vertices of the coarsest graph
	// Notes says how the mapping was made where it took a path out of
	// the ordinary (a top-down mapping and its fallbacks), the same on
	// every rank.
	Notes []string
}

// Tuning, fixed for now (the same on every rank).
const (
	clusterRounds = 4
	// Two rounds of label propagation on J per level: at P=2 six gave
	// the same J (grid 2^18 -0.02%, rgg 2^18 +0.02%); none cost 2-4%.
	refineRounds = 2
	maxLevels    = 40
	// A level's matching that keeps more than matchKeep/10 of the
	// vertices is clustered by label propagation instead; a clustering
	// that keeps more than a quarter of them (in one round, on the
	// input) chooses local matchings for the whole hierarchy.
	matchKeep = 8
)

// sparseDegree: a graph of mean degree (2m/n) below it (road networks,
// power grids; the one-process default preset's attachDegree, fit on
// the corpus's fit half) maps its coarsest graph with more effort on
// every rank (firstOptions, moreTries). On roads the levels refine the
// coarsest mapping by only 7-10% (FLA at P=2; wing x3 27%), so the
// coarsest mapping decides J.
const sparseDegree = 2.7

// isRoads reports whether a graph of n vertices and entries adjacency
// entries has a mean degree below sparseDegree.
func isRoads(n, entries int64) bool { return float64(entries) < sparseDegree*float64(n) }

// fmConfig is the distributed FM's: one round with the one-process
// default preset's final FM search settings (Alpha 10, seeds filtered),
// and its partitioner's bound on fruitless work. Eight rounds of Alpha
// 30, twice a level, took half of a P=2 run on a 3D grid; with the
// larger coarsest graph of meshes (coarsestSize) one round costs J
// +1.5% there, rgg 2^18 +1% (J 0.97x the one-process mapper's).
var fmConfig = refinement.FMConfig{Rounds: 1, Alpha: 10, SkipExplored: true, SeedFilter: true, Waste: 0.25}

// coarsestSize is the number of vertices below which the graph is small
// enough to map whole on every process: max(8000, 20k), and under local
// matchings at least n/16 (up to 2^17): the one-process mapper maps a
// mesh's coarse graph with straight cuts that the distributed levels
// only approach with costly FM (3D grid 2^18 at P=2: J 1.09x the
// one-process J from 8,194 vertices, 0.99x from 2^16, at the same CPU
// time with less FM). Label propagation's levels shrink too fast for a
// large coarsest graph to pay (rgg 2^18: 0.93x from 10,038 vertices).
// A graph of at most 2^17 vertices is mapped whole (mapWhole): one
// process maps it in a second or two, and the short hierarchies of such
// graphs with one round of FM lost J (rgg 2^16 1.14x the one-process J,
// finan512 with 75k vertices 1.44x at P=2).
func coarsestSize(n int64, k int, opt Options, byMatching bool) int64 {
	if opt.Coarsest > 0 {
		return opt.Coarsest
	}
	if n <= 1<<17 {
		return n
	}
	c := max(8000, 20*int64(k))
	if byMatching {
		c = max(c, min(n/16, 1<<17))
	}
	return c
}

// Map maps the distributed graph g onto top (see the package comment).
// Collective over the communicator g was read or built on; every rank
// returns the same error.
func Map(g *Graph, top *topology.Topology, opt Options) (res *Result, err error) {
	if err := noGraph(g); err != nil {
		return nil, err
	}
	defer func() { abortOnPanic(g.c, recover()) }()
	if err := checkOptions(g.c, g.rank, top, opt); err != nil {
		return nil, err
	}
	k := top.K()
	sums, err := sumAll(g.c, localWeight(g.VW), edgeWeight(g))
	if err != nil {
		return nil, err
	}
	total := sums[0]
	// Every edge is stored twice; J must fit, as in gpumap map.
	if w, d := sums[1]/2, top.MaxDistance(); d > 0 && w > graph.MaxCost/d {
		return nil, &Error{KindGraph, fmt.Sprintf("the edge weights sum to %d and the largest distance is %d: J could reach their product, more than %d (2^62); scale the edge weights or the distances down", w, d, int64(graph.MaxCost))}
	}
	lmax := graph.Lmax(total, k, opt.Eps)
	if g.GlobalN() <= coarsestSize(g.GlobalN(), k, opt, false) {
		return mapWhole(g, top, opt)
	}
	d, err := degreesOf(g)
	if err != nil {
		return nil, err
	}
	cv, entries := d.cv(false), d.entries
	if hubWhole(g.GlobalN(), entries, cv, opt) || skewedWhole(g.GlobalN(), entries, d.cv(true), opt) {
		return mapWhole(g, top, opt)
	}
	if hubTopDown(g.GlobalN(), cv, top, opt) {
		return mapTopDown(g, top, opt, total, cv, entries, lmax)
	}
	spread, err := renumbered(g, entries, cv)
	if err != nil {
		return nil, err
	}
	if spread > 0 {
		return mapRenumbered(g, top, opt, total, cv, entries, lmax, spread)
	}
	return mapLevels(g, top, opt, total, cv, entries, lmax)
}

// mapLevels maps g onto top by the distributed levels (the package
// comment's steps 1-3): g has total vertex weight total, degree CV cv
// and entries adjacency entries in all (degreeCV), and each PE may hold
// lmax.
func mapLevels(g *Graph, top *topology.Topology, opt Options, total int64, cv float64, entries, lmax int64) (*Result, error) {
	k := top.K()
	ph := opt.Phases
	// One hierarchy, chosen by one round of label propagation on the
	// input (which goes on as the first level's clustering if chosen).
	// Neither coarsening wins everywhere: local matchings keep a
	// numbered mesh's straight cuts (a 3D grid 2^20 at P=2: J 0.99x the
	// one-process J against 1.10x with label propagation), label
	// propagation follows a geometric graph's dense regions (rgg 2^20:
	// 0.94x against 1.04x). Where the round leaves few clusters (more
	// than 4 vertices a cluster: rgg 2^18 6.8, 3D grid 2.1, FE meshes
	// 3.4-3.6) the graph has dense regions. Natural-order matching has
	// no straight cuts to keep where the numbering has no locality
	// (R-MAT: its coarsest graph also took gpumap.Map minutes): label
	// propagation coarsens there. Building and mapping both hierarchies
	// and keeping the lower coarsest J took half the time of a run.
	local, err := hasLocality(g)
	if err != nil {
		return nil, err
	}
	byMatching := local
	roads := isRoads(g.GlobalN(), entries)
	if byMatching && roads {
		if byMatching, err = roadsMatch(g); err != nil {
			return nil, err
		}
	}
	// The clustering visits shuffled blocks of consecutive ids where they
	// lie near each other (shuffledBlocks); without locality a block's
	// neighbours are as scattered as any, and the blocks only changed the
	// clusters (R-MAT 2^18 at P=2: J +9.7%, CPU +14%).
	block := 0
	if local {
		block = clusterBlock
	}
	// Skewed degrees: those of the graphs that the one-process mapper
	// refines by label propagation instead of FM (degree CV at least
	// features.SkewedCV). FM's connection tables on their hubs' rows took
	// 84% of a P=1 run on R-MAT 2^18 (72 of 85 s of CPU: every move of a
	// hub's neighbour updates the hub's table, and every look at a hub
	// sorts it), so they refine by the Jet loop (distJet).
	skewed := cv >= features.SkewedCV
	// On skewed degrees many ranks join a hub's clusters at once: each
	// may fill 1/P of a cluster's room (R-MAT 2^18 at P=2: coarse
	// vertices of 37 under a limit of 19, more than the coarsest
	// mapping could balance within Lmax).
	share := 1
	if skewed {
		share = g.size
	}
	// A cluster weighs at most the average coarsest vertex.
	limit := func(small int64) int64 { return max(1, (total+small-1)/small) }
	var first *clustering
	if small := coarsestSize(g.GlobalN(), k, opt, false); byMatching && g.GlobalN() > small {
		if first, err = newClustering(g, limit(small), opt.Seed, 0, share, block); err != nil {
			return nil, err
		}
		paused, err := first.firstRound()
		if err != nil {
			return nil, err
		}
		if !paused {
			nc, err := countLabels(g, first.label)
			if err != nil {
				return nil, err
			}
			byMatching = 4*nc > g.GlobalN()
		}
	}
	small := coarsestSize(g.GlobalN(), k, opt, byMatching)
	// first goes on as label propagation's first level where matchings
	// may yet lose to it (lessExposed), paused or not.
	lpFirst := first
	if byMatching {
		first = nil
	}
	if err := ph.Done("choose coarsening"); err != nil {
		return nil, err
	}
	best, err := coarsen(g, opt, small, limit(small), byMatching, first, share, block, nil)
	if err != nil {
		return nil, err
	}
	matched := byMatching // the matchings' hierarchy kept (vcycle below)
	if byMatching {
		m := best
		lpSmall := coarsestSize(g.GlobalN(), k, opt, false)
		if best, err = lessExposed(g, opt, best, lpSmall, limit(lpSmall), lpFirst, share, block); err != nil {
			return nil, err
		}
		matched = best == m
		// The hierarchy that lost, and label propagation's paused first
		// round, before the coarsest graph is gathered: a 100^3 grid at
		// P=2 peaked at 207 MiB on its largest rank collecting after
		// the coarsest mapping, 197 MiB collecting here (the review).
		collect()
	}
	if best.pe, best.j, err = initial(best.coarsest(g), top, opt, roads); err != nil {
		return nil, err
	}
	levels, pe := best.levels, best.pe
	// Uncoarsen: project and refine on every level, the input's included.
	for i := len(levels); i >= 0; i-- {
		fine := g
		if i > 0 {
			fine = levels[i-1].coarse
		}
		if i < len(levels) {
			if pe, err = projectAll(fine, levels[i], pe[:levels[i].coarse.N()]); err != nil {
				return nil, err
			}
			// The coarse graph is done with: the finer levels are
			// refined without it (a matching's first coarse graph is
			// about half the input).
			levels[i] = nil
			collect()
			if err := ph.Done(fmt.Sprintf("level %d project", i)); err != nil {
				return nil, err
			}
		}
		if err := traceSpread(fine, opt, i); err != nil {
			return nil, err
		}
		if err := trace(fine, top, pe, opt, i, "start"); err != nil {
			return nil, err
		}
		// The input's level only: balancing the coarse levels' heavy
		// vertices cost J (rgg 200k onto 4:8:6 at eps 0, P=2: 776k
		// against 565k, gpumap map -t 1 526k).
		if i == 0 {
			if err := balance(fine, top, pe, lmax, opt.Seed); err != nil {
				return nil, err
			}
		}
		// Skewed degrees (skewed above): two rounds of label propagation,
		// then the Jet loop (distJet), and no FM.
		if skewed {
			if err := refine(fine, top, pe, lmax, refineRounds, opt.Seed, i); err != nil {
				return nil, err
			}
			if err := ph.Done(fmt.Sprintf("level %d lp", i)); err != nil {
				return nil, err
			}
			if err := trace(fine, top, pe, opt, i, "lp"); err != nil {
				return nil, err
			}
			// Not on a coarse level above Lmax, as below (the review:
			// isolated vertices make a degree CV of 1 or more, and their
			// groups heavy coarse vertices).
			ran, err := runJet(fine, top, pe, lmax, refinement.JetConfig{Seed: opt.Seed ^ uint64(i)*0x51}, i == 0)
			if err != nil {
				return nil, err
			}
			if !ran {
				continue
			}
			if err := ph.Done(fmt.Sprintf("level %d jet", i)); err != nil {
				return nil, err
			}
			if err := trace(fine, top, pe, opt, i, "jet"); err != nil {
				return nil, err
			}
			continue
		}
		// Otherwise the Jet loop, as the one-process IM refines every
		// level (its settings: 12 iterations without progress), instead
		// of two rounds of label propagation on J, then FM. Label
		// propagation and FM move a vertex only where J falls within
		// Lmax; Jet's moves at a loss and its rebalancing leave such
		// local minima. Two copies of finan512 joined by an edge onto
		// 4:8:6 (issue 24; seeds 1, 2, 3, 21): J 1.065-1.145x the
		// one-process J at P=2 and 1.070-1.237x at P=4 before, 0.88-1.00x
		// and 0.91-1.03x with Jet. The loss had been the top level's cut
		// (807 edges of distance 100 against the one-process 571): even
		// the mapping of a 38k-vertex coarsest graph by gpumap.Map cut
		// 930-1,340 there, where the one-process mapping projected onto
		// it cut 609.
		if err := refineLevel(fine, top, pe, lmax, opt.Seed, i, opt, "", roads); err != nil {
			return nil, err
		}
	}
	// A V-cycle inside the mapping's PEs (vcycle): on label propagation's
	// hierarchy only. Where the matchings' was kept it gained nothing
	// (100^3 grid at P=2, seeds 1, 2, 3, 21: J 1.000x) for 1.36-1.48x the
	// CPU (3 alternating pairs, seed 1); nor on skewed degrees, whose
	// levels refine by the Jet loop alone; nor on roads (mean degree
	// below sparseDegree), whose coarsest mapping decides J: with strong's
	// HM on the coarsest graph (roadsStrongHM), the V-cycle took P=2,
	// seed 1 from J 27,185 to 27,111 on FLA, 23,239 to 23,065 on COL and
	// 30,845 to 30,733 on NW (-0.3% to -0.7%) for 1.10-1.32x the wall
	// (idle, 2 alternating pairs: FLA 3.01-3.18 s against 2.40-2.91 s,
	// COL 1.81-1.87 s against 1.46-1.63 s).
	if !skewed && !matched && !roads {
		if err := vcycle(g, top, pe, lmax, limit(small), opt, block); err != nil {
			return nil, err
		}
	}
	m, err := evaluate(g, top, pe, opt.Eps)
	if err != nil {
		return nil, err
	}
	return &Result{PE: pe[:g.N()], Metrics: m, Levels: len(levels), CoarseN: best.coarseN}, nil
}

// DefaultOptions returns what gpumap-mpi maps with when no flag says
// otherwise: the default preset, eps 0.03, seed 0 and one thread per
// process.
func DefaultOptions() Options {
	return Options{Preset: gpumap.Default, Eps: 0.03, Threads: 1}
}

// checkOptions fails on every rank where eps is invalid or the ranks'
// options or machines differ (sameOptions; collective).
func checkOptions(c mpi.Comm, rank int, top *topology.Topology, opt Options) error {
	// Checked here as gpumap_map_dist checks them: gpumap.Map found
	// the preset and threads out of range on the coarsest graph only,
	// without the rank and with KindOther (a C caller's GPUMAP_ERR_GRAPH).
	var bad error
	switch {
	case !gpumap.ValidEps(opt.Eps):
		bad = &Error{KindOptions, fmt.Sprintf("rank %d: eps %v must be a finite number in [0, 1e6]", rank, opt.Eps)}
	case opt.Preset < gpumap.Fast || opt.Preset > gpumap.Strong:
		bad = &Error{KindOptions, fmt.Sprintf("rank %d: unknown preset %d", rank, int(opt.Preset))}
	case opt.Threads < 0 || opt.Threads > gpumap.MaxThreads:
		bad = &Error{KindOptions, fmt.Sprintf("rank %d: thread count %d must be in [0, %d]", rank, opt.Threads, gpumap.MaxThreads)}
	}
	if err := agree(c, bad); err != nil {
		return err
	}
	return sameOptions(c, rank, top, opt)
}

// trace writes the J of the mapping pe of level lvl's graph g after
// step to opt.Trace (rank 0; collective, where opt.Trace is set).
func trace(g *Graph, top *topology.Topology, pe []int32, opt Options, lvl int, step string) error {
	if opt.Trace == nil {
		return nil
	}
	m, err := evaluate(g, top, pe, opt.Eps)
	if err != nil {
		return err
	}
	if g.rank == 0 {
		fmt.Fprintf(opt.Trace, "level %2d n=%-9d %-5s J=%-11d max=%d lmax=%d\n", lvl, g.GlobalN(), step, m.J, m.MaxBlock, m.Lmax)
	}
	return nil
}

// traceSpread prints level i's vtxdist and the share of its adjacency
// entries whose other end another rank owns (a ghost) where opt.Trace
// is set (collective). Each such entry costs every level's exchanges,
// contraction and refinement: at P=2 NE's input numbering leaves 32% of
// its entries across the ranks, NW's 10.6%, FLA's and COL's 0.5%, in
// the order of their P=2 walls over map -t 2 (3.1-3.6, 1.76, 1.5-1.6,
// 1.15-1.28).
func traceSpread(g *Graph, opt Options, i int) error {
	if opt.Trace == nil {
		return nil
	}
	far, all, err := acrossRanks(g)
	if err != nil {
		return err
	}
	if g.rank == 0 {
		fmt.Fprintf(opt.Trace, "level %2d vtxdist %v, %d of %d adjacency entries (%.1f%%) across the ranks\n", i, g.VtxDist, far, all, 100*float64(far)/float64(max(1, all)))
	}
	return nil
}

// hasLocality reports whether most edges of g join vertices whose global
// ids differ by less than 2 sqrt(n), as multisection.Local decides for
// the one-process mapper's natural-order coarsening (collective).
func hasLocality(g *Graph) (bool, error) {
	lim := int64(2 * math.Sqrt(float64(g.GlobalN())))
	var near int64
	for v := range g.N() {
		x := g.First() + int64(v)
		for _, u := range g.Adj[g.XAdj[v]:g.XAdj[v+1]] {
			if d := g.global(u) - x; d > -lim && d < lim {
				near++
			}
		}
	}
	sums, err := sumAll(g.c, near, int64(len(g.Adj)))
	if err != nil {
		return false, err
	}
	return 2*sums[0] > sums[1], nil
}

// degreeCV is features.DegreeCV of the whole graph g, and its adjacency
// entries (twice its edges), with one allreduce (collective: the same on
// every rank).
func degreeCV(g *Graph) (cv float64, entries int64, err error) {
	d, err := degreesOf(g)
	return d.cv(false), d.entries, err
}

// degrees sums the degrees of a whole graph (degreesOf).
type degrees struct {
	n, entries, squares, isolated int64
}

// degreesOf returns the sums of g's degrees over every rank, with one
// allreduce (collective: the same on every rank).
func degreesOf(g *Graph) (degrees, error) {
	// Degrees capped at 2^24: the sum of squares stays within int64 for
	// any graph of fewer than 2^39 edges, and a cap only lowers the spread.
	var s2, iso int64
	for v := range g.N() {
		d := min(g.XAdj[v+1]-g.XAdj[v], 1<<24)
		s2 += d * d
		if d == 0 {
			iso++
		}
	}
	sums, err := sumAll(g.c, int64(len(g.Adj)), s2, iso)
	if err != nil {
		return degrees{}, err
	}
	return degrees{g.GlobalN(), sums[0], sums[1], sums[2]}, nil
}

// cv is the degree CV (features.DegreeCV), over the vertices with an
// edge only where linked (0 without edges).
func (d degrees) cv(linked bool) float64 {
	n := d.n
	if linked {
		n -= d.isolated
	}
	if d.entries == 0 || n <= 0 {
		return 0
	}
	mean := float64(d.entries) / float64(n)
	return math.Sqrt(max(0, float64(d.squares)/float64(n)-mean*mean)) / mean
}

// Hub graphs (degree CV at least gpumap.HubCV) of up to hubWholeVertices
// vertices and hubWholeEntries adjacency entries are mapped whole
// (mapWhole), above 2^17 vertices too: the one-process mapper maps them
// top-down (its top split's groups first, whole hub stars moved between
// them), which the distributed levels do not approach (R-MAT 2^18, 148k
// vertices, onto 4:8:6 at P=2: J 96.7M against map -t 1's 67.6M;
// forcing top-down on their coarsest graph: 102.5M). The bound keeps
// the gathered graph well within one process, as every rank holds it:
// on R-MAT 2^18 with 16 draws per id (174k vertices, 7.6M entries) at
// P=2 the largest rank peaked at 466 MB mapped whole (775 MB with the
// distributed levels), about 2 GB scaled to 2^25 entries. Measured at
// 2^25: R-MAT 2^21 (1.05M vertices, 32.4M entries) peaked at 1.3-1.7
// GiB a rank at P=2 and 4, against 1.1-1.2 GiB for map -t 2. The vertex
// bound was 2^20, which R-MAT 2^21 passed by a few hundred vertices:
// top-down across the ranks (topdown.go) it took 3.2x map -t 2's wall
// at P=2 and did not finish in 37 minutes at P=4; mapped whole, P=2
// writes map -t 2's file and P=4 a lower J (DEVELOPERS.md).
const (
	hubWholeVertices = 1 << 21
	hubWholeEntries  = 1 << 25
)

// hubWhole reports whether a graph of n vertices, entries adjacency
// entries and degree CV cv, all collective values, is mapped whole as a
// hub graph. Only under a preset that maps hubs top-down
// (gpumap.TopDownOnHubs: default): fast's one-process J on R-MAT 2^18
// onto 4:8:6 is 1.12x its distributed levels' at P=2 (121.8M against
// 109.0M). Not where Options.Coarsest is set: a developer's bound on
// the coarsest graph keeps the distributed levels (TestSkewedJ).
func hubWhole(n, entries int64, cv float64, opt Options) bool {
	return opt.Coarsest == 0 && gpumap.TopDownOnHubs(opt.Preset) && cv >= gpumap.HubCV && n <= hubWholeVertices && entries <= hubWholeEntries
}

// skewedWhole reports whether a graph of n vertices and entries
// adjacency entries, whose vertices with an edge have degree CV linkedCV
// (all collective values), is mapped whole under hubWhole's bounds
// though not a hub graph: skewed degrees (the one-process mapper's
// features.SkewedCV, from which the distributed levels refine by label
// propagation and the Jet loop), under the default preset, where
// Options.Coarsest is not set. On the LP models there label propagation
// stalls (lpl1 164,951 -> 70,017 -> 59,497 -> 55,831 vertices at P=2),
// and the coarsest graph's HM alone took about the one-process run
// (lpl1 1.22 s against map -t 2's 1.05-1.3 s); mapped whole, P=2 maps
// as map -t 2 (rank 1 lends its CPUs: mapWhole) and P >= 3 tries more
// seeds. distreal2's LP models onto 4:8:6, seeds 1, 2, J whole / the
// levels: fit half lpl1 0.968, 1.032 (P=2), 1.061, 0.865 (P=4), ken-18
// 0.980, 0.972 / 0.956, 0.959; report half pds-40 0.993, 0.984 /
// 1.010, 0.946, dbic1 0.973, 0.933 / 0.989, 0.968. P=2 new/old in
// alternating pairs, shared machine (load 3-5): wall 0.55-1.02x, CPU
// 0.59-0.98x, the largest rank's peak RSS 0.61-1.00x (the levels'
// hierarchy outweighed the whole graph). The CV of the vertices with an
// edge: isolated vertices alone make a CV of 1 or more (an rgg of 150k
// vertices with 300k isolated ones between, whose distributed levels
// map it at 0.75-0.78x map -t 2's J at P=2 and 4: groupIsolated).
func skewedWhole(n, entries int64, linkedCV float64, opt Options) bool {
	return opt.Coarsest == 0 && opt.Preset == gpumap.Default && linkedCV >= features.SkewedCV && n <= hubWholeVertices && entries <= hubWholeEntries
}

// hierarchy is one coarsening of the input and the mapping of its
// coarsest graph.
type hierarchy struct {
	levels  []*level
	coarseN int64
	pe      []int32 // of the coarsest graph's local vertices and ghosts
	j       int64   // of pe; math.MaxInt64 when infeasible
	// exposed is every graph's size and edge weight, the input's first
	// (lessExposed).
	exposed []exposure
	behind  bool // stopped by coarsen's ahead
}

// countLabels returns the number of distinct labels of the local vertices
// summed over the ranks (a cluster that spans ranks counts once per rank).
func countLabels(g *Graph, label []int64) (int64, error) {
	l := slices.Clone(label[:g.N()])
	slices.Sort(l)
	s, err := sumAll(g.c, int64(len(slices.Compact(l))))
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

// coarsen contracts g until at most small vertices remain or a level
// keeps more than 90% of them (clusters weigh at most limit), by label
// propagation or by local matchings (a level whose matching keeps more
// than 80% is clustered by label propagation instead: matchings stall
// where the edges cross ranks); the caller maps the coarsest graph.
// ahead, when not nil, is asked of every level (its size and exposed
// weight, exposedOf) whether to go on; a level behind is not contracted.
// first, when not nil, is label propagation already started on g; share
// and block are newClustering's.
func coarsen(g *Graph, opt Options, small, limit int64, byMatching bool, first *clustering, share, block int, ahead func(exposure) bool) (*hierarchy, error) {
	h := &hierarchy{}
	cur := g
	if err := h.addExposed(cur); err != nil {
		return nil, err
	}
	// addExposed, or the level's exposure known before its contraction.
	addExposed := func(e *exposure) error {
		if e != nil {
			h.exposed = append(h.exposed, *e)
			return nil
		}
		return h.addExposed(cur)
	}
	for len(h.levels) < maxLevels && cur.GlobalN() > small {
		var lv *level
		var known *exposure
		if byMatching {
			label, err := match(cur, limit)
			if err != nil {
				return nil, err
			}
			groupIsolated(cur, label, limit)
			if lv, err = contract(cur, label); err != nil {
				return nil, err
			}
			if lv.coarse.GlobalN() > cur.GlobalN()*matchKeep/10 {
				lv = nil
			}
		}
		if lv == nil {
			c := first
			first = nil
			var err error
			if c == nil {
				if c, err = newClustering(cur, limit, opt.Seed, len(h.levels), share, block); err != nil {
					return nil, err
				}
			}
			// A round that firstRound paused is finished first and
			// counts as one of clusterRounds.
			rounds := clusterRounds - c.done
			if c.perm != nil {
				rounds++
			}
			if err := c.run(rounds); err != nil {
				return nil, err
			}
			label := c.label
			groupIsolated(cur, label, limit)
			// The level's size and exposed weight come before its
			// contraction, which a level behind does without; not where
			// ahead passes any level smaller than cur whatever it exposes
			// (below the matchings' coarsest size: FLA's last three
			// levels), as the count costs a pass over the edges.
			if ahead != nil && !ahead(exposure{cur.GlobalN() - 1, math.MaxInt64}) {
				e, err := exposedOf(cur, label)
				if err != nil {
					return nil, err
				}
				if e.n <= cur.GlobalN()*9/10 && !ahead(e) {
					h.exposed = append(h.exposed, e)
					h.behind = true
					break
				}
				known = &e
			}
			if lv, err = contract(cur, label); err != nil {
				return nil, err
			}
		}
		if lv.coarse.GlobalN() > cur.GlobalN()*9/10 {
			// Stalled: too little gained for a level.
			if lv.coarse.GlobalN() == cur.GlobalN() {
				break
			}
			h.levels = append(h.levels, lv)
			cur = lv.coarse
			if err := addExposed(known); err != nil {
				return nil, err
			}
			break
		}
		h.levels = append(h.levels, lv)
		cur = lv.coarse
		if err := addExposed(known); err != nil {
			return nil, err
		}
		collect() // the level's temporaries
		// (ahead has passed this level before its contraction.)
		if err := opt.Phases.Done(fmt.Sprintf("coarsen to n=%d", cur.GlobalN())); err != nil {
			return nil, err
		}
	}
	if cur.GlobalN() > graph.MaxVertices {
		return nil, fmt.Errorf("the graph coarsened to %d vertices only, more than one process maps (%d)", cur.GlobalN(), graph.MaxVertices)
	}
	h.coarseN = cur.GlobalN()
	return h, nil
}

// localWeight sums weights that check has bounded.
func localWeight(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// gather returns the whole graph g on every rank (collective; the same
// error on every rank). checked says that g was checked by its
// constructor (New, ReadGraph: check) and is gathered as it is, without
// a second validation (graph.FromCheckedCSR).
func gather(g *Graph, checked bool) (*graph.Graph, error) {
	a, err := gatherCSR(g)
	if err != nil {
		return nil, err
	}
	build := graph.FromCSR
	if checked {
		build = graph.FromCheckedCSR
	}
	cg, err := build(a.xadj, a.adj, a.vw, a.w)
	return cg, agree(g.c, err)
}

// csr is a whole graph's arrays as gatherCSR collects them: w nil where
// every edge weighs 1.
type csr struct {
	xadj  []int64
	adj   []int32
	vw, w []int64
}

// gatherCSR returns the arrays of the whole graph g on every rank,
// unchecked and uncopied: g was checked where it was built (collective).
func gatherCSR(g *Graph) (csr, error) {
	n := g.N()
	deg := make([]int64, n)
	// Neighbours travel as the 32-bit ids that the gathered graph keeps
	// (FromCSR fails on more than graph.MaxVertices vertices either way):
	// gathered as 64-bit ids and then narrowed, R-MAT 2^21's 32.4M
	// entries held 390 MB of transient arrays on every rank, against
	// 130 MB.
	adj := make([]int32, len(g.Adj))
	for v := range n {
		deg[v] = g.XAdj[v+1] - g.XAdj[v]
	}
	for e, u := range g.Adj {
		adj[e] = int32(g.global(u))
	}
	allDeg, _, err := mpi.Allgatherv(g.c, deg, g.size)
	if err != nil {
		return csr{}, err
	}
	allAdj, _, err := mpi.Allgatherv(g.c, adj, g.size)
	if err != nil {
		return csr{}, err
	}
	// Unit weights (no rank stores any: build drops them) travel as
	// none, as the one-process graph keeps them: sent as ones, R-MAT
	// 2^21's weights held 260 MB on every rank and FromCSR's copy as
	// much again, to be dropped as unit.
	hasW := []int64{0}
	if g.ew != nil {
		hasW[0] = 1
	}
	if err := mpi.Allreduce(g.c, hasW, mpi.Max); err != nil {
		return csr{}, err
	}
	var allW []int64
	if hasW[0] != 0 {
		if allW, _, err = mpi.Allgatherv(g.c, g.edgeWeights(), g.size); err != nil {
			return csr{}, err
		}
	}
	allVW, _, err := mpi.Allgatherv(g.c, g.VW, g.size)
	if err != nil {
		return csr{}, err
	}
	xadj := make([]int64, len(allDeg)+1)
	for v, d := range allDeg {
		xadj[v+1] = xadj[v] + d
	}
	return csr{xadj, allAdj, allVW, allW}, nil
}

// initial maps the coarsest graph: every rank gathers it whole and maps
// it with gpumap.Map under firstOptions (its own seed; the default
// preset's duel of HM and IM, as Map duels them where it would: duelFirst;
// strong's HM where roadsStrongHM); the mapping of the least J (feasible
// first, lowest rank among equals) is kept. Where moreTries is
// positive every rank then maps that many times again with the
// algorithm of the best first mapping (the preset's own choice at P=1
// or outside the default preset's duel) and seeds the first round did
// not use (seed + the first round's seeds + t*P + rank), and keeps a
// mapping that lowers its J (a feasible one only). roads says that the
// input's mean degree is below sparseDegree. It returns the PEs of the
// local vertices and ghosts, and its J (math.MaxInt64 when infeasible).
func initial(g *Graph, top *topology.Topology, opt Options, roads bool) ([]int32, int64, error) {
	cg, err := gather(g, false)
	if err != nil {
		return nil, 0, err
	}
	if err := opt.Phases.Done("gather coarsest"); err != nil {
		return nil, 0, err
	}
	strongHM := roadsStrongHM(opt, roads, int64(cg.N()), cg.M())
	var whole []int32
	j := int64(math.MaxInt64)
	mine, ok := duelFirstAt(cg, top, opt, g.size, g.rank, strongHM)
	// runDealt's collectives are not firstOptions': the duel only where
	// every rank deals it, so that a rank that differs (its own answer
	// from its own options and graph) maps with firstOptions alone, as
	// the others then do, and never waits in a collective its peers skip.
	every, err := sumAll(g.c, b2i(ok))
	if err != nil {
		return nil, 0, err
	}
	if every[0] == int64(g.size) {
		coarsestDuels.Add(1)
		var feasible bool
		if whole, j, feasible, err = runDealt(g.c, cg, top, opt, mine, true, false, nil, g.size, g.rank); err != nil {
			return nil, 0, err
		}
		if whole != nil && !feasible {
			j = infeasibleJ
		}
	} else {
		o := firstOptions(opt, g.rank, g.size, strongHM)
		var r *gpumap.Result
		if r, err = gpumap.Map(cg, top, o); err == nil {
			whole, j = r.PE, r.Metrics.J
			if !r.Metrics.Feasible {
				j = infeasibleJ // any feasible mapping first
			}
		}
		if err := agree(g.c, err); err != nil {
			return nil, 0, err
		}
	}
	// traceJ prints every rank's J after what on rank 0 (collective
	// where opt.Trace is set).
	traceJ := func(what string) error {
		if opt.Trace == nil {
			return nil
		}
		all, err := mpi.Allgather(g.c, []int64{j}, g.size)
		if err == nil && g.rank == 0 {
			fmt.Fprintf(opt.Trace, "%s J by rank %v\n", what, all)
		}
		return err
	}
	if err := traceJ(fmt.Sprintf("coarsest n=%d m=%d", cg.N(), cg.M())); err != nil {
		return nil, 0, err
	}
	if more := moreTries(opt, roads, strongHM); more > 0 {
		// The algorithm of the best first mapping (HM or IM under the
		// default preset's duel) maps again on every rank, seeds the
		// first round did not use.
		_, w, err := mpi.MinLoc(g.c, j)
		if err != nil {
			return nil, 0, err
		}
		o := coarsestOptions(opt)
		first := uint64(g.size)
		if g.size > 1 && opt.Preset == gpumap.Default {
			o.Algorithm = duelAlgorithm(w)
			first = uint64(g.size+1) / 2
		}
		for t := range more {
			o.Seed = opt.Seed + first + uint64(t*g.size+g.rank)
			var r *gpumap.Result
			if r, err = gpumap.Map(cg, top, o); err != nil {
				break
			}
			if r.Metrics.Feasible && r.Metrics.J < j {
				whole, j = r.PE, r.Metrics.J
			}
		}
		if err := agree(g.c, err); err != nil {
			return nil, 0, err
		}
		if err := traceJ(fmt.Sprintf("coarsest after %d more tries of %v:", more, o.Algorithm)); err != nil {
			return nil, 0, err
		}
	}
	if err := opt.Phases.Done("map coarsest"); err != nil {
		return nil, 0, err
	}
	j, winner, err := mpi.MinLoc(g.c, j)
	if err != nil {
		return nil, 0, err
	}
	if j == infeasibleJ {
		j = math.MaxInt64
	}
	if winner != g.rank {
		whole = make([]int32, g.GlobalN())
	}
	if err := mpi.BcastOf(g.c, whole, winner); err != nil {
		return nil, 0, err
	}
	n := g.N()
	pe := make([]int32, n+len(g.Ghost))
	copy(pe, whole[g.First():g.First()+int64(n)])
	for i, x := range g.Ghost {
		pe[n+i] = whole[x]
	}
	return pe, j, nil
}

// infeasibleJ is initial's J of an infeasible mapping: any feasible one
// wins over it, and it over no mapping (math.MaxInt64: a duel's HM that
// stopped), so that where none is feasible the lowest rank with a mapping
// keeps its own.
const infeasibleJ = math.MaxInt64 - 1

// coarsestOptions is what every rank maps the gathered coarsest graph
// with (initial's rounds), before the seed and algorithm: on the CPU, as
// wholePlan's. The automatic backend opens a GPU for a graph of
// gpumap.GPUMinVertices or more, on every rank of a node, and runs its
// own pipelines there (gpuMultisection; IM where the algorithm is auto),
// so the mapping would depend on the machine; label propagation stalls
// above that size on roads (NE at P=2, seeds 2 and 3: 126,732 coarsest
// vertices), and gpumap-mpi prints backend=cpu whatever ran.
func coarsestOptions(opt Options) gpumap.Options {
	o := gpumap.DefaultOptions()
	o.Preset, o.Eps, o.Threads = opt.Preset, opt.Eps, opt.Threads
	o.Backend = gpumap.CPU
	return o
}

// firstOptions is what rank (of size ranks) maps the coarsest graph
// with first. One mapping a rank: four tries at P=1 and 2 took a quarter
// of a run on a 3D grid, for J 1-3% on rgg 2^18 (where the coarsest
// graph is small) and none on the grid. Its seed is seed + rank, but:
//
// The default preset maps a graph of fewer than 2^18 edges with both HM
// and IM and keeps the better: with two ranks or more, even ranks run HM
// and odd ones IM instead (grid 2^20 at P=2: the coarsest mapping took a
// quarter of the run), ranks 2i and 2i+1 with the same seed, so that P=2
// tries what one process tries (finan512 mapped whole at P=2: J 1.18x
// the one-process J with IM on seed+1).
//
// Where strongHM (roadsStrongHM) every rank maps with strong's HM
// instead (the strong preset's multisection alone, not its portfolio),
// seed + rank, and no second round (moreTries). On NE (fit half) at P=2
// label propagation stalls at 50,990 coarse vertices of mean degree
// 3.34, which default's HM mapped at J 77,406-90,134 (seeds 1-3) and
// strong's HM at 64,980-79,700. Which of strong's settings (on the
// coarsest graphs of NE and NW at P=2, seeds 1 and 2, each mapped with
// seeds 1-3; J in the geometric mean against default's HM, CPU summed):
// its partitioner (12 tries, 3 LP and 4 FM rounds of alpha 60, no bound
// on wasted work) 0.910 at 1.45x, its 8 top tries 0.932 at 1.48x, both
// 0.869 at 2.50x, its whole HM 0.859 at 2.94x; any one of the
// partitioner's settings alone 0.97-1.00. Strong's HM on two seeds
// against default's best of three HM (what P=2 tried before: HM and IM,
// then HM again on both ranks): NE 0.839 and 0.849, NW 0.970 and 0.890,
// at about the CPU of two default HM on the rank that ran HM twice.
// Whole runs, seeds 1, 2, 3, 21, J summed, new/old at P=2 and P=4: fit
// half NE 0.860 / 0.914, NW 1.003 / 0.942, TG x8 0.996 / 0.992; report
// half COL 0.940 / 0.936, FLA 0.976 / 1.020, luxembourg_osm x2 0.975 /
// 0.988. The price at P=2 (seed 1, 3 alternating pairs, load 4): the
// coarsest mapping's CPU over both ranks FLA 0.32 -> 0.46-0.47 s, NE
// 1.12-1.19 -> 2.00-2.36 s; whole runs' CPU FLA 1.04-1.08x, NE
// 1.09-1.27x, FLA's wall 1.04-1.08x.
func firstOptions(opt Options, rank, size int, strongHM bool) gpumap.Options {
	o := coarsestOptions(opt)
	o.Seed = opt.Seed + uint64(rank)
	switch {
	case strongHM:
		o.Preset, o.Algorithm = gpumap.Strong, gpumap.Multisection
	case size > 1 && opt.Preset == gpumap.Default:
		o.Algorithm = duelAlgorithm(rank)
		o.Seed = opt.Seed + uint64(rank/2)
	}
	return o
}

// duelFirst returns what rank (of size ranks) maps the coarsest graph
// cg with in the first round where that is the default preset's duel
// (firstOptions) and gpumap.Map would duel the two on cg (gpumap.Split,
// as wholePlan deals them: the same options), with ok; otherwise ok is
// false and each rank maps with firstOptions alone (initial duels only
// where every rank's ok is true: one allreduce). In the duel (runDealt)
// HM takes its IM's thread and core once IM is done on its node, and
// stops where Map stops it: rank 0's HM ran on alone for 0.9-1.8 s on
// the LP models at P=2 (lpl1 HM 1.22 s against IM's 0.35 s, pds-40 2.46 s
// against 0.69 s, seed 1), while its IM's rank spun in the allreduce
// after. The same mappings wherever HM is not stopped (gpumap.MapDuel).
func duelFirst(cg *graph.Graph, top *topology.Topology, opt Options, size, rank int, strongHM bool) ([]gpumap.Options, bool) {
	if size < 2 || opt.Preset != gpumap.Default || strongHM {
		return nil, false
	}
	mine, duel, _ := wholePlan(cg, top, opt, size, rank)
	if !duel || len(mine) != 1 || mine[0] != firstOptions(opt, rank, size, false) {
		return nil, false
	}
	return mine, true
}

// duelFirstAt is duelFirst, which initial calls through it so that a
// test can make one rank's answer differ (TestCoarsestDuelAgreed).
var duelFirstAt = duelFirst

// coarsestDuels counts the coarsest mappings of this process that
// duelled (duelFirst; for the tests).
var coarsestDuels atomic.Int64

// duelAlgorithm is what rank maps the coarsest graph with in the default
// preset's duel (firstOptions): HM on even ranks, IM on odd ones.
func duelAlgorithm(rank int) gpumap.Algorithm {
	return [...]gpumap.Algorithm{gpumap.Multisection, gpumap.Integrated}[rank%2]
}

// roadsStrongHM reports whether the coarsest graph of n vertices and m
// edges maps with strong's HM (firstOptions): on roads (the input's mean
// degree below sparseDegree) under the default preset, where the
// coarsest graph's mean degree is sparseDegree or more. Below it the
// one-process default preset maps with its sparse settings (attachDegree,
// the same 2.7), which strong's lack: cal x7 (fit half, coarsest mean
// degree 2.66) at P=2, seeds 1, 2, 3, 21 summed, J 1.020x with strong's
// HM; there the duel and the second round stay. The other roads measured
// coarsen to 2.72 (luxembourg_osm x2), 3.3-3.9 (NE, NW, TG x8, COL, FLA).
func roadsStrongHM(opt Options, roads bool, n, m int64) bool {
	return roads && opt.Preset == gpumap.Default && float64(2*m) >= sparseDegree*float64(n)
}

// moreTries is the number of times every rank maps the coarsest graph
// again (initial): once on roads, but not where strongHM. Roads (mean
// degree below sparseDegree) refine their coarsest mapping by little on
// the levels, so the coarsest tries decide J: FLA's seed 1 at P=2 took
// its best rank's 34,953 to 32,610 with the default preset's second
// round, 1.162x map -t 2's J. Not under the strong preset, whose one
// mapping already spends its budget on tries and seeds: a second one
// cost 1.5-1.9x the CPU of a P=2 run for J -0.7% to -1.1% (cal x7 and
// TG x8, seeds 1-2; luxembourg_osm x2 unchanged; the review of stop 45);
// nor where the first round mapped with strong's HM.
func moreTries(opt Options, roads, strongHM bool) int {
	if roads && opt.Preset != gpumap.Strong && !strongHM {
		return 1
	}
	return 0
}

// refineLevel refines the mapping pe (local vertices, then ghosts) of
// level i, fine, as mapLevels refines a level of degrees that are not
// skewed, and the V-cycle its levels: the Jet loop, or label propagation
// where the level enters above Lmax, then FM, with seeds drawn from
// seed. tag prefixes the steps it traces and the phases it ends ("level
// i jet" or "lp", then "fm"; the V-cycle's "vjet", "vlp", "vfm").
// roads says that the input's mean degree is below sparseDegree.
// Collective.
func refineLevel(fine *Graph, top *topology.Topology, pe []int32, lmax int64, seed uint64, i int, opt Options, tag string, roads bool) error {
	// Not on a coarse level that enters above Lmax (its heavy
	// vertices may not fit; mapLevels balances level 0): where no
	// mapping is balanced Jet keeps the least overloaded one at any
	// J, for an excess that stays (rgg with vertex weights 1-9 at
	// eps 0, P=3: the coarsest level's J 552,853 -> 928,054 for a
	// heaviest PE 5,448 -> 5,286 against Lmax 5,210; the whole
	// mapping 927,070 against 585,478 with label propagation
	// there). Label propagation, which never raises the excess,
	// refines such a level as before.
	//
	// On the input's level the loop stops after 4 iterations without
	// progress, not 12: there it moved nothing on a 100^3 grid, rgg
	// 2^20 (seed 3) or FLA at P=2 (the same J with 4, seed 1; the 3D
	// grid's seed 21 too) and took 0.2-0.45 s of their 2.8-3.3 s wall
	// (idle; 12 iterations put the grid at 1.10-1.33x map -t 2's
	// wall), while the coarse levels had done the work; finan512 x2
	// kept most of its gain (seeds 1 and 21: J 228,231 -> 231,267 and
	// 224,973 -> 226,102).
	//
	// On roads level 1 stops after 4 too (issue 24, distwall2): their
	// coarsest mapping decides J, and the loop's last 8 iterations
	// there were a third of NE's Jet CPU and half of NW's at P=2 (seed
	// 1, 2 alternating runs without MPI waits: NE 0.30-0.34 -> 0.21-0.30
	// s a rank, NW 0.23-0.34 -> 0.12-0.13 s) for J 0.999x (NE, NW, FLA,
	// COL, seeds 1-4, P=2 and 4: 0.986-1.003, 17 of 32 the same). Not
	// on meshes, whose levels refine J more: 6 iterations on every
	// level lost J on finan512 x2 (1.052x at P=4).
	jc := refinement.JetConfig{Seed: seed ^ uint64(i)*0x51}
	if i == 0 || roads && i == 1 {
		jc.Iterations = 4
	}
	ran, err := runJet(fine, top, pe, lmax, jc, i == 0)
	if err != nil {
		return err
	}
	step := tag + "jet"
	if !ran {
		step = tag + "lp"
		if err := refine(fine, top, pe, lmax, refineRounds, seed, i); err != nil {
			return err
		}
	}
	if err := opt.Phases.Done(fmt.Sprintf("level %d %s", i, step)); err != nil {
		return err
	}
	if err := trace(fine, top, pe, opt, i, step); err != nil {
		return err
	}
	// FM after Jet: it makes the moves that pay only after others,
	// which Jet's label propagation cannot (finan512 x2, seed 21,
	// P=2: level 1 277,635 -> 267,974, the input 229,188 -> 224,973).
	cfg := fmConfig
	cfg.Seed = seed ^ uint64(i)<<40 ^ uint64(fine.rank)
	if _, err := localFM(fine, localGraph(fine), top, pe, lmax, cfg); err != nil {
		return err
	}
	if err := opt.Phases.Done(fmt.Sprintf("level %d %sfm", i, tag)); err != nil {
		return err
	}
	return trace(fine, top, pe, opt, i, tag+"fm")
}

// evaluate computes the metrics of the mapping pe (local vertices and
// ghosts) of g exactly as graph.Evaluate does for the whole graph.
func evaluate(g *Graph, top *topology.Topology, pe []int32, eps float64) (graph.Metrics, error) {
	k, n, L := top.K(), g.N(), top.Levels()
	labels := top.Labels()
	// J, cut, cut per level, then the loads of the k PEs.
	sums := make([]int64, 2+L+k)
	var bad error
	for v := range n {
		p := pe[v]
		sums[2+L+int(p)] += g.VW[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			q := pe[g.Adj[e]]
			if q == p {
				continue
			}
			w := g.W(e)
			d := top.LabelDistance(labels[p], labels[q])
			if w > 0 && d > (math.MaxInt64-sums[0])/w {
				bad = errors.New("J overflows int64")
			}
			sums[0] += w * d
			sums[1] += w
			for i := range top.CommonLevel(int(p), int(q)) {
				sums[2+i] += w
			}
		}
	}
	if err := agree(g.c, bad); err != nil {
		return graph.Metrics{}, err
	}
	if err := mpi.Allreduce(g.c, sums, mpi.Sum); err != nil {
		return graph.Metrics{}, err
	}
	// Every edge was counted from both ends.
	m := graph.Metrics{J: sums[0] / 2, Cut: sums[1] / 2, CutPerLevel: make([]int64, L)}
	for i := range L {
		m.CutPerLevel[i] = sums[2+i] / 2
	}
	var total int64
	for _, x := range sums[2+L:] {
		m.MaxBlock = max(m.MaxBlock, x)
		total += x
	}
	m.Lmax = graph.Lmax(total, k, eps)
	if total > 0 {
		m.Imbalance = float64(m.MaxBlock)/(float64(total)/float64(k)) - 1
	}
	m.Feasible = m.MaxBlock <= m.Lmax
	return m, nil
}
