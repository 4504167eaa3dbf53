package partition

import (
	"math"
	"sync"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// Config sets the partitioner's effort.
type Config struct {
	Seed      uint64
	Tries     int                 // greedy-growing starts per flat bisection (0: 4)
	FlatSize  int                 // graphs up to this size are bisected without coarsening (0: 160)
	CoarsenC  int                 // multilevel k-way coarsens to about CoarsenC*k vertices (0: 30)
	Recursive bool                // recursive multilevel bisection instead of multilevel k-way
	LPRounds  int                 // label propagation rounds before FM on each level (0: none)
	FM        refinement.FMConfig // k-way FM on every level
	// FlatMinImprove, when > 0, ends the FM rounds of a flat bisection's
	// try once one lowers the cut by less than this fraction (0: they go
	// on, up to FlatRounds, while they gain anything).
	FlatMinImprove float64
	FMRounds       int // 0: FM's default; -1: no FM
	FineFMRounds   int // FM rounds on the finest level (0: FMRounds)
	// LevelGrowth: on the way up, FM refines a level only when it has at
	// least LevelGrowth times the vertices of the last level FM refined
	// (the input always; see thinLevels). 0 or 1: every level (1.5 cost
	// HM's J +1.7% on an R-MAT graph of 2^11 vertices, so the default
	// preset sets it only with StallShrink).
	LevelGrowth float64
	// StallShrink, when > 0, lets LevelGrowth thin a hierarchy only where
	// coarsening stalled: its levels shrink the graph by a mean factor
	// per level, (coarsest/n)^(1/levels), of at least StallShrink (see
	// thinLevels). Where the levels halve the graph, FM refines every
	// level as before.
	StallShrink float64
	// Stall: on graphs of 2048+ vertices, a level whose matching keeps
	// more than Stall of the vertices is clustered by label propagation
	// instead (coarsening.Config.Stall; 0: matching only).
	Stall float64
	// Attach: the levels' matchings hand every vertex they left alone
	// to a neighbouring pair (coarsening.Config.Attach).
	Attach  bool
	Matcher coarsening.Matcher // matching algorithm
	Natural bool               // natural-order matching (see coarsening.Greedy)
	Local   bool               // the numbering has locality: alternate natural and random order across hierarchies
	// Hierarchies x Candidates partitions compete in the multilevel
	// scheme; all are refined up to graphs of n/PruneDiv vertices, and the
	// best continues (see multilevel).
	Hierarchies, Candidates, PruneDiv int
	// Pair, when Rounds > 0, runs two-way FM between adjacent blocks
	// (refinement.PairFM) after FM on every level and in the flat
	// bisections: it moves vertices at exact balance, where FM's single
	// moves stall (FMRounds -1 leaves FM out of the levels).
	Pair refinement.PairFMConfig
	// Flow, when Rounds > 0, runs flow-based refinement on pairs of
	// adjacent blocks (refinement.Flows) after FM and pair FM on the
	// finest level (the input graph of the multilevel scheme, and the
	// k-way pass over a recursive bisection), and with FlowCoarse on the
	// coarse levels too. Its work counts into FM.Work.
	Flow       refinement.FlowConfig
	FlowCoarse bool
	// Levels, when set, is the hierarchy Coarsen or CoarsenExact built
	// for g, the same limits and this configuration but perhaps another
	// Seed (SharedCoarsening true): the multilevel scheme uses it instead
	// of coarsening again, so tries that differ only in Seed can share one
	// (the same partition as without it where CoarsenExact reported true).
	Levels *Hierarchy
	// Pause, when set, stops the multilevel scheme before g's own level
	// (see Paused): Partition then returns nil. Where Partition coarsens
	// nothing it returns the partition and leaves Pause as it was.
	Pause *Paused
}

func (c Config) withDefaults() Config {
	if c.Tries == 0 {
		c.Tries = 4
	}
	if c.FlatSize == 0 {
		c.FlatSize = 160
	}
	if c.CoarsenC == 0 {
		c.CoarsenC = 30
	}
	return c
}

// Partition splits g into len(maxW) blocks, block b weighing at most
// maxW[b] when that is achievable, minimising the edge cut. Block weights
// are aimed in proportion to the limits.
func Partition(x *par.Exec, g *graph.Graph, maxW []int64, cfg Config) []int32 {
	cfg = cfg.withDefaults()
	shared, pause := cfg.Levels, cfg.Pause
	cfg.Levels, cfg.Pause = nil, nil // for g only, not for the graphs below
	k := len(maxW)
	part := make([]int32, g.N())
	if k <= 1 || g.N() == 0 {
		return part
	}
	switch {
	case g.N() <= cfg.FlatSize && k == 2:
		return flatBisect(g, [2]int64{maxW[0], maxW[1]}, cfg.Tries, cfg.FM, cfg.FlatMinImprove, cfg.Pair, cfg.Seed)
	case g.N() <= cfg.FlatSize || cfg.Recursive && k > 2:
		part = recursiveBisection(x, g, maxW, cfg)
		if !cfg.Recursive {
			// A k-way pass over the bisections' result. Recursive mode
			// skips it: every level would repeat it on the same vertices.
			refine(x, g, part, maxW, cfg, cfg.Seed^0x5eed, false)
		}
		return part
	default:
		return multilevel(x, g, maxW, cfg, shared, pause)
	}
}

// SharedCoarsening reports whether the multilevel partitions of one graph
// under cfg build one hierarchy whose matchings draw nothing from the seed
// (natural-order greedy matching). It does not tell that the hierarchy is
// the same whatever cfg.Seed is: where Attach breaks a tie between two
// pairs, or Stall clusters a level with a tie, the levels come from the
// seed (coarsening.CoarsenSeeded; on the real corpus's sparse graphs the
// attaching decides ties). CoarsenExact tells; Coarsen shares the first
// try's levels regardless.
func SharedCoarsening(g *graph.Graph, maxW []int64, cfg Config) bool {
	cfg = cfg.withDefaults()
	k := len(maxW)
	return k > 1 && g.N() > cfg.FlatSize && !(cfg.Recursive && k > 2) &&
		max(cfg.Hierarchies, 1)*max(cfg.Candidates, 1) == 1 &&
		cfg.Matcher == coarsening.MatchGreedy && (cfg.Natural || cfg.Local)
}

// Hierarchy is a coarsening shared by several multilevel partitions of
// one graph (Config.Levels): each level is dropped once its last user is
// done with it.
type Hierarchy struct {
	mu     sync.Mutex
	levels []coarsening.Level
	users  []int  // per level, the users that have not passed it yet
	turns  *turns // see Turns; nil: none
}

// turns is the state of Hierarchy.Turns.
type turns struct {
	mu      sync.Mutex
	free    int          // turns that nobody holds
	leaders int          // users still to come that keep their turn (Turns)
	queue   []turnWaiter // the users waiting for one, in the order they came
}

type turnWaiter struct {
	level int           // the level it waits to work on
	ready chan struct{} // closed when it gets the turn
}

// Turns makes the partitions that use h side by side take turns: at most
// n of them at once partition the coarsest graph or refine a level, and
// the others wait. Three tries time-sliced on two threads switched every
// few milliseconds, each on the other's caches; in turns a try refines a
// level through on one core. The first n-1 users to come keep their turn
// from the coarsest graph to the finest; the others share the last turn,
// which goes to the one furthest behind (the waiter at the coarsest
// level, the first of them on a tie) and stays with its holder from level
// to level while no waiter is as far behind. At -t 2 one try runs on a
// core of its own and the other two level by level on the other, and
// when the first is done they refine their finest levels side by side,
// all three ending together. Handed round level by level in the order
// the users came, the third try started its finest level only when the
// first had finished its own, and refined most of it alone at the end;
// a try that started late (its goroutine not yet run while the others
// went down the coarse levels) stayed that many levels behind. Only the
// speed depends on it.
func (h *Hierarchy) Turns(n int) {
	n = max(n, 1)
	h.turns = &turns{free: n, leaders: n - 1}
}

// A turnHolder is a user of a hierarchy that holds a turn (Turns); its
// methods do nothing where h has no Turns.
type turnHolder struct {
	t      *turns
	leader bool // keeps the turn to the end
}

// turn waits for a turn to work on level (len(levels): the coarsest
// graph's partition).
func (h *Hierarchy) turn(level int) turnHolder {
	if h == nil || h.turns == nil {
		return turnHolder{}
	}
	t := h.turns
	t.mu.Lock()
	if t.free > 0 {
		t.free--
		leader := t.leaders > 0
		if leader {
			t.leaders--
		}
		t.mu.Unlock()
		return turnHolder{t, leader}
	}
	t.wait(level)
	return turnHolder{t: t}
}

// pass is the holder going on to level: a leader keeps its turn, another
// holder keeps it unless a waiter is at a level at least as coarse, which
// gets it then.
func (u turnHolder) pass(level int) {
	t := u.t
	if t == nil || u.leader {
		return
	}
	t.mu.Lock()
	if b := t.behind(); b >= 0 && t.queue[b].level >= level {
		t.handOver(b)
		t.wait(level)
		return
	}
	t.mu.Unlock()
}

// end gives the turn up.
func (u turnHolder) end() {
	t := u.t
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if b := t.behind(); b >= 0 {
		t.handOver(b)
	} else {
		t.free++
	}
}

// wait queues for a turn at level, unlocks t.mu and waits for the turn.
func (t *turns) wait(level int) {
	ready := make(chan struct{})
	t.queue = append(t.queue, turnWaiter{level, ready})
	t.mu.Unlock()
	<-ready
}

// behind is the index of the waiter at the coarsest level (the first of
// them), -1 if none waits.
func (t *turns) behind() int {
	b := -1
	for i, w := range t.queue {
		if b < 0 || w.level > t.queue[b].level {
			b = i
		}
	}
	return b
}

// handOver gives a turn to waiter b.
func (t *turns) handOver(b int) {
	w := t.queue[b]
	t.queue = append(t.queue[:b], t.queue[b+1:]...)
	close(w.ready)
}

// Coarsen builds the hierarchy that Partition's multilevel scheme builds
// for g, maxW and cfg (its first one; see SharedCoarsening), for the given
// number of partitions to share. A partition whose configuration differs
// from cfg only in Seed gets cfg's levels, built from cfg.Seed where the
// coarsening draws from it (Attach, Stall): deterministic, but not always
// the partition it would get coarsening on its own (CoarsenExact).
func Coarsen(x *par.Exec, g *graph.Graph, maxW []int64, cfg Config, users int) *Hierarchy {
	cfg = cfg.withDefaults()
	return newHierarchy(coarsening.Coarsen(x, g, coarsenConfig(g, maxW, cfg, 0)), users)
}

// CoarsenExact builds Coarsen's hierarchy and reports whether no choice
// of it came from cfg.Seed (coarsening.CoarsenSeeded): then it is the
// hierarchy of every configuration that differs from cfg only in Seed,
// for users partitions, and sharing it leaves their partitions as they
// are. Otherwise it is cfg's own, for one partition.
func CoarsenExact(x *par.Exec, g *graph.Graph, maxW []int64, cfg Config, users int) (*Hierarchy, bool) {
	cfg = cfg.withDefaults()
	levels, seeded := coarsening.CoarsenSeeded(x, g, coarsenConfig(g, maxW, cfg, 0))
	if seeded {
		users = 1
	}
	return newHierarchy(levels, users), !seeded
}

func newHierarchy(levels []coarsening.Level, users int) *Hierarchy {
	h := &Hierarchy{levels: levels, users: make([]int, len(levels))}
	for i := range h.users {
		h.users[i] = users
	}
	return h
}

// take returns a user's copy of the list of levels.
func (h *Hierarchy) take() []coarsening.Level {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]coarsening.Level(nil), h.levels...)
}

