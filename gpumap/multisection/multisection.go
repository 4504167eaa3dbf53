package multisection

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/kway"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Config controls Map.
type Config struct {
	Eps       float64
	Seed      uint64
	Partition partition.Config
	// SlackDepth shifts the imbalance budget toward the upper levels, whose
	// cut is the most expensive: a split with d levels still to come (this
	// one included) takes the share of the remaining slack that SharedMap's
	// adaptive rule gives for 1+(d-1)*SlackDepth levels. 1 is the rule as
	// published (every level gets an equal share); 0 lets every split take
	// all the slack that is left, so the top split gets all of eps and the
	// splits below it must balance exactly (up to the heaviest vertex).
	SlackDepth float64
	// TopTries runs the split of the whole machine (the most expensive
	// cut) this many times with different seeds and keeps the best.
	TopTries int
	// Top configures the multilevel candidates of the split of the whole
	// machine (Hierarchies, Candidates, PruneDiv of partition.Config).
	TopHierarchies, TopCandidates, TopPruneDiv int
	// Lower, when set (Tries > 0), configures the splits below the top:
	// their cuts cost less, so they may get less effort.
	Lower partition.Config
	// Bottom, when set (Tries > 0), configures the splits into single PEs,
	// whose cut costs least.
	Bottom partition.Config
	// PairFM, when Rounds > 0, refines every split by two-way FM between
	// adjacent children (refinement.PairFM): it works at exact balance,
	// where the partitioner's k-way FM cannot move single vertices.
	PairFM refinement.PairFMConfig
	// VCycles runs this many V-cycles of PairFM after every split (see
	// vcycle); needs PairFM.
	VCycles int
	// Phase, when set, runs the split of the whole machine (f) as a named
	// phase of a progress report.
	Phase func(name string, f func())
	// Wide is the effort on wide mappings.
	Wide WideConfig
	// Ahead, when not nil, is the hierarchy that the split of the whole
	// machine shares among its tries, started by CoarsenAhead. The split
	// takes it only when it is the one it would build.
	Ahead *partition.Ahead
	// AfterTop, when set, sees the split of the whole machine (the first
	// group from the root down with two or more children, on level; part:
	// the child of every vertex) before anything below it runs; when it
	// returns false, Map stops there and returns nil. Not called where that
	// split is into single PEs (level 1).
	AfterTop func(level int, part []int32) bool
	// AfterSecond, when set with AfterTop, sees the splits of the top's
	// children once all of them are done, before anything below them runs:
	// cost is the weight of the edges they cut times their distance
	// (level: the lowest of their levels). When it returns false, Map stops
	// there and returns nil. The splits below wait for the last of the
	// children's splits (a decision on the whole stage, gpumap's duel, can
	// save only what has not run), so the children's subgraphs are held
	// at once, about the graph's size again.
	AfterSecond func(level int, cost int64) bool
	// AfterSecondPart, when set with AfterSecond, sees the splits of the
	// top's children done so far after each of them but the last (done of
	// the top's `of` children, in whatever order they finish): cost, at level, is the sum of
	// their costs, so it never exceeds the cost that AfterSecond would see
	// (no split costs less than nothing). When it returns false, Map stops
	// there and returns nil: the children not yet split are not.
	AfterSecondPart func(level int, cost int64, done, of int) bool
	// Stop, when set, is asked before every split below that one; once it
	// says true, Map returns nil.
	Stop func() bool
	// TopTry, when set, is told which try of the split of the whole
	// machine won (0 where it ran one), before anything below it runs.
	TopTry func(t int)
}

