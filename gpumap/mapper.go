package gpumap

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"sync/atomic"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda"
	"github.com/gpumap/gpumap/gpumap/exact"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Result is a mapping and what it costs.
type Result struct {
	PE       []int32       // PE of every vertex
	Metrics  graph.Metrics // J, cut, balance, feasibility
	Phases   []PhaseTime   // wall time per phase
	Backend  string        // where the data-parallel phases ran
	OneToOne bool          // the input was a one-to-one (permutation) instance
}

// Map maps g onto top. The result may be infeasible only when no feasible
// mapping exists (a vertex heavier than Lmax) or, on pathological inputs,
// when rebalancing fails; Metrics.Feasible says which.
func Map(g *graph.Graph, top *topology.Topology, opt Options) (*Result, error) {
	return mapWith(g, top, opt, nil)
}

// duelTeam is the executor of MapDuel's HM on threads threads, which
// takes d.Threads more once d.Freed is closed (a team whose other member
// stands for IM's process).
func duelTeam(threads int, d *Duel) *par.Exec {
	team := par.NewTeam(threads+d.Threads, 2)
	x, im := team.Member(threads), team.Member(d.Threads)
	go func() {
		<-d.Freed
		team.Done(im)
	}()
	return x
}

// mapWith is Map; where d is not nil, Map's HM duels the IM of another
// process (MapDuel), and a stopped HM returns nil, nil.
func mapWith(g *graph.Graph, top *topology.Topology, opt Options, d *Duel) (*Result, error) {
	return mapMetered(g, top, opt, d, nil)
}

// mapMetered is mapWith that adds, where work is not nil, the FM work its
// pipeline counted (pipeline.work) to work once it is done: a caller's
// pipeline that maps parts of its graph by Map (topDownIM) counts their
// work as its own, which strong's budget reads.
func mapMetered(g *graph.Graph, top *topology.Topology, opt Options, d *Duel, work *atomic.Int64) (*Result, error) {
	if err := validate(g, top, opt); err != nil {
		return nil, err
	}
	defer lowerGC(g)()
	defer refinement.Keep()()
	t := &tracker{w: opt.Progress, stats: opt.Stats}
	asked := par.New(opt.Threads).Threads()
	// The rule (MappingThreads) decides for the graph a caller gave. A
	// duel's threads are lent by the caller's processes; a top-down group
	// (work not nil) runs on the threads of the mapping it is part of,
	// which the rule set for the whole graph (or strong kept).
	note := "" // the rule's, where it decided
	if d == nil && work == nil {
		opt.Threads = MappingThreads(g, top, opt)
		note = threadsNote(opt.Threads, asked)
	}
	x := par.New(opt.Threads)
	if d != nil && d.Threads > 0 {
		x = duelTeam(x.Threads(), d)
	}
	k := top.K()
	total := g.TotalVertexWeight()
	res := &Result{Backend: "cpu"}
	res.OneToOne = isOneToOne(g, k, total, opt.Eps)
	// The machine without its arity-1 levels; a regular machine with many
	// more PEs than vertices is mapped onto its first PEs (sparse.go);
	// tiny instances are solved exactly on the whole machine.
	mopt := opt
	tiny := g.N() <= exact.MaxVertices
	mtop, eps, sparse := mappedMachine(g, top, total, opt.Eps)
	switch {
	case sparse:
		t.logf("sparse machine: %d vertices on %d PEs: mapping onto the first %d (%s)", g.N(), k, mtop.K(), mtop)
		mopt.Eps = eps
	case mtop != top:
		t.logf("levels of arity 1 split nothing: mapping onto %s", mtop)
	}
	oneToOne := isOneToOne(g, mtop.K(), total, mopt.Eps)
	alg := opt.Algorithm
	if alg == AutoAlgorithm {
		alg = presetAlgorithm(opt.Preset, oneToOne)
	}
	t.logf("n=%d m=%d k=%d (%s) eps=%g preset=%s algorithm=%s threads=%d%s one-to-one=%v",
		g.N(), g.M(), k, top, opt.Eps, opt.Preset, alg, x.Threads(), note, res.OneToOne)
	p := newPipeline(x, g, mtop, mopt, t)
	b, err := selectBackend(opt, t, g.N(), oneToOne || tiny)
	if err != nil {
		return nil, err
	}
	p.backend = b
	defer func() { p.backend.Close() }() // the pipeline may have replaced it (and closed the first)
	defer p.dropAhead()
	res.Backend = b.Name()
	if _, onCPU := b.(*cpu.Backend); !onCPU && opt.Algorithm == AutoAlgorithm && !oneToOne {
		alg = Integrated // the data-parallel pipeline is what a GPU runs
		// The line above printed the CPU's choice; say what runs.
		switch {
		case p.gpuMeasuresBoth():
			alg = Multisection // and IM beside it (gpuBoth)
			t.logf("algorithm on the GPU: hm and im, the lower J kept (below %d edges)", gpuBothMaxEdges)
		case p.cfg.wide.Applies(p.g.N(), p.top.K()):
			t.logf("algorithm on the GPU: im alone (a wide machine)")
		default:
			t.logf("algorithm on the GPU: im alone (at least %d edges)", gpuBothMaxEdges)
		}
	} else if opt.Algorithm == AutoAlgorithm && !oneToOne && !tiny {
		if p.measuresBoth() {
			alg = Multisection // and IM beside it (measuresBoth)
		} else {
			alg = p.byFeatures()
		}
	}
	runWith := func(p *pipeline, alg Algorithm) []int32 {
		switch {
		case oneToOne:
			return p.oneToOne()
		case alg == Multisection && !onCPU(p.backend):
			return p.gpuMultisection()
		case alg == Multisection:
			return p.multisection()
		default:
			return p.integrated()
		}
	}
	var du *duel
	var wait, quit func()
	if d != nil && alg == Multisection {
		du, wait, quit = p.duelAgainst(d.IM)
	}
	run := func() []int32 { return runWith(p, alg) }
	var known *graph.Metrics // the portfolio evaluated its winner already
	if tiny {
		res.PE = p.tiny(run)
	} else if cands := p.candidates(alg, oneToOne); cands != nil {
		res.PE, known = p.runPortfolio(cands, alg, runWith)
	} else {
		res.PE = run()
		t.logf("counted FM work: %d entries", p.work.Load())
	}
	if p.err != nil {
		if quit != nil {
			quit()
		}
		return nil, p.err
	}
	if work != nil {
		work.Add(p.work.Load())
	}
	if du != nil {
		wait()
		if du.stopped.Load() {
			return nil, nil
		}
	}
	res.Backend = p.backend.Name()
	if known != nil && mtop == top { // on a prefix of a sparse machine, the whole machine's metrics
		res.Metrics = *known
	} else {
		t.phase("evaluate", func() { res.Metrics, err = graph.Evaluate(g, top, res.PE, opt.Eps) })
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInternal, err)
		}
	}
	res.Phases = t.phases
	t.logf("J=%d cut=%d maxblock=%d lmax=%d feasible=%v", res.Metrics.J, res.Metrics.Cut,
		res.Metrics.MaxBlock, res.Metrics.Lmax, res.Metrics.Feasible)
	return res, nil
}

