package refinement

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// FMConfig tunes the localized k-way FM.
type FMConfig struct {
	Rounds     int     // maximal number of rounds (0: 8)
	Alpha      int     // a search stops after this many moves without a new best (0: 60)
	Seeds      int     // boundary vertices that start one search (0: 1)
	MinImprove float64 // stop when a round improves the cost by less than this fraction (0: 0.0005)
	Slack      int64   // temporary overload allowed during a search (< 0: none; 0: heaviest vertex)
	Seed       uint64
	// SeedFilter: a boundary vertex starts a search only if its best move
	// gains at least SeedMinGain (cheaper, a little weaker).
	SeedFilter  bool
	SeedMinGain int64
	// FilterLarge applies the seed filter in the parallel FM only (graphs
	// of ParallelFMMin+ vertices), on the state each round starts from.
	FilterLarge bool
	// SkipExplored: vertices a failed search moved and rolled back do not
	// start searches later in the same round (they may still move).
	SkipExplored bool
	// Active: after the first round, only vertices next to a kept move of
	// the previous round start searches; elsewhere nothing changed.
	Active bool
	// Waste bounds a round's fruitless work: the round ends once the
	// searches since the last one that kept a move have rolled back more
	// than Waste x n moves (at least 4 x Alpha). On graphs where nearly
	// every vertex is on the boundary and no move pays (expanders,
	// stochastic block models) this stops rounds that would make ~Alpha
	// rolled-back moves per boundary vertex; where searches keep moves the
	// count restarts and nothing changes. It applies only to rounds whose
	// boundary holds at least half the vertices: on meshes and geometric
	// graphs the rare gaining search comes after long fruitless runs, and
	// the bound cost 2-4% J at 2^20 vertices. 0: no bound.
	Waste float64
	// WasteWork bounds a round's fruitless work by what it costs: the
	// round ends once the searches since the last one that kept a move
	// have counted more than WasteWork x 2m connectivity entries (the
	// entries of Work: builds, and updates on moves and rollbacks). Unlike
	// Waste it applies whatever the boundary's size, and it charges a
	// rolled-back move by its neighbourhood: on LP models and social
	// graphs, whose moves touch long entry lists and are 99% rolled back,
	// it ends rounds whose gains are spent; on meshes and geometric graphs
	// (about 20 entries a move) the same moves reach it later. The
	// parallel FM (RunFMParallel on graphs of ParallelFMMin+ vertices)
	// counts it in seed order at the replay and ends the round after the
	// batch that passes it, the same for any thread count. <= 0: no bound.
	WasteWork float64
	// StopAlpha and StopBeta end a search before Alpha fruitless moves by
	// the adaptive rule of stopRule: once the gains since its last best
	// have drifted down further than their noise can make up, after at
	// least StopBeta such moves (StopAlpha <= 0: off, searches end after
	// Alpha fruitless moves; StopBeta 0: 3).
	StopAlpha, StopBeta float64
	// Work, when not nil, is charged the run's counted work: the
	// connectivity entries its moves updated and its queries built (a
	// moved vertex's degree plus its built neighbours' entry lists, a
	// built vertex's degree), so a caller can budget by the work done
	// rather than by the graph's size: on hub rows a move costs its whole
	// neighbourhood. The count is the same for any thread count.
	Work *atomic.Int64
}

// FM runs localized k-way Fiduccia–Mattheyses refinement on s: searches
// start from a few boundary vertices, repeatedly move the vertex with the
// best gain (negative gains too) to its best feasible adjacent block, lock
// it and update its neighbours' gains, and finally roll back to the best
// prefix whose blocks are all within their limits. Every vertex moves at
// most once per round. It returns the total cost reduction. A state that
// starts infeasible is left to Rebalance; FM then only accepts prefixes
// that do not add overload.
type FM struct {
	s    *State
	cfg  FMConfig
	ct   *ConnTable
	heap *pq.Heap
	rounds
	lock     []uint32 // round in which the vertex moved for good (fm2 keeps it in fm2Vertex)
	undone   int64    // moves rolled back this run (counted for tests)
	tail     int      // moves rolled back since the last kept one, at a round's end
	tailWork int64    // entries counted since the last search that kept a move, at a round's end
}