// WideConfig is the effort on wide mappings: k in the thousands and close
// to n (WideConfig.Applies). There the thousands of splits into groups of a
// few vertices each take the time, and the cuts that cost most are made by
// the few splits near the top.
type WideConfig struct {
	// PerPE and MinK: a mapping is wide when n < PerPE*k and k >= MinK
	// (PerPE 0: none is).
	PerPE float64
	MinK  int
	// SecondTries runs every split of the top's children this many times
	// and keeps the lowest cut (there are as many of them as the top has
	// children).
	SecondTries int
	// Fine configures the splits of subgraphs with fewer than
	// FinePerChild vertices per child (when Tries > 0), Mid those with
	// fewer than MidPerChild otherwise: the lower a split, the less its
	// cut costs.
	Fine, Mid                 partition.Config
	FinePerChild, MidPerChild int
	// GrowPEs splits groups into single PEs by greedy growing and swaps
	// (see growPEs) instead of the partitioner: there a PE holds a vertex
	// or two, and a partitioner call per group, by the tens of thousands,
	// cost more than its cut is worth.
	GrowPEs bool
	// GrowSockets, with GrowPEs, maps the groups whose children are
	// groups of single PEs (sockets), below the top's children, by
	// growing and swaps as growPEs maps a group of PEs (each child's
	// capacity: lmax per PE), then each child as growPEs does, instead of
	// a split into the sockets and growChildrenPEs. Only on unit vertex
	// weights (a socket within its capacity then fits its PEs), subgraphs
	// of at most growSocketsMaxN vertices and fewer than FinePerChild
	// per socket.
	GrowSockets bool
	// KWay, when KWayChildren > 0, splits subgraphs into KWayChildren or
	// more children with fewer than MidPerChild vertices each (and at
	// least FinePerChild) by deep multilevel k-way partitioning
	// (kway.Partition) instead of Mid's recursive bisection.
	KWay         kway.Config
	KWayChildren int
	// FlatTries > 0 runs Fine's splits of subgraphs of at most FlatMaxN
	// vertices by kway.Flat, with FlatTries growing tries and Fine's
	// LPRounds, instead of the partitioner.
	FlatTries, FlatMaxN int
	// Truncation of wide machines for integrated mapping (Truncate,
	// MapTop, FillGroups): GroupMin > 0 truncates regular hierarchies
	// below groups of at least GroupMin vertices on average; the graph is
	// coarsened to about CoarsenC vertices per group, coarse vertices
	// weighing at most a group's capacity / CapDiv; the coarsest graph's
	// top split gets TopTries tries, the splits of its children
	// SecondTries, those below them the partitioner Coarse (when
	// Tries > 0), and its slack is shared with TopSlackDepth (see
	// Config.SlackDepth).
	// FineGroupMin, when it cuts fewer levels, adds a finer stage
	// (Stages).
	GroupMin, FineGroupMin, CoarsenC, TopTries int
	CapDiv                                     int64
	Coarse                                     partition.Config
	TopSlackDepth                              float64
	// Split, when Tries > 0, splits the groups into their children where
	// integrated mapping switches stages on a coarse level and the
	// children lie one machine level below the groups: the partitioner
	// maps each group's subgraph (PartitionGroups) instead of
	// FillGroups' greedy growing, and the Jet loop refines the split on
	// every finer level.
	Split partition.Config
	// SkipPEJet leaves out integrated mapping's Jet loop on the whole
	// machine, after the split of the last stage's groups into PEs, where
	// that split keeps every PE within lmax. There, with the PEs one or
	// two vertices each, unconstrained label propagation overloads PEs
	// and rebalancing undoes it: the loop changed no mapping on any wide
	// instance measured, and its rebalancing histograms (k bins per step)
	// were a third of fast's device time.
	SkipPEJet bool
	// CoarseSecondC > 0 splits the top's children on a coarsening of
	// their subgraphs with CoarseSecondC vertices per child (coarseSplit),
	// each finer level refined on the way back as partition.Refine does
	// with CoarseSecond.
	CoarseSecondC int
	CoarseSecond  partition.Config
	// TopPair, when Rounds > 0, refines the split of the whole machine
	// (the best of its tries) by two-way FM between adjacent children
	// (refinement.PairFM, see topPair).
	TopPair refinement.PairFMConfig
}

// Applies reports whether a mapping of n vertices onto k PEs is wide.
func (w WideConfig) Applies(n, k int) bool {
	return w.PerPE > 0 && k >= w.MinK && float64(n) < w.PerPE*float64(k)
}

// Local reports whether g's numbering has locality: most edges join
// vertices whose ids differ by at most 2 sqrt(n) (stencils numbered in rank
// order, most meshes). Natural-order coarsening pays off on such inputs.
func Local(x *par.Exec, g *graph.Graph) bool {
	n := g.N()
	if n == 0 {
		return false
	}
	lim := int32(2 * math.Sqrt(float64(n)))
	near := x.SumInt64(n, func(lo, hi int) int64 {
		var c int64
		for v := lo; v < hi; v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if d := g.Adj[e] - int32(v); d > -lim && d < lim {
					c++
				}
			}
		}
		return c
	})
	return 2*near > int64(len(g.Adj))
}

// Map returns a PE for every vertex of g.
func Map(x *par.Exec, g *graph.Graph, top *topology.Topology, cfg Config) []int32 {
	m := newMapper(x, g, top, cfg)
	pe := make([]int32, g.N())
	global := make([]int32, g.N())
	for i := range global {
		global[i] = int32(i)
	}
	m.rec(x, g, global, top.Root(), pe, nil)
	m.work()
	if m.stopped.Load() {
		return nil
	}
	return pe
}

// CoarsenAhead starts building on x, on a goroutine of its own
// (partition.CoarsenAhead), the hierarchy that the split of the whole
// machine shares among its tries when Map maps g with cfg on more than
// one thread; Map takes it from cfg.Ahead. It builds none when that split
// shares none.
func CoarsenAhead(x *par.Exec, g *graph.Graph, top *topology.Topology, cfg Config) *partition.Ahead {
	return partition.CoarsenAhead(x, g, func() ([]int64, partition.Config, bool) {
		m := newMapper(x, g, top, cfg)
		grp := top.Root()
		maxW, pc, tries, ok := m.splitConfig(g, grp)
		if !ok || !m.sharesHierarchy(g, grp, maxW, pc, tries) {
			return nil, pc, false
		}
		return maxW, m.tryConfig(pc, grp, 0), true
	})
}