// done tells that one user is finished with level i.
func (h *Hierarchy) done(i int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.users[i]--; h.users[i] == 0 {
		h.levels[i] = coarsening.Level{}
	}
}

// ForIM is c as IM's initial mapping and the wide machines' splits take
// it: matching only, and the FM's work unbounded (Stall and
// FM.WasteWork off: there they cost J, see the default preset; Attach
// off: not measured there).
func (c Config) ForIM() Config {
	c.Stall, c.FM.WasteWork, c.Attach = 0, 0, false
	return c
}

// Stall applies to graphs of at least stallMinN vertices: below it are
// IM's coarsest graphs, whose host mapping clustering changed at J +0.6%
// on the real corpus's fit half.
const stallMinN = 2048

// coarsenConfig is the coarsening of hierarchy h of the multilevel scheme.
func coarsenConfig(g *graph.Graph, maxW []int64, cfg Config, h int) coarsening.Config {
	k := len(maxW)
	total := g.TotalVertexWeight()
	stop := max(cfg.CoarsenC*k, cfg.FlatSize)
	minLimit := slicesMin(maxW)
	// Coarse vertices stay well below a block so the coarsest graph can
	// still be balanced.
	capW := max(g.MaxVertexWeight(), min(3*total/int64(2*stop), minLimit/3))
	seed := cfg.Seed + uint64(h)*0x632be59bd9b4e019
	natural := cfg.Natural || cfg.Local && h%2 == 0
	stall := 0.0
	if g.N() >= stallMinN {
		stall = cfg.Stall
	}
	return coarsening.Config{StopSize: stop, MaxWeight: max(capW, 1), Seed: seed, Matcher: cfg.Matcher, Natural: natural,
		Stall: stall, Attach: cfg.Attach}
}