// rounds is the round and search bookkeeping that FM and its two-block
// specialisation fm2 share: the stamps (but the lock: fm2 keeps it in its
// per-vertex record), the seeds' shuffle, the rounds' stopping rule, the
// tie hash and the next round's boundary.
type rounds struct {
	retried    []uint32 // round in which the vertex was already given a retry
	explored   []uint32 // round in which a failed search rolled the vertex back
	kept       []int32  // vertices whose moves were kept this round
	prev       []int32  // the last round's boundary of this run (increasing), for the next one's
	stamp      []uint32 // scratch for collecting next round's seeds
	seeds      []int32  // a round's seeds, the buffer reused (BenchmarkFM2 allocs/op 26-62 -> 2)
	firstRound uint32
	round      uint32
	moves      []move
	rolled     int // moves the current search rolled back
	rng        *rand.Rand
	pcg        *rand.PCG
}

type move struct {
	v, from int32
}

// reset sizes the stamps for n vertices and reseeds the shuffle. Round
// stamps keep increasing across resets, so stale entries read as "not
// locked" without clearing.
func (r *rounds) reset(n int, seed uint64) {
	r.retried = growU32(r.retried, n)
	r.explored = growU32(r.explored, n)
	r.stamp = growU32(r.stamp, n)
	r.kept = r.kept[:0]
	if r.rng == nil {
		r.pcg = rand.NewPCG(seed, 0x666d)
		r.rng = rand.New(r.pcg)
	} else {
		r.pcg.Seed(seed, 0x666d)
	}
}

// run runs up to cfg.Rounds rounds (round1) and returns their gain: they
// stop at a round that gains nothing, or, where cost >= 0 (the current
// cost), at one that lowers it by less than cfg.MinImprove of it.
func (r *rounds) run(cfg *FMConfig, cost int64, round1 func() int64) int64 {
	r.firstRound = r.round + 1
	total := int64(0)
	for i := 0; i < cfg.Rounds; i++ {
		gain := round1()
		total += gain
		cost -= gain
		if gain <= 0 || cost >= 0 && float64(gain) < cfg.MinImprove*float64(cost) {
			break
		}
	}
	return total
}

func (r *rounds) tie(v int32, seed uint64) uint32 {
	// The round counts from this run's start: pooled refiners carry their
	// stamps over, and results must not depend on which one was reused.
	d := uint64(r.round - r.firstRound)
	return uint32((uint64(v)*0x9e3779b97f4a7c15 ^ d*0xbf58476d1ce4e5b9 ^ seed) >> 32)
}

// NewFM prepares an FM refiner for s.
func NewFM(s *State, cfg FMConfig) *FM {
	f := newFM()
	f.Reset(s, cfg)
	return f
}

// newFM returns an empty refiner; Reset sizes it for a state.
func newFM() *FM {
	f := par.NewPrivate[FM]()
	f.heap, f.ct = pq.New(0), par.NewPrivate[ConnTable]()
	return f
}

// Reset points the refiner at a new state, reusing its memory: repeated
// refinement of graphs up to the same size allocates nothing.
func (f *FM) Reset(s *State, cfg FMConfig) {
	cfg = withFMDefaults(s, cfg)
	n := s.G.N()
	f.s, f.cfg = s, cfg
	f.heap.Reserve(n)
	f.rounds.reset(n, cfg.Seed)
	f.lock = growU32(f.lock, n)
	f.ct.reset(s)
}

// grow returns a slice of length n, reusing a's memory when it is large
// enough; its contents are unspecified.
func grow[T any](a []T, n int) []T {
	if cap(a) < n {
		return par.Zeroed[T](n)
	}
	return a[:n]
}

// growU32 keeps existing entries when the capacity suffices; new memory is
// zero.
func growU32(a []uint32, n int) []uint32 {
	if cap(a) < n {
		b := par.Zeroed[uint32](n)
		copy(b, a)
		return b
	}
	return a[:n]
}

// Run performs the rounds and returns the cost reduction. cost is the
// current cost, used for the relative stopping rule; pass -1 when it is
// not at hand, and rounds then stop only when one gains nothing.
func (f *FM) Run(cost int64) int64 {
	if f.cfg.Work != nil {
		defer func(w0 int64) { f.cfg.Work.Add(f.ct.work - w0) }(f.ct.work)
	}
	return f.rounds.run(&f.cfg, cost, f.round1)
}