func newMapper(x *par.Exec, g *graph.Graph, top *topology.Topology, cfg Config) *mapper {
	total := g.TotalVertexWeight()
	lmax, eps := Slack(g, top.K(), cfg.Eps)
	m := newMapperFor(x, g, top, cfg, total, lmax, eps)
	m.wide = cfg.Wide.Applies(g.N(), top.K())
	if m.wide {
		// Clustering where matching stalls and the FM's bound on
		// fruitless work cost J on wide machines (partition.Config.ForIM).
		m.cfg.Partition, m.cfg.Lower, m.cfg.Bottom = cfg.Partition.ForIM(), cfg.Lower.ForIM(), cfg.Bottom.ForIM()
	}
	return m
}

// Slack returns Lmax of g on k PEs and the imbalance that the splits share
// out. Lmax is rounded up, which grants more slack than eps says; with unit
// weights that slack is usable, so the splits see the real capacity (it
// matters when n is not much larger than k).
func Slack(g *graph.Graph, k int, eps float64) (lmax int64, shared float64) {
	total := g.TotalVertexWeight()
	lmax, shared = graph.Lmax(total, k, eps), eps
	if unitV, _ := g.UnitWeights(); unitV && total > 0 {
		shared = max(eps, float64(lmax)*float64(k)/float64(total)-1)
	}
	return lmax, shared
}

// newMapperFor is a mapper of g onto top for a mapping of total weight
// with PE capacity lmax and the imbalance eps to share out (g may be a
// coarsening of the graph mapped).
func newMapperFor(x *par.Exec, g *graph.Graph, top *topology.Topology, cfg Config, total, lmax int64, eps float64) *mapper {
	m := &mapper{x: x, top: top, cfg: cfg, total: total, lmax: lmax, eps: eps, local: Local(x, g)}
	m.idle = sync.NewCond(&m.mu)
	return m
}

type mapper struct {
	x     *par.Exec
	top   *topology.Topology
	cfg   Config
	total int64
	lmax  int64
	// Sub-problems waiting for a worker, taken last in first out (depth
	// first: few subgraphs exist at a time); busy counts those queued or
	// running.
	mu      sync.Mutex
	idle    *sync.Cond
	pending []func(x *par.Exec)
	busy    int
	local   bool        // the input's numbering has locality
	eps     float64     // imbalance the splits share out
	wide    bool        // cfg.Wide applies
	stopped atomic.Bool // cfg.AfterTop or cfg.Stop stopped the mapping
}

// Limits returns the block limits for splitting a subgraph of weight w that
// lives on group grp into grp's children, following the adaptive imbalance
// rule; depth is the number of splits still to come, this one included.
//
// Every limit allows at least an even share plus the heaviest vertex maxV,
// so that a feasible split exists for any vertex weights (never more than
// the children's capacity, lmax per PE).
func Limits(children []topology.Group, grpSize int, w, total int64, k int, eps float64, depth float64, lmax, maxV int64) []int64 {
	epsP := 0.0
	if w > 0 {
		epsP = math.Pow((1+eps)*float64(grpSize)*float64(total)/(float64(k)*float64(w)), 1/depth) - 1
	}
	epsP = max(epsP, 0)
	maxW := make([]int64, len(children))
	for j, c := range children {
		share := float64(w) * float64(c.Size()) / float64(grpSize)
		lim := int64(math.Floor((1 + epsP) * share * (1 + 1e-12)))
		even := int64(math.Ceil(share * (1 - 1e-12)))
		if maxV > 1 {
			even = int64(math.Floor(share)) + maxV
		}
		lim = max(lim, even)
		maxW[j] = min(lim, lmax*int64(c.Size()))
	}
	return maxW
}

// second collects the splits of the top's children for
// Config.AfterSecond: their cost and the tasks below them, queued once the
// last one is done.
type second struct {
	mu    sync.Mutex
	left  int // top children not yet split (or passed without a split)
	of    int // top children
	level int
	cost  int64
	tasks []func(x *par.Exec)
}

// secondDone records one top child's split (cost at level; level 0: none) and
// its tasks; the last one asks AfterSecond and queues them all or stops.
func (m *mapper) secondDone(s *second, level int, cost int64, tasks []func(x *par.Exec)) {
	s.mu.Lock()
	s.cost += cost
	if level > 0 && (s.level == 0 || level < s.level) {
		s.level = level
	}
	s.tasks = append(s.tasks, tasks...)
	s.left--
	last := s.left == 0
	sl, sc, done := s.level, s.cost, s.of-s.left
	s.mu.Unlock()
	if m.stopped.Load() {
		return
	}
	if !last {
		if level > 0 && m.cfg.AfterSecondPart != nil && !m.cfg.AfterSecondPart(sl, sc, done, s.of) {
			m.stopped.Store(true)
		}
		return
	}
	if s.level > 0 && !m.cfg.AfterSecond(s.level, s.cost) {
		m.stopped.Store(true)
		return
	}
	m.queue(s.tasks)
}