// multilevel coarsens g to about CoarsenC*k vertices, partitions the
// coarsest graph by recursive bisection and refines on the way back.
//
// With several candidates (Hierarchies x Candidates > 1) it builds
// Hierarchies coarsenings (alternating natural and random matching order
// when Local), starts Candidates initial partitions on each, carries every
// candidate up while the graphs stay below n/PruneDiv vertices, and only
// the best one (by cut there) is refined the rest of the way: diversity at
// the price of coarse levels, which are cheap.
//
// shared, when not nil, is the (only) hierarchy, built by Coarsen.
func multilevel(x *par.Exec, g *graph.Graph, maxW []int64, cfg Config, shared *Hierarchy, pause *Paused) []int32 {
	k := len(maxW)
	hierarchies, candidates := max(cfg.Hierarchies, 1), max(cfg.Candidates, 1)
	prune := g.N()
	if hierarchies*candidates > 1 {
		prune = g.N() / max(cfg.PruneDiv, 1)
	}
	cut := refinement.Cut()
	var best struct {
		levels []coarsening.Level
		noFM   []bool
		part   []int32
		at     int // part is a partition of levels[at].Graph (at == -1: g)
		cost   int64
		excess int64
	}
	best.cost = -1
	var turn turnHolder // of shared (Turns)
	holding := false
	for h := 0; h < hierarchies; h++ {
		cc := coarsenConfig(g, maxW, cfg, h)
		seed := cc.Seed
		var levels []coarsening.Level
		if shared != nil && hierarchies == 1 {
			levels = shared.take()
		} else {
			shared = nil
			levels = coarsening.Coarsen(x, g, cc)
		}
		coarsest := g
		if len(levels) > 0 {
			coarsest = levels[len(levels)-1].Graph
		}
		noFM := thinLevels(levels, g.N(), cfg.LevelGrowth, cfg.StallShrink)
		for c := 0; c < candidates; c++ {
			turn = shared.turn(len(levels))
			cs := seed + uint64(c)*0x9e37
			var part []int32
			if k == 2 {
				// Bisect the coarsest graph directly: it is small, or
				// coarsening stalled and recursing would not shrink it.
				lim := [2]int64{maxW[0], maxW[1]}
				if len(levels) > 0 {
					mv := coarsest.MaxVertexWeight()
					lim[0], lim[1] = lim[0]+mv, lim[1]+mv
				}
				part = flatBisect(coarsest, lim, cfg.Tries, cfg.FM, cfg.FlatMinImprove, cfg.Pair, cs)
			} else {
				sub := cfg
				sub.Seed = cs
				sub.Hierarchies, sub.Candidates = 1, 1 // candidates compete here, not inside
				part = recursiveBisection(x, coarsest, maxW, sub)
				refine(x, coarsest, part, maxW, cfg, cs^uint64(len(levels)), len(levels) > 0)
			}
			at := len(levels) - 1
			for at >= 0 {
				fine := levelGraph(g, levels, at-1)
				if fine.N() > prune && at < len(levels)-1 || hierarchies*candidates == 1 {
					break
				}
				part = uncoarsen(x, fine, levels[at].CMap, part, maxW, cfg, cs^uint64(at), at > 0, noFM[at])
				at--
			}
			if hierarchies*candidates == 1 {
				best.levels, best.noFM, best.part, best.at = levels, noFM, part, at
				holding = true // on to the finer levels
				break
			}
			lg := levelGraph(g, levels, at)
			s := refinement.NewState(lg, k, part, maxW, cut)
			cost, excess := s.Cost(), s.Excess()
			if best.cost < 0 || excess < best.excess || excess == best.excess && cost < best.cost {
				best.levels, best.noFM, best.part, best.at, best.cost, best.excess = levels, noFM, part, at, cost, excess
			}
			turn.end()
		}
	}
	part := best.part
	for at := best.at; at >= 0; at-- {
		fine := levelGraph(g, best.levels, at-1)
		// Only the map is left to use of this level: its graph can go
		// while the finer one is refined.
		cmap, coarse := best.levels[at].CMap, best.levels[at].Graph
		best.levels[at] = coarsening.Level{}
		if shared != nil {
			shared.done(at)
		}
		if at == 0 && pause != nil {
			if holding {
				turn.end() // the paused try is finished later, without turns (finishPaused)
			}
			*pause = Paused{Coarse: coarse, Part: part, g: g, cmap: cmap, maxW: maxW, cfg: cfg, noFM: best.noFM[0]}
			return nil
		}
		if holding {
			turn.pass(at)
		} else {
			turn, holding = shared.turn(at), true
		}
		if shared != nil {
			x.Grow() // threads that the other users of shared left (par.Team)
		}
		part = uncoarsen(x, fine, cmap, part, maxW, cfg, cfg.Seed^uint64(at), at > 0, best.noFM[at])
	}
	if holding {
		turn.end()
	}
	return part
}