func validate(g *graph.Graph, top *topology.Topology, opt Options) error {
	switch {
	case g == nil || g.N() == 0:
		return fmt.Errorf("the graph has no vertices")
	case top == nil:
		return fmt.Errorf("no topology")
	case math.IsNaN(opt.Eps) || math.IsInf(opt.Eps, 0) || opt.Eps < 0:
		return fmt.Errorf("imbalance eps=%v must be a finite number >= 0", opt.Eps)
	case opt.Eps > MaxEps:
		return fmt.Errorf("imbalance eps=%v is absurdly large", opt.Eps)
	case opt.Preset < Fast || opt.Preset > Strong:
		return fmt.Errorf("unknown preset %d", int(opt.Preset))
	case opt.Algorithm < AutoAlgorithm || opt.Algorithm > Multisection:
		return fmt.Errorf("unknown algorithm %d", int(opt.Algorithm))
	case opt.Backend < AutoBackend || opt.Backend > GPU:
		return fmt.Errorf("unknown backend %d", int(opt.Backend))
	case opt.Threads > MaxThreads:
		return fmt.Errorf("thread count %d exceeds %d", opt.Threads, MaxThreads)
	case opt.Threads < 0:
		return fmt.Errorf("thread count %d is negative", opt.Threads)
	}
	where := func(v int32) string { return fmt.Sprintf("vertex %d", v) }
	if err := graph.CheckWeights(g, where); err != nil {
		return err
	}
	return graph.CheckCost(g, top.MaxDistance())
}

// mappedMachine returns the machine that g is mapped onto and the eps
// there: top without its levels of arity 1 (Topology.Squeezed: they split
// nothing, and the mapping onto 4:8:64:8:6:1 was not the one onto
// 4:8:64:8:6), and of that, where it is a sparse machine for g
// (sparse.go), its first PEs (sparse true). The PEs keep their numbers
// and distances, so a mapping onto it is one onto top at the same J. Tiny
// instances are solved exactly on the whole machine.
func mappedMachine(g *graph.Graph, top *topology.Topology, total int64, eps float64) (mtop *topology.Topology, meps float64, sparse bool) {
	mtop = top.Squeezed()
	if g.N() <= exact.MaxVertices {
		return mtop, eps, false
	}
	if r, e, ok := sparseMachine(mtop, g.N(), total, eps); ok {
		return r.Squeezed(), e, true
	}
	return mtop, eps, false
}