// queue hands tasks to the workers (the last one is taken first).
func (m *mapper) queue(tasks []func(x *par.Exec)) {
	if len(tasks) == 0 {
		return
	}
	m.mu.Lock()
	m.pending = append(m.pending, tasks...)
	m.busy += len(tasks)
	m.mu.Unlock()
	m.idle.Broadcast()
}

// rec maps g, the subgraph of the vertices global, onto grp. sec, when not
// nil, collects the first split of grp's subtree (grp is a top child, or a
// single child on its way down: Config.AfterSecond); rec reports to it once,
// whatever path it takes.
func (m *mapper) rec(x *par.Exec, g *graph.Graph, global []int32, grp topology.Group, pe []int32, sec *second) {
	if sec != nil {
		defer func() {
			if sec != nil { // not reported: no split in this subtree
				m.secondDone(sec, 0, 0, nil)
			}
		}()
	}
	if g.N() == 0 || m.stopped.Load() {
		return
	}
	if m.cfg.Stop != nil && m.cfg.Stop() {
		m.stopped.Store(true)
		return
	}
	if grp.Level == 0 {
		for _, v := range global {
			pe[v] = int32(grp.Lo)
		}
		return
	}
	children := m.top.Children(grp)
	if grp.Level == 1 && oneEach(g, len(children)) {
		// One unit task per PE: every edge inside the socket costs d1
		// whatever the order, so any assignment is optimal.
		for i, v := range global {
			pe[v] = int32(children[i].Lo)
		}
		return
	}
	if len(children) == 1 {
		m.rec(x, g, global, children[0], pe, sec)
		sec = nil // reported below
		return
	}
	if grp.Level == 1 && m.wide && m.cfg.Wide.GrowPEs {
		m.growPEs(g, global, grp, pe)
		return
	}
	if m.growSockets(g, grp) {
		m.growPEs(g, global, grp, pe)
		return
	}
	var part []int32
	if m.coarseSecond(grp) {
		part = m.coarseSplit(x, g, grp)
	} else {
		maxW, pc, tries, _ := m.splitConfig(g, grp)
		part = m.split(x, g, grp, maxW, pc, tries)
	}
	if grp.Lo == 0 && grp.Hi == m.top.K() && grp.Level > 1 && m.cfg.AfterTop != nil && !m.cfg.AfterTop(grp.Level, part) {
		m.stopped.Store(true) // before any task below the root was queued
		return
	}
	var below *second
	if grp.Lo == 0 && grp.Hi == m.top.K() && grp.Level > 1 && m.cfg.AfterTop != nil && m.cfg.AfterSecond != nil {
		below = &second{}
	}
	if grp.Level == 1 {
		for i, v := range global {
			pe[v] = int32(children[part[i]].Lo)
		}
		if sec != nil {
			m.secondDone(sec, grp.Level, m.splitCost(x, g, grp, part), nil)
			sec = nil
		}
		return
	}
	if grp.Level == 2 && m.wide && m.cfg.Wide.GrowPEs {
		if sec != nil { // a split of the top's children: AfterSecond sees it
			m.secondDone(sec, grp.Level, m.splitCost(x, g, grp, part), nil)
			sec = nil
		}
		m.growChildrenPEs(g, global, grp, part, pe)
		return
	}
	// The children's subgraphs are built when their turn comes and dropped
	// when they are done: a worker extracts one when it takes its task.
	blocks := partition.NewBlocksOn(x, g, part, len(children))
	tasks := make([]func(x *par.Exec), 0, len(children))
	for j := range children {
		if blocks.Size(j) == 0 {
			continue
		}
		child := children[j]
		tasks = append(tasks, func(x *par.Exec) {
			if m.stopped.Load() {
				return // the mapping was stopped: no subgraph to build
			}
			sub := blocks.Extract(j)
			gl := make([]int32, len(sub.Global))
			for i, v := range sub.Global {
				gl[i] = global[v]
			}
			m.rec(x, sub.G, gl, child, pe, below)
		})
	}
	// Reversed, the first child is taken first (depth first, in order).
	slices.Reverse(tasks)
	if below != nil {
		below.left, below.of = len(tasks), len(tasks)
	}
	if sec != nil {
		m.secondDone(sec, grp.Level, m.splitCost(x, g, grp, part), tasks)
		sec = nil
		return
	}
	m.queue(tasks)
}