// thinLevels marks the levels whose projection FM skips (label
// propagation still runs): walking up from the coarsest graph, which FM
// refines, FM refines the next level that has at least growth times the
// vertices of the last one it refined, and the input always. Where
// coarsening halves the graph every level (meshes, matrices) that is every
// level; where it stalls (an LP model of 80k vertices: 10% fewer vertices
// a level, 50+ levels), FM on every level made the levels' FM work 4-5x
// the input's, each round of it rolling back up to two moves per boundary
// vertex for gains of a few edges. growth <= 1: none skipped. With stall
// > 0, none is skipped either unless the hierarchy as a whole stalled: the
// mean factor by which a level shrinks the n input vertices,
// (coarsest/n)^(1/levels), is at least stall. A hierarchy that halves the
// graph but stalls just above the coarsening's stop (meshes: two or three
// levels of 5-10% near 160 vertices) keeps FM on those cheap levels,
// which saved nothing and changed J by up to 3% either way. The choice
// depends on the level sizes only.
func thinLevels(levels []coarsening.Level, n int, growth, stall float64) []bool {
	skip := make([]bool, len(levels))
	if growth <= 1 || len(levels) == 0 {
		return skip
	}
	if stall > 0 && n > 0 && math.Pow(float64(levels[len(levels)-1].Graph.N())/float64(n), 1/float64(len(levels))) < stall {
		return skip
	}
	last := levels[len(levels)-1].Graph.N()
	for at := len(levels) - 1; at > 0; at-- {
		// Projecting level at refines the graph of level at-1.
		n := levels[at-1].Graph.N()
		if float64(n) < growth*float64(last) {
			skip[at] = true
		} else {
			last = n
		}
	}
	return skip
}