// isOneToOne: the weight fills every PE exactly (c(V) = k and Lmax = 1),
// as for n = k unit tasks with a small enough eps. No single move is then
// feasible; the mapping is a permutation (up to zero-weight tasks).
func isOneToOne(g *graph.Graph, k int, total int64, eps float64) bool {
	return total == int64(k) && graph.Lmax(total, k, eps) == 1
}

// presetAlgorithm: on the CPU every preset uses hierarchical multisection,
// which measured both faster and better there (see DEVELOPERS.md); the
// integrated pipeline is what data-parallel backends run.
func presetAlgorithm(Preset, bool) Algorithm {
	return Multisection
}

// MaxThreads is the largest thread count accepted (the result does not
// depend on it; a huge value would only cost memory).
const MaxThreads = 4096

// tinyFallbackPEs: when branch and bound cannot prove a tiny instance
// optimal within its budget, machines up to this size also run the
// heuristic pipeline (and branch and bound from its result); the lower J
// wins.
const tinyFallbackPEs = 1 << 16

// tinyBudget is the node budget of branch and bound on tiny instances.
const tinyBudget = 1 << 21

// tiny maps an instance of at most exact.MaxVertices vertices by branch
// and bound from a greedy placement: its candidates are the occupied PEs
// and one empty PE per level and occupied group, so the time does not
// depend on the number of PEs (4 vertices on -h 2147483647 take
// microseconds). heuristic runs the usual pipeline.
func (p *pipeline) tiny(heuristic func() []int32) []int32 {
	var pe []int32
	var optimal bool
	p.t.phase("exact", func() { pe, optimal = exact.Solve(p.g, p.top, p.lmax, nil, tinyBudget) })
	if optimal {
		p.t.logf("exact: optimal mapping proven by branch and bound")
		return pe
	}
	if p.top.K() > tinyFallbackPEs {
		return pe
	}
	h := heuristic()
	if p.err != nil {
		return nil
	}
	p.t.phase("exact", func() {
		if exact.Improve(p.g, p.top, p.lmax, h, tinyBudget) {
			p.t.logf("exact: optimal mapping proven by branch and bound")
		}
	})
	mh, err1 := graph.Evaluate(p.g, p.top, h, p.opt.Eps)
	mb, err2 := graph.Evaluate(p.g, p.top, pe, p.opt.Eps)
	if err1 != nil || err2 != nil || mb.Feasible && mb.J < mh.J {
		return pe
	}
	return h
}

// GPUMinVertices is the size below which the automatic backend choice
// stays on the CPU without probing for a GPU: creating a CUDA context alone
// takes longer than mapping such a graph on the CPU.
const GPUMinVertices = 100000

// selectBackend opens the backend the options ask for: the GPU when one is
// usable (auto) or required (gpu, failing with ErrNoGPU and the reason
// otherwise), else the CPU. Auto does not probe for small graphs or
// one-to-one instances (which the CPU's exact multisection maps).
func selectBackend(opt Options, t *tracker, n int, oneToOne bool) (backend.Backend, error) {
	switch {
	case opt.Backend == CPU:
		return cpu.New(opt.Threads), nil
	case opt.Backend == AutoBackend && oneToOne:
		t.logf("backend auto: one-to-one mapping runs on the CPU")
		return cpu.New(opt.Threads), nil
	case opt.Backend == AutoBackend && n < GPUMinVertices:
		t.logf("backend auto: %d vertices, fewer than %d: the CPU is faster than starting a GPU", n, GPUMinVertices)
		return cpu.New(opt.Threads), nil
	}
	b, err := cuda.Open()
	if err == nil {
		t.logf("backend: %s", b.Name())
		return b, nil
	}
	if opt.Backend == GPU {
		return nil, fmt.Errorf("backend gpu: %w: %v", ErrNoGPU, err)
	}
	t.logf("backend auto: using the CPU (%v)", err)
	return cpu.New(opt.Threads), nil
}

// mapGCPercent is the garbage collector's growth target while a large
// graph is mapped. The mapper's heap is almost all pointer-free arrays,
// which the collector marks for nothing, so collecting at 25% growth
// instead of Go's default 100% costs little time and keeps the peak heap
// near the live data (rgg 2^20: peak RSS -20%).
const mapGCPercent = 25

// lowerGC sets mapGCPercent for graphs of at least GPUMinVertices
// vertices, unless the program chose its own setting (GOGC, or
// debug.SetGCPercent); the returned function restores the previous one.
func lowerGC(g *graph.Graph) func() {
	if g.N() < GPUMinVertices || os.Getenv("GOGC") != "" {
		return func() {}
	}
	if old := debug.SetGCPercent(mapGCPercent); old != 100 {
		debug.SetGCPercent(old)
		return func() {}
	} else {
		return func() { debug.SetGCPercent(old) }
	}
}