// splitCost is the weight of g's edges that part, a split of g into grp's
// children, cuts, times their distance.
func (m *mapper) splitCost(x *par.Exec, g *graph.Graph, grp topology.Group, part []int32) int64 {
	c := x.SumInt64(g.N(), func(lo, hi int) int64 {
		var c int64
		for v := lo; v < hi; v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if part[v] != part[g.Adj[e]] {
					c += g.W(e)
				}
			}
		}
		return c
	}) / 2
	return c * m.top.Distances()[grp.Level-1]
}

// splitConfig returns the limits, the partitioner's configuration and the
// tries of the split of g into grp's children; false when rec does not
// split g there (one child, one unit task per PE).
func (m *mapper) splitConfig(g *graph.Graph, grp topology.Group) ([]int64, partition.Config, int, bool) {
	children := m.top.Children(grp)
	if grp.Level == 0 || len(children) == 1 || grp.Level == 1 && oneEach(g, len(children)) {
		return nil, partition.Config{}, 0, false
	}
	// grp.Level splits remain, this one included.
	depth := 1 + float64(grp.Level-1)*max(m.cfg.SlackDepth, 0)
	maxW := Limits(children, grp.Size(), g.TotalVertexWeight(), m.total, m.top.K(), m.eps, depth, m.lmax, g.MaxVertexWeight())
	pc := m.cfg.Partition
	tries := max(m.cfg.TopTries, 1)
	if grp.Size() != m.top.K() { // below the first split of the whole machine
		tries = 1
		if m.cfg.Lower.Tries > 0 {
			pc = m.cfg.Lower
		}
		if grp.Level == 1 && m.cfg.Bottom.Tries > 0 {
			pc = m.cfg.Bottom
		}
		if m.wide {
			if grp.Level == m.top.Root().Level-1 {
				tries = max(m.cfg.Wide.SecondTries, 1)
			}
			switch w := m.cfg.Wide; {
			case w.Fine.Tries > 0 && g.N() < w.FinePerChild*len(children):
				pc = w.Fine
			case w.Mid.Tries > 0 && g.N() < w.MidPerChild*len(children):
				pc = w.Mid
			}
		}
	} else {
		pc.Hierarchies, pc.Candidates, pc.PruneDiv = m.cfg.TopHierarchies, m.cfg.TopCandidates, m.cfg.TopPruneDiv
		pc.Local = m.local
	}
	return maxW, pc, tries, true
}

// kwaySplit reports whether the split of g on grp, below the top, into k
// children runs kway.Partition (WideConfig.KWay).
func (m *mapper) kwaySplit(g *graph.Graph, grp topology.Group, k int) bool {
	w := m.cfg.Wide
	return m.wide && w.KWayChildren > 0 && grp.Size() != m.top.K() && k >= w.KWayChildren && g.N() < w.MidPerChild*k &&
		!(w.Fine.Tries > 0 && g.N() < w.FinePerChild*k)
}

// growSockets reports whether rec maps g on grp by growPEs
// (WideConfig.GrowSockets): grp's children are sockets, all of one size
// (improvePEs gives every socket the first one's capacity: on sockets of
// 6, 2 and 4 PEs per group of 32 the mapping of rgg 3k onto 4,608 PEs
// was infeasible, max 11 > lmax 4), grp is neither the first split of
// the machine nor one of its children, arity-1 levels skipped (the
// splits that Config.AfterTop and AfterSecond see stay splits, and
// whether the hooks are set does not change the mapping), g has at most
// growSocketsMaxN vertices, all of weight 1, and fewer than FinePerChild
// per socket (the Fine splits). With more the sockets' cut grew: rgg 20,000 (seed 3) onto
// 6:4:32:4:2 and 12:4:16:8:2 (~20 vertices per socket) +8% and +7%, J
// +0.55% (seeds 0-2) and +0.41% (seed 0), where 4:4:32:8:4, 8:8:16:8:2,
// 6:8:16:8:4 and 4:4:64:8:2 (5-10 per socket) gained 0.1-0.3%.
func (m *mapper) growSockets(g *graph.Graph, grp topology.Group) bool {
	w := m.cfg.Wide
	if !m.wide || !w.GrowPEs || !w.GrowSockets || grp.Level != 2 || g.N() > growSocketsMaxN {
		return false
	}
	children := m.top.Children(grp)
	if g.N() >= w.FinePerChild*len(children) {
		return false
	}
	for _, c := range children[1:] {
		if c.Size() != children[0].Size() {
			return false
		}
	}
	if unit, _ := g.UnitWeights(); !unit {
		return false
	}
	// Two splits of more than one child above grp: the machine's first
	// and its children's.
	splits := 0
	for l := grp.Level + 1; l <= m.top.Levels() && splits < 2; l++ {
		if len(m.top.Children(m.top.GroupOf(l, grp.Lo))) > 1 {
			splits++
		}
	}
	return splits == 2
}