// round1 runs one round of localized searches.
func (f *FM) round1() int64 {
	s := f.s
	n := int32(s.G.N())
	f.round++
	boundary := f.seeds[:0]
	if f.cfg.Active && f.round > f.firstRound {
		// Seeds: the boundary vertices at or next to last round's kept moves.
		g := s.G
		add := func(v int32) {
			if f.stamp[v] != f.round && !f.ct.Frozen(v) && s.IsBoundary(v) {
				f.stamp[v] = f.round
				boundary = append(boundary, v)
			}
		}
		for _, v := range f.kept {
			add(v)
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				add(g.Adj[e])
			}
		}
	} else if boundary = f.boundaryAfter(s.G, func(v int32) bool { return !f.ct.Frozen(v) && s.IsBoundary(v) }); boundary == nil {
		boundary = f.seeds[:0]
		for v := int32(0); v < n; v++ {
			if !f.ct.Frozen(v) && s.IsBoundary(v) {
				boundary = append(boundary, v)
			}
		}
	}
	f.seeds = boundary
	f.prev = append(f.prev[:0], boundary...)
	f.kept = f.kept[:0]
	f.rng.Shuffle(len(boundary), func(i, j int) { boundary[i], boundary[j] = boundary[j], boundary[i] })
	total := int64(0)
	limit := -1
	if f.cfg.Waste > 0 && 2*len(boundary) >= int(n) {
		limit = max(int(f.cfg.Waste*float64(n)), 4*f.cfg.Alpha)
	}
	waste := 0
	// Entries counted since the last search that kept a move (WasteWork).
	wasted, wlimit := int64(0), int64(-1)
	if f.cfg.WasteWork > 0 {
		wlimit = int64(f.cfg.WasteWork * float64(len(s.G.Adj)))
	}
	for i := 0; i < len(boundary) && (limit < 0 || waste <= limit) && (wlimit < 0 || wasted <= wlimit); {
		f.heap.Clear()
		for c := 0; c < f.cfg.Seeds && i < len(boundary); i++ {
			v := boundary[i]
			if f.lock[v] == f.round || f.cfg.SkipExplored && f.explored[v] == f.round {
				continue
			}
			if f.cfg.SeedFilter {
				if t, g := f.ct.BestMove(v, f.cfg.Slack); t < 0 || g < f.cfg.SeedMinGain {
					continue
				}
			}
			f.consider(v)
			c++
		}
		if f.heap.Len() > 0 {
			kept := len(f.kept)
			w0 := f.ct.work
			total += f.search()
			if len(f.kept) > kept {
				wasted = 0
			} else {
				wasted += f.ct.work - w0
			}
			if limit >= 0 {
				if len(f.kept) > kept {
					waste = 0
				} else {
					waste += f.rolled
				}
			}
		}
	}
	f.tail, f.tailWork = waste, wasted
	return total
}

// boundaryAfter is the boundary after a round of this run, in increasing
// order: a vertex can have joined or left it only if it or a neighbour
// moved for good (rolled-back moves restore the assignment), so the last
// round's boundary, its kept moves and their neighbours hold it. On
// meshes and road networks that is a small part of the graph, which the
// scan of every vertex (and its neighbours) read each round. It returns
// nil in the first round, and where those candidates are not much fewer
// than the vertices (sorting them would cost more than the scan). seed
// reports whether a vertex is a search seed (unfrozen, on the boundary).
func (r *rounds) boundaryAfter(g *graph.Graph, seed func(v int32) bool) []int32 {
	if r.round == r.firstRound {
		return nil
	}
	n := g.N()
	cand := len(r.prev)
	for _, v := range r.kept {
		cand += 1 + int(g.XAdj[v+1]-g.XAdj[v])
	}
	if cand > n/8 {
		return nil
	}
	b := r.seeds[:0]
	add := func(v int32) {
		if r.stamp[v] != r.round {
			r.stamp[v] = r.round
			if seed(v) {
				b = append(b, v)
			}
		}
	}
	for _, v := range r.prev {
		add(v)
	}
	for _, v := range r.kept {
		add(v)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			add(g.Adj[e])
		}
	}
	if len(b) == 0 {
		return nil // as the scan would find: round1 scans
	}
	slices.Sort(b)
	return b
}

// consider (re)computes v's best move and files it in the heap.
func (f *FM) consider(v int32) {
	t, g := f.ct.BestMove(v, f.cfg.Slack)
	f.file(v, t, g)
}

// file files v's best move (target t, gain g; t < 0: none) in the heap.
// The target is not kept: search recomputes a popped vertex's move (the
// block weights change under it), so a per-vertex target array was
// written on every filing and never read.
func (f *FM) file(v, t int32, g int64) {
	if t < 0 {
		f.heap.Remove(v)
		return
	}
	f.heap.Push(v, g, f.tie(v, f.cfg.Seed))
}