// levelGraph is the graph of level i (-1: the input).
func levelGraph(g *graph.Graph, levels []coarsening.Level, i int) *graph.Graph {
	if i < 0 {
		return g
	}
	return levels[i].Graph
}

// uncoarsen projects part onto the finer graph fine and refines it there.
func uncoarsen(x *par.Exec, fine *graph.Graph, cmap, part []int32, maxW []int64, cfg Config, seed uint64, coarse, noFM bool) []int32 {
	finePart := make([]int32, fine.N())
	coarsening.Project(x, cmap, part, finePart)
	rc := cfg
	if noFM && rc.FMRounds >= 0 {
		rc.FMRounds = -1
	}
	if !coarse && cfg.FineFMRounds != 0 {
		rc.FMRounds = cfg.FineFMRounds
	}
	refine(x, fine, finePart, maxW, rc, seed, coarse)
	return finePart
}

// refine polishes part on one level: rebalance if needed, label
// propagation, then FM. On coarse levels (relax) every limit is raised by
// the heaviest vertex: exact limits cannot be met with coarse vertices, and
// the finest level restores them.
// Refine improves part, a partition of g into len(maxW) blocks of at most
// maxW, in place, as the multilevel scheme refines each level:
// rebalancing where a block is over, cfg.LPRounds of label propagation,
// then cfg's FM (cfg.FMRounds < 0: none), pair FM and flows on the cut.
func Refine(x *par.Exec, g *graph.Graph, part []int32, maxW []int64, cfg Config, seed uint64) {
	refine(x, g, part, maxW, cfg, seed, false)
}