// growSocketsMaxN bounds the subgraphs of GrowSockets: improvePEs checks
// every pair of vertices for a swap. It binds only on groups of more than
// 10 sockets: with 8 (or fewer), fewer than FinePerChild (16) per socket
// is below 128 vertices already. On rgg 100,000 onto 4:8:16:8:8 the
// groups of 32 PEs hold ~98 vertices (above FlatMaxN, so the partitioner
// split them): grown, J -0.04% over seeds 0-2, CPU 0.90-0.95x (3 pairs).
const growSocketsMaxN = 160

// smallFine reports whether the split of g on grp, below the top, into k
// children runs kway.Flat (WideConfig.FlatTries).
func (m *mapper) smallFine(g *graph.Graph, grp topology.Group, k int) bool {
	w := m.cfg.Wide
	return m.wide && w.FlatTries > 0 && g.N() <= w.FlatMaxN && grp.Size() != m.top.K() && w.Fine.Tries > 0 && g.N() < w.FinePerChild*k
}

// tryConfig is the partitioner's configuration for try t of the split of
// grp: its seed, and on local numberings natural-order and random
// matching in turns (each wins on some inputs, and the tries keep the
// better).
func (m *mapper) tryConfig(pc partition.Config, grp topology.Group, t int) partition.Config {
	pc.Seed = m.cfg.Seed*0x9e3779b97f4a7c15 ^ uint64(grp.Lo)<<8 ^ uint64(grp.Level) ^ uint64(t)<<40
	pc.Natural = m.local && t%2 == 0 && pc.Hierarchies <= 1
	return pc
}

// sharesHierarchy reports whether split's tries of g share one multilevel
// hierarchy: several tries on a graph large enough to run them side by
// side, each with a coarsening whose matching does not draw from its seed.
// They share try 0's levels even where its attaching or clustering drew
// from try 0's seed (partition.Coarsen): deterministic, and the mapping
// users have had from graphs of 2^16+ vertices since the tries shared one
// hierarchy, but not the levels the other tries would build alone.
func (m *mapper) sharesHierarchy(g *graph.Graph, grp topology.Group, maxW []int64, pc partition.Config, tries int) bool {
	return g.N() >= refinement.ParallelFMMin && m.seedFreeMatching(g, grp, maxW, pc, tries)
}

// seedFreeMatching reports whether split's tries of g are several, and
// each is a multilevel partition of one hierarchy whose matching draws
// nothing from its seed (partition.SharedCoarsening).
func (m *mapper) seedFreeMatching(g *graph.Graph, grp topology.Group, maxW []int64, pc partition.Config, tries int) bool {
	if tries < 2 {
		return false
	}
	for t := 0; t < tries; t++ {
		if !partition.SharedCoarsening(g, maxW, m.tryConfig(pc, grp, t)) {
			return false
		}
	}
	return true
}