// moveAndConsider moves v to block to, which is not v's (ConnTable.Move),
// and reconsiders v's unlocked, unfrozen neighbours in the same pass over
// its row: on dense graphs a move updates and reconsiders ~deg
// neighbours, and the second pass re-read the row and every neighbour's
// record (BenchmarkPartitionDense: CPU 0.94x with bestCut below). The
// result is that of Move followed by consider on each neighbour in row
// order: a neighbour's best move reads only its own entries (shifted just
// before), the block weights and its block, which the move changed first.
// A neighbour first built by its consider reads the new assignment; its
// entries (at mark or above) are not shifted again should it recur.
func (f *FM) moveAndConsider(v, to int32) {
	c := f.ct
	s := c.s
	from := s.Part[v]
	s.Move(v, to)
	g := s.G
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	c.work += hi - lo
	mark, gen, round, cut := c.used, c.gen, f.round, s.Obj.IsCut()
	for e := lo; e < hi; e++ {
		u := g.Adj[e]
		x := &c.at[u]
		if x.gen != gen {
			// Not built (or frozen): consider builds it from scratch.
			if f.lock[u] != round && !c.Frozen(u) {
				f.consider(u)
			}
			continue
		}
		if w := g.W(e); w != 0 && x.off < mark {
			c.shift(x, from, to, w) // after an earlier neighbour's build grew the arena, too
		}
		if f.lock[u] != round {
			if cut {
				// consider, without BestMove's second look-up of u's record.
				t, gain := c.bestCut(u, x.off, x.off+int64(x.cnt), f.cfg.Slack)
				f.file(u, t, gain)
			} else {
				f.consider(u)
			}
		}
	}
}

// search runs one local search from the heap's seeds.
func (f *FM) search() int64 {
	s := f.s
	g := s.G
	f.moves = f.moves[:0]
	over0 := s.Overloaded()
	over := over0
	cur, best, bestLen := int64(0), int64(0), 0
	fruitless := 0
	stop := newStopRule(&f.cfg, over0)
	for f.heap.Len() > 0 && fruitless < f.cfg.Alpha {
		it := f.heap.Pop()
		v := it.V
		// Block weights change under the search: re-check the target.
		t, gain := f.ct.BestMove(v, f.cfg.Slack)
		if t < 0 {
			continue
		}
		if gain < it.Gain && f.heap.Len() > 0 && gain < f.heap.Top().Gain {
			f.heap.Push(v, gain, it.Tie)
			continue
		}
		from := s.Part[v]
		w := g.VW[v]
		if s.BW[from] > s.MaxW[from] && s.BW[from]-w <= s.MaxW[from] {
			over--
		}
		if s.BW[t] <= s.MaxW[t] && s.BW[t]+w > s.MaxW[t] {
			over++
		}
		f.lock[v] = f.round
		f.moves = append(f.moves, move{v, from})
		cur += gain
		if over <= over0 && (cur > best || over < over0) {
			best, bestLen, fruitless = cur, len(f.moves), 0
			over0 = over
			stop.best()
		} else if fruitless++; stop.step(gain) {
			f.ct.Move(v, t)
			break
		}
		f.moveAndConsider(v, t)
	}
	// Undo the moves after the best prefix. Their vertices may serve one
	// more search of this round (never more, which bounds the work).
	for _, m := range f.moves[:bestLen] {
		f.kept = append(f.kept, m.v)
	}
	f.rolled = len(f.moves) - bestLen
	f.undone += int64(f.rolled)
	for i := len(f.moves) - 1; i >= bestLen; i-- {
		v := f.moves[i].v
		f.explored[v] = f.round
		f.ct.Move(v, f.moves[i].from)
		if f.retried[v] != f.round {
			f.retried[v] = f.round
			f.lock[v] = 0
		}
	}
	f.heap.Clear()
	return best
}

var fmPool = sync.Pool{New: func() any { return newFM() }}

// RunFM refines s with an FM refiner from a pool (memory is reused across
// calls, goroutines included) and returns the cost reduction. cost is as
// for Run.
func RunFM(s *State, cfg FMConfig, cost int64) int64 {
	f := fmPool.Get().(*FM)
	f.Reset(s, cfg)
	gain := f.Run(cost)
	f.s, f.ct.s = nil, nil
	fmPool.Put(f)
	return gain
}