func refine(x *par.Exec, g *graph.Graph, part []int32, maxW []int64, cfg Config, seed uint64, relax bool) {
	if relax {
		mv := g.MaxVertexWeight()
		r := make([]int64, len(maxW))
		for i, w := range maxW {
			r[i] = w + mv
		}
		maxW = r
	}
	s := refinement.NewState(g, len(maxW), part, maxW, refinement.Cut())
	if s.Overloaded() > 0 {
		refinement.Rebalance(s)
	}
	if cfg.LPRounds > 0 {
		refinement.LabelPropagationParallel(x, s, cfg.LPRounds, seed)
	}
	if cfg.FMRounds >= 0 {
		fm := cfg.FM
		fm.Seed = seed
		if cfg.FMRounds > 0 {
			fm.Rounds = cfg.FMRounds
		}
		if len(maxW) == 2 && bisectGlobalFM {
			// Bisections: classic FM passes over the whole boundary.
			fm.Seeds = g.N()
			fm.Alpha = max(fm.Alpha, bisectAlpha)
		}
		refinement.RunFMParallel(x, s, fm, -1)
	}
	if cfg.Pair.Rounds > 0 {
		pc := cfg.Pair
		pc.Seed = seed
		refinement.PairFM(s, pc)
	}
	if cfg.Flow.Rounds > 0 && (!relax || cfg.FlowCoarse) {
		fc := cfg.Flow
		fc.Count = cfg.FM.Work
		refinement.Flows(s, fc)
	}
}

// recursiveBisection splits the blocks [0,k) into halves, bisects g with
// limits that leave the deeper levels their share of the slack (adaptive
// imbalance), and recurses into both sides.
func recursiveBisection(x *par.Exec, g *graph.Graph, maxW []int64, cfg Config) []int32 {
	k := len(maxW)
	part := make([]int32, g.N())
	if k == 1 || g.N() == 0 {
		return part
	}
	k0 := k / 2
	cap0, cap1 := sum(maxW[:k0]), sum(maxW[k0:])
	lim := BisectLimits(g.TotalVertexWeight(), cap0, cap1, k)
	sub := cfg
	sub.Seed = cfg.Seed*0x9e3779b97f4a7c15 + uint64(k)
	bis := Partition(x, g, lim[:], sub)
	if k == 2 {
		return bis
	}
	subs := Split(g, bis, 2)
	ranges := [2][]int64{maxW[:k0], maxW[k0:]}
	side := func(side int, x *par.Exec) {
		if subs[side].G.N() == 0 {
			return
		}
		sc := sub
		sc.Seed += uint64(side + 1)
		sp := Partition(x, subs[side].G, ranges[side], sc)
		off := int32(side * k0)
		for i, v := range subs[side].Global {
			part[v] = sp[i] + off
		}
	}
	if cfg.Recursive && g.N() >= parallelSidesMin {
		// Recursive mode (one-to-one) splits into many parts: the two
		// halves are independent, so they run side by side (each on one
		// thread; the result does not depend on the thread count).
		par.Each(x.Threads(), 2, side)
	} else {
		side(0, x)
		side(1, x)
	}
	return part
}

// parallelSidesMin: recursive bisections of smaller graphs run their two
// halves one after the other (a goroutine costs more than they do).
const parallelSidesMin = 512

func sum(a []int64) int64 {
	var s int64
	for _, x := range a {
		s += x
	}
	return s
}

func slicesMin(a []int64) int64 {
	m := a[0]
	for _, x := range a[1:] {
		m = min(m, x)
	}
	return m
}

var bisectGlobalFM = false
var bisectAlpha = 100

// BisectLimits are the limits of the two halves of a block of weight w
// that recursive bisection splits into k final blocks, where the halves'
// final blocks hold cap0 and cap1 in all: the capacities, tightened by
// the adaptive imbalance of the log2(k) bisections still to come, and
// never less than a perfect split rounded up.
func BisectLimits(w, cap0, cap1 int64, k int) [2]int64 {
	// Remaining depth of the recursion below and including this split.
	depth := math.Ceil(math.Log2(float64(k)))
	f := 1.0
	if w > 0 && cap0+cap1 > w {
		f = math.Pow(float64(cap0+cap1)/float64(w), 1/depth)
	}
	share0 := float64(cap0) / float64(cap0+cap1)
	lim := [2]int64{
		min(cap0, int64(math.Floor(f*float64(w)*share0))),
		min(cap1, int64(math.Floor(f*float64(w)*(1-share0)))),
	}
	lim[0] = max(lim[0], int64(math.Ceil(float64(w)*share0)))
	lim[1] = max(lim[1], int64(math.Ceil(float64(w)*(1-share0))))
	return lim
}