// work runs the queued sub-problems on x.Threads() workers (the caller's
// goroutine among them) until none is queued or running. Sibling blocks
// are independent: each writes only its own vertices' PEs, with seeds
// drawn from its group, so the mapping does not depend on which worker
// ran what, or when. A worker that finds the queue empty waits for the
// splits still running to queue more: a core idles only when every
// sub-problem that exists is taken (before, a goroutine that finished
// its block waited for the caller's next split point to get another).
func (m *mapper) work() {
	// The workers' executors share the threads among the sub-problems
	// running at once (par.Share): two at -t 2 run one thread each, and one
	// left alone takes both from its next level or FM batch on. Each on
	// every thread, the sub-problems' parallel loops oversubscribed the
	// cores and every parallel FM made a searcher (24 bytes per vertex) per
	// thread, to fault in: -t 2 took 10-15% more CPU than -t 1.
	share := par.NewShare(m.x.Threads())
	worker := func() {
		x := share.Member()
		m.mu.Lock()
		for {
			for len(m.pending) == 0 && m.busy > 0 {
				m.idle.Wait()
			}
			if len(m.pending) == 0 {
				m.mu.Unlock()
				return
			}
			t := m.pending[len(m.pending)-1]
			m.pending[len(m.pending)-1] = nil
			m.pending = m.pending[:len(m.pending)-1]
			m.mu.Unlock()
			share.Run(x, t)
			m.mu.Lock()
			if m.busy--; m.busy == 0 {
				m.idle.Broadcast()
			}
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < m.x.Threads(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker()
		}()
	}
	worker()
	wg.Wait()
}

// split partitions g into the children of a group. With several tries
// (the split of the whole machine, and on wide machines its children's)
// the lowest cut wins, the first try on ties: the same result for any
// thread count. Small graphs, with little parallelism inside, run their
// tries side by side; the tries in natural order
// (partition.SharedCoarsening) share the first one's hierarchy where
// partition.CoarsenExact reports it exact (no choice of it came from the
// seed: the levels each would build alone), the others build their own.
// Large ones run them
// side by side too when they share one multilevel hierarchy
// (sharesHierarchy: try 0's, even where it drew from the seed), built once
// on every thread, with the threads shared out among
// the tries, which take turns level by level, no more of them at once than
// threads (partition.Hierarchy.Turns): the sequential stretches of one
// (greedy matching, the coarse levels, FM replays) leave cores to the
// others, a try that finishes
// leaves its threads to the parallel FM of those still running (par.Team),
// and only the tries' refinement state is held more than once; the
// hierarchy may have been built ahead (Config.Ahead). Otherwise they run
// one after the other, each on every thread (one hierarchy in memory at a
// time).
func (m *mapper) split(x *par.Exec, g *graph.Graph, grp topology.Group, maxW []int64, pc partition.Config, tries int) []int32 {
	cut := refinement.Cut()
	tryConfig := func(t int) partition.Config { return m.tryConfig(pc, grp, t) }
	pauses := m.pauses(g, grp, tries)
	one := func(t int, x *par.Exec, levels *partition.Hierarchy) []int32 {
		pc := tryConfig(t)
		pc.Levels = levels
		if pauses != nil {
			pc.Pause = &pauses[t]
		}
		var p []int32
		if m.smallFine(g, grp, len(maxW)) {
			p = kway.Flat(g, maxW, m.cfg.Wide.FlatTries, pc.LPRounds, pc.Seed) // nil: over a limit
		}
		switch {
		case p != nil:
		case m.kwaySplit(g, grp, len(maxW)):
			kc := m.cfg.Wide.KWay
			kc.Seed, kc.Natural = pc.Seed, pc.Natural
			p = kway.Partition(x, g, maxW, kc)
		default:
			p = partition.Partition(x, g, maxW, pc)
		}
		if m.cfg.PairFM.Rounds > 0 {
			st := refinement.NewState(g, len(maxW), p, maxW, cut)
			if st.Overloaded() > 0 {
				refinement.Rebalance(st)
			}
			pf := m.cfg.PairFM
			pf.Seed = pc.Seed
			refinement.PairFM(st, pf)
			for c := 0; c < m.cfg.VCycles; c++ {
				vcycle(x, g, p, maxW, pc.Seed+uint64(c)*0x51ed, pf)
			}
		}
		return p
	}
	run := func() []int32 {
		if tries == 1 {
			if m.cfg.TopTry != nil && grp.Size() == m.top.K() {
				m.cfg.TopTry(0)
			}
			return one(0, x, nil)
		}
		parts := make([][]int32, tries)
		threads := x.Threads()
		if g.N() < refinement.ParallelFMMin {
			// The tries whose matching draws nothing from the seed
			// (partition.SharedCoarsening: natural order) share the
			// first one's hierarchy where no other choice of it came
			// from the seed (the same partitions as coarsening each on
			// its own); the others build their own. On the wide instance
			// (rgg 121k onto 4:8:64:8:6) the top's children's splits run
			// 3 tries, the first and the third in natural order and the
			// second in random order: none shared before.
			levels := make([]*partition.Hierarchy, tries)
			var shared []int
			for t := range tries {
				if partition.SharedCoarsening(g, maxW, tryConfig(t)) {
					shared = append(shared, t)
				}
			}
			if len(shared) >= 2 {
				h, exact := partition.CoarsenExact(x, g, maxW, tryConfig(shared[0]), len(shared))
				levels[shared[0]] = h
				for _, t := range shared[1:] {
					if exact {
						levels[t] = h
					}
				}
			}
			par.Each(threads, tries, func(t int, x *par.Exec) {
				parts[t] = one(t, x, levels[t])
			})
		} else {
			share := m.sharesHierarchy(g, grp, maxW, pc, tries)
			var levels *partition.Hierarchy
			if share {
				var ok bool
				var ahead *partition.Ahead // built for the whole machine's split only
				if grp.Size() == m.top.K() {
					ahead = m.cfg.Ahead
				}
				if levels, ok = ahead.Hierarchy(g, maxW, tryConfig(0), tries); !ok {
					levels = partition.Coarsen(x, g, maxW, tryConfig(0), tries)
				}
			}
			if threads == 1 || !share {
				for t := 0; t < tries; t++ {
					parts[t] = one(t, x, levels)
				}
			} else {
				// A try that finishes leaves its threads to the others;
				// no more tries than threads run at once (Turns).
				team := par.NewTeam(threads, tries)
				levels.Turns(threads)
				var wg sync.WaitGroup
				for t := 0; t < tries; t++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						x := team.Member((threads + t) / tries)
						defer team.Done(x)
						parts[t] = one(t, x, levels)
					}()
				}
				wg.Wait()
			}
		}
		if pauses != nil {
			finishPaused(x, parts, pauses)
		}
		var best []int32
		bestCut, won := int64(-1), 0
		for t, p := range parts {
			if p == nil {
				continue // a paused try that lost (finishPaused)
			}
			if c := cut.CostParallel(x, g, p); best == nil || c < bestCut {
				best, bestCut, won = p, c, t
			}
		}
		if m.cfg.TopTry != nil && grp.Size() == m.top.K() {
			m.cfg.TopTry(won)
		}
		return best
	}
	if m.cfg.Phase != nil && grp.Size() == m.top.K() {
		var part []int32
		m.cfg.Phase("split top", func() { part = m.topPair(g, grp, maxW, run()) })
		return part
	}
	return m.topPair(g, grp, maxW, run())
}

// pauses returns the pause records of the tries of the split of g on grp
// when they compete before the input graph's level
// (partition.Config.Pause, finishPaused): the split of the whole machine
// of a wide mapping, with more than one try and no PairFM after each
// (Config.PairFM), on graphs of at least refinement.ParallelFMMin
// vertices; nil otherwise. On smaller graphs the input graph's level
// reordered the tries more often (rgg 6,144 onto 4:8:16:8, seed 2: coarse
// cuts 261, 250, 290, final 210, 215, 240).
func (m *mapper) pauses(g *graph.Graph, grp topology.Group, tries int) []partition.Paused {
	if !pauseTopTries || !m.wide || grp.Size() != m.top.K() || tries < 2 || m.cfg.PairFM.Rounds > 0 ||
		g.N() < refinement.ParallelFMMin {
		return nil
	}
	return make([]partition.Paused, tries)
}

// pauseTopTries lets pauses pause the tries (off only in the test that
// compares the mappings with every try finished).
var pauseTopTries = true

// pauseMargin: finishPaused finishes every try whose cut on its coarse
// level is at most 1+pauseMargin times the least. The input graph's level
// reorders tries that close: the true winner's coarse cut was 0.5-1.7%
// above the least on 3 of 12 runs of rgg 69,536 and 80,000 onto 4:8:16:16
// and 4:8:16:8:6, and more than 2% above it on TestPausedTopTries' graph.
const pauseMargin = 0.05

// finishPaused completes the tries that paused before the input graph's
// level (parts[t] nil, pauses[t] set). Where all of them did, only those
// whose cut on their coarse level is within pauseMargin of the least are
// refined on the input graph (the others stay nil, and split keeps the
// least final cut among the finished ones, the first on ties); where some
// did not pause, every one. Finishing every top try instead, the try with
// the least coarse cut won on 20 of 20 runs (rgg 121k and its seed 7
// onto 4:8:64:8:6 at seeds 0-6, grid 46x46x47 and luxembourg_osm at seeds
// 0-2), where the tries' cuts fell by 12-16% on the input graph's level;
// with the margin the five wide instances of DEVELOPERS.md map as before
// at seeds 0-2, and the top split of rgg 121k (seed 1, -t 1) took 144 ms
// of CPU instead of 160-168 (the second try finished, 3.4% above).
func finishPaused(x *par.Exec, parts [][]int32, pauses []partition.Paused) {
	cut := refinement.Cut()
	all := true
	for t, p := range parts {
		all = all && p == nil && pauses[t].Part != nil
	}
	if !all {
		for t, p := range parts {
			if p == nil && pauses[t].Part != nil {
				parts[t] = pauses[t].Finish(x)
			}
		}
		return
	}
	costs := make([]int64, len(pauses))
	least := int64(-1)
	for t := range pauses {
		costs[t] = cut.CostParallel(x, pauses[t].Coarse, pauses[t].Part)
		if least < 0 || costs[t] < least {
			least = costs[t]
		}
	}
	for t := range pauses {
		if float64(costs[t]) <= (1+pauseMargin)*float64(least) {
			parts[t] = pauses[t].Finish(x)
		}
	}
}

// topPair refines part, the split of g on grp, by WideConfig.TopPair when
// g is mapped wide and grp is the whole machine (otherwise it returns part
// as it is). The partitioner's k-way FM leaves moves that only pay as a
// pair of opposite moves between two children: on rgg 121k onto
// 4:8:64:8:6 one round cut the top split's 1,205 edges to 1,200. It runs
// once, on the try that won.
func (m *mapper) topPair(g *graph.Graph, grp topology.Group, maxW []int64, part []int32) []int32 {
	pc := m.cfg.Wide.TopPair
	if !m.wide || pc.Rounds <= 0 || grp.Size() != m.top.K() {
		return part
	}
	st := refinement.NewState(g, len(maxW), part, maxW, refinement.Cut())
	if st.Overloaded() > 0 {
		refinement.Rebalance(st)
	}
	pc.Seed = m.tryConfig(m.cfg.Partition, grp, 0).Seed
	refinement.PairFM(st, pc)
	return part
}

// oneEach reports whether g has exactly k vertices of weight 1.
func oneEach(g *graph.Graph, k int) bool {
	if g.N() != k {
		return false
	}
	for _, w := range g.VW {
		if w != 1 {
			return false
		}
	}
	return true
}
