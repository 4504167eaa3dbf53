package refinement

import (
	"math/rand/v2"
	"slices"

	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// DefaultParallelFMMin is ParallelFMMin's value; gpumap's thread rule
// (gpumap.MappingThreads) starts there too.
const DefaultParallelFMMin = 1 << 16

// ParallelFMMin is the size from which RunFMParallel refines with the
// parallel FM; smaller graphs take the sequential one. It depends on the
// graph only, so the result is the same for any thread count.
var ParallelFMMin = DefaultParallelFMMin

// RunFMParallel refines s like RunFM and returns the cost reduction.
// Graphs of ParallelFMMin vertices or more are refined by localized FM
// searches that run in parallel, in batches: every search of a batch
// starts from one boundary vertex and sees the state the batch started
// from plus its own moves; then, in seed order, each search's best prefix
// is replayed on the shared state and kept as far as it still gains
// (searches rarely meet: they are local and their seeds are spread over
// the boundary). Batches are cut independently of the thread count, and
// the replay is sequential, so the result is the same for any thread
// count. Configurations the batch scheme does not cover (several seeds
// per search, seed filters, active seeding) use the sequential FM.
func RunFMParallel(x *par.Exec, s *State, cfg FMConfig, cost int64) int64 {
	if x == nil || s.G.N() < ParallelFMMin || cfg.Seeds > 1 || cfg.SeedFilter || cfg.Active {
		// RunFM2 is RunFM on bisections under the cut (the partitioner's
		// levels of two blocks), faster; it hands other states to RunFM.
		return RunFM2(s, cfg, cost)
	}
	f := newBatchFM(x, s, cfg)
	defer f.release()
	return f.run(cost)
}

// batchFM is the parallel FM of one state.
type batchFM struct {
	x      *par.Exec
	s      *State
	cfg    FMConfig
	hub    int64
	*marks        // lock, explored, retried, stamp: from a pool, see marks
	round0 uint32 // the round before this run's first (tie counts from it)
	rng    *rand.Rand
	ws     []*searcher // one per worker
	commit *nbhd
	// ct holds the connectivity of the boundary vertices in the shared
	// state, built in parallel at the start of every round and kept up to
	// date by the replays; searches read it instead of building their own.
	ct *ConnTable
	// prev is the last round's boundary (increasing), moves the vertices
	// it moved for good: the next boundary is among them and their
	// neighbours, which is cheaper to look at than the whole graph.
	prev, moves []int32
	tailWork    int64 // entries counted since the last search that kept a move, at a round's end
}

// marks are a batchFM's per-vertex stamps. They go back to a pool with
// the round and mark counters, which keep increasing from run to run, so
// that stale stamps never match and a run on a graph no larger than an
// earlier one need not zero them: on the levels of a partition, made anew
// for every run, they were 16 bytes per vertex to zero and fault in.
type marks struct {
	lock     []uint32 // round in which the vertex moved for good
	explored []uint32 // round in which a search moved the vertex without keeping it
	retried  []uint32 // round in which that happened a first time (the second locks it)
	stamp    []uint32 // scratch for collecting the vertices to build
	round    uint32
	calls    uint32 // boundaryAfter's calls, for its marks in stamp
}

// searcher is one worker's arena: a private view of the state (moved
// vertices, block weight changes, and the connectivity of the vertices the
// search has looked at, built on first use and kept up to date under the
// search's own moves), a heap and scratch, reused by every search the
// worker runs. The view holds the vertices the search looked at (view.go);
// their connectivity entries live in an arena sized to what one search
// touches.
type searcher struct {
	f       *batchFM
	heap    *pq.Heap
	vs      view
	es      []entry // the arena of the view's entries
	dbw     []int64 // block weight changes of this search
	touched []int32 // blocks whose dbw may be non-zero
	moves   []move
	to      []int32
	work    int64 // entries built and updated (FMConfig.Work)
	sink    int64 // what touch read (kept, so that the reads stay)
}

type searchResult struct {
	moves []move // the best prefix: vertex, source block
	to    []int32
	gain  int64
	tried []int32 // vertices moved beyond the prefix
	work  int64   // entries the search counted (built and updated in its view)
}

func newBatchFM(x *par.Exec, s *State, cfg FMConfig) *batchFM {
	cfg = withFMDefaults(s, cfg)
	n := s.G.N()
	f := &batchFM{x: x, s: s, cfg: cfg, hub: hubDegree(s.G),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x70666d)), commit: newNbhd(s.K)}
	f.marks = stamps.get()
	// Rounds stay below 1<<31 (boundaryAfter's marks have that bit).
	if f.marks == nil || cap(f.lock) < n || f.round > 1<<30 || f.calls > 1<<30 {
		f.marks = &marks{}
		// The goroutine that makes a large slice zeroes it and faults its
		// pages in: one per slice, in parallel (see grow).
		a := [...]*[]uint32{&f.lock, &f.explored, &f.retried, &f.stamp}
		x.Each(len(a), func(_, i int) { *a[i] = par.Zeroed[uint32](n) })
	}
	f.lock, f.explored, f.retried, f.stamp = f.lock[:n], f.explored[:n], f.retried[:n], f.stamp[:n]
	f.round0 = f.round
	f.ct = conns.get()
	if f.ct == nil {
		f.ct = par.NewPrivate[ConnTable]()
	}
	f.ct.reset(s)
	f.grow()
	return f
}

// grow gives f one searcher per thread of its executor, which may have
// grown (par.Team). It runs between loops only. The new searchers are
// made side by side, each on a worker: when a searcher's view held 24
// bytes per vertex of the graph (before view.go), to zero and fault in,
// searchers made on the caller's goroutine, one after the other, were the
// longest stretch of the final J refinement that left a core idle (2^20
// grid at -t 2).
func (f *batchFM) grow() {
	k := f.x.Grow()
	if len(f.ws) >= k {
		return
	}
	ws := make([]*searcher, k-len(f.ws))
	f.x.Each(len(ws), func(_, i int) { ws[i] = f.newSearcher() })
	f.ws = append(f.ws, ws...)
}

// newSearcher returns a searcher for f, from the pool where it has one.
func (f *batchFM) newSearcher() *searcher {
	w := searchers.get()
	if w == nil {
		w = par.NewPrivate[searcher]()
		w.heap = pq.New(0)
		w.vs.heap = w.heap
	}
	w.f, w.work = f, 0
	if len(w.dbw) < f.s.K {
		w.dbw = par.Private[int64](f.s.K)
	}
	return w
}

func (f *batchFM) release() {
	f.ct.s = nil
	conns.put(f.ct)
	stamps.put(f.marks)
	f.marks = nil
	for _, w := range f.ws {
		w.f = nil
		searchers.put(w)
	}
	f.ws = nil
}

// withFMDefaults fills the zero fields of cfg as FM.Reset does.
func withFMDefaults(s *State, cfg FMConfig) FMConfig {
	if cfg.Rounds == 0 {
		cfg.Rounds = 8
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 60
	}
	if cfg.Seeds == 0 {
		cfg.Seeds = 1
	}
	if cfg.MinImprove == 0 {
		cfg.MinImprove = 0.0005
	}
	if cfg.Slack == 0 {
		cfg.Slack = s.G.MaxVertexWeight()
	} else if cfg.Slack < 0 {
		cfg.Slack = 0
	}
	return cfg
}

func (f *batchFM) frozen(v int32) bool {
	g := f.s.G
	return g.XAdj[v+1]-g.XAdj[v] > f.hub || f.s.FixedFrom > 0 && v >= f.s.FixedFrom
}

func (f *batchFM) run(cost int64) int64 {
	if f.cfg.Work != nil {
		// Every search's count depends only on the state its batch
		// started from, so the sum over the workers does not depend on
		// which worker ran which search.
		defer func(w0 int64) {
			w := f.ct.work - w0
			for _, s := range f.ws {
				w += s.work
			}
			f.cfg.Work.Add(w)
		}(f.ct.work)
	}
	total := int64(0)
	for r := 0; r < f.cfg.Rounds; r++ {
		gain := f.round1()
		total += gain
		cost -= gain
		if gain <= 0 || cost >= 0 && float64(gain) < f.cfg.MinImprove*float64(cost) {
			break
		}
	}
	return total
}

// boundary lists the boundary vertices that may move, in increasing order.
func (f *batchFM) boundary() []int32 {
	s := f.s
	n := s.G.N()
	if f.prev != nil {
		return f.boundaryAfter()
	}
	parts := make([][]int32, f.x.Chunks(n))
	f.x.For(n, func(c, lo, hi int) {
		var b []int32
		for v := int32(lo); v < int32(hi); v++ {
			if !f.frozen(v) && s.IsBoundary(v) {
				b = append(b, v)
			}
		}
		parts[c] = b
	})
	return slices.Concat(parts...)
}

// boundaryAfter is boundary after a round: a vertex is on the boundary
// now when it was at the round's start or it or a neighbour has moved.
func (f *batchFM) boundaryAfter() []int32 {
	g, s := f.s.G, f.s
	f.calls++
	mark := f.calls | 1<<31 // never a round number (buildAround's marks)
	cand := f.prev
	add := func(u int32) {
		if f.stamp[u] != mark {
			f.stamp[u] = mark
			cand = append(cand, u)
		}
	}
	for _, v := range f.prev {
		f.stamp[v] = mark
	}
	for _, v := range f.moves {
		add(v)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			add(g.Adj[e])
		}
	}
	parts := make([][]int32, f.x.Chunks(len(cand)))
	f.x.For(len(cand), func(c, lo, hi int) {
		var b []int32
		for _, v := range cand[lo:hi] {
			if !f.frozen(v) && s.IsBoundary(v) {
				b = append(b, v)
			}
		}
		parts[c] = b
	})
	all := slices.Concat(parts...)
	slices.Sort(all)
	return all
}

// searchGrain is the number of searches a worker takes at a time.
const searchGrain = 4

func (f *batchFM) round1() int64 {
	f.round++
	seeds := f.boundary()
	f.prev = append(f.prev[:0], seeds...)
	f.moves = f.moves[:0]
	if f.cfg.FilterLarge {
		// The seeds' own entries decide; only the kept ones' neighbours
		// are built then.
		f.ct.BuildAll(f.x, seeds)
		seeds = f.promising(seeds)
	}
	f.buildAround(seeds)
	f.rng.Shuffle(len(seeds), func(i, j int) { seeds[i], seeds[j] = seeds[j], seeds[i] })
	batch := min(max(len(seeds)/256, 8), 256)
	results := make([]searchResult, batch)
	total := int64(0)
	// WasteWork as in the sequential FM, counted in seed order at the
	// replay: a search's count depends only on the state its batch started
	// from, the replays' on the replays before them, so where the round
	// ends does not depend on the thread count. It ends after the batch in
	// which the bound is passed: that batch's searches have run, and
	// replaying them costs little next to them.
	wasted, wlimit := int64(0), int64(-1)
	if f.cfg.WasteWork > 0 {
		wlimit = int64(f.cfg.WasteWork * float64(len(f.s.G.Adj)))
	}
	for lo := 0; lo < len(seeds) && (wlimit < 0 || wasted <= wlimit); lo += batch {
		bs := seeds[lo:min(lo+batch, len(seeds))]
		f.grow() // threads that another try of the split left (par.Team)
		// A few searches per task: a task per search made the workers
		// take turns on Each's counter and on the results' cache lines.
		f.x.Each((len(bs)+searchGrain-1)/searchGrain, func(worker, t int) {
			for i := t * searchGrain; i < min(t*searchGrain+searchGrain, len(bs)); i++ {
				if v := bs[i]; f.lock[v] != f.round && !(f.cfg.SkipExplored && f.explored[v] == f.round) {
					results[i] = f.ws[worker].search(v)
				}
			}
		})
		for i := range bs {
			w0 := f.ct.work
			gain, kept, work := f.commitResult(&results[i], bs[i])
			total += gain
			if kept > 0 {
				wasted = 0
			} else {
				wasted += work + f.ct.work - w0
			}
			results[i] = searchResult{}
		}
	}
	f.tailWork = wasted
	return total
}

// promising keeps the seeds whose best move gains at least SeedMinGain on
// the round's starting state (SeedFilter, decided in parallel: the same
// seeds for any thread count).
func (f *batchFM) promising(seeds []int32) []int32 {
	parts := make([][]int32, f.x.Chunks(len(seeds)))
	f.x.For(len(seeds), func(c, lo, hi int) {
		w := f.ws[c]
		w.fresh()
		var keep []int32
		for _, v := range seeds[lo:hi] {
			// The shared entries (BuildAll built the seeds'), read
			// without the searcher's view: on a view not used before,
			// its record of every seed was a page to fault in (the final
			// J pass of a 2^20 grid: 9 ms with the pages in place, 50-90
			// ms without, on either thread count).
			t, gain := int32(-1), int64(0)
			if es, ok := f.ct.Entries(v); ok {
				t, gain = f.bestAmong(v, f.s.Part[v], es, w.dbw)
			} else {
				t, gain = w.bestMove(v, -1)
			}
			if t >= 0 && gain >= f.cfg.SeedMinGain {
				keep = append(keep, v)
			}
		}
		parts[c] = keep
	})
	return slices.Concat(parts...)
}

// buildAround builds the shared entries of the seeds and their
// neighbours, which searches look at most.
func (f *batchFM) buildAround(seeds []int32) {
	g := f.s.G
	stamp := f.round
	var vs []int32
	for _, v := range seeds {
		for e := g.XAdj[v] - 1; e < g.XAdj[v+1]; e++ {
			u := v
			if e >= g.XAdj[v] {
				u = g.Adj[e]
			}
			if f.stamp[u] != stamp {
				f.stamp[u] = stamp
				vs = append(vs, u)
			}
		}
	}
	f.ct.BuildAll(f.x, vs)
}

// tie is the heap's tie-break of v in this round.
func (f *batchFM) tie(v int32) uint32 {
	// The round counts from this run's start: the stamps' counter goes on
	// from the last run that used them.
	r := uint64(f.round - f.round0)
	return uint32((uint64(v)*0x9e3779b97f4a7c15 ^ r*0xbf58476d1ce4e5b9 ^ f.cfg.Seed) >> 32)
}

// build makes v's connectivity entries from its neighbourhood in the view
// and returns its slot.
func (w *searcher) build(v int32) *vslot {
	g := w.f.s.G
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	base := int32(len(w.es))
	es := w.es
	part := w.f.s.Part
	w32, w64 := g.Weights()
	for e := lo; e < hi; e++ {
		wt := int64(1)
		switch {
		case w32 != nil:
			wt = int64(w32[e])
		case w64 != nil:
			wt = w64[e]
		}
		if wt == 0 {
			continue
		}
		u := g.Adj[e]
		b := part[u]
		if x := w.vs.find(u); x != nil && x.blk >= 0 {
			b = x.blk
		}
		i := int(base)
		for ; i < len(es) && es[i].b != b; i++ {
		}
		if i == len(es) {
			es = append(es, entry{b: b})
		}
		es[i].w += wt
	}
	w.work += hi - lo
	n := int32(len(es)) - base
	// Room to grow: v may come to see up to deg(v) blocks.
	for i := int64(n); i < hi-lo; i++ {
		es = append(es, entry{b: -1})
	}
	w.es = es
	x := w.vs.add(v)
	x.off, x.cnt = base, n
	return x
}

// shift updates the built entries x of a neighbour of a vertex that moved
// from block from to block to over an edge of weight wt.
func (w *searcher) shift(x *vslot, from, to int32, wt int64) {
	base := int64(x.off)
	w.work += int64(x.cnt)
	end := shiftEntry(w.es, base, base+int64(x.cnt), from, to, wt)
	x.cnt = int32(end - base)
}

// view returns v's connectivity entries in the searcher's view: its own
// copy when the search changed them, else the shared table's, else built
// from the neighbourhood; and v's block in the view. i is v's slot, which
// stays where it is (build adds no slot for a vertex that has one).
func (w *searcher) view(v, i int32) ([]entry, int32) {
	x := &w.vs.slots[i]
	p := x.blk
	if p < 0 {
		p = w.f.s.Part[v]
	}
	if x.off < 0 {
		if es, ok := w.f.ct.Entries(v); ok {
			return es, p
		}
		x = w.build(v)
	}
	return w.es[x.off : x.off+x.cnt], p
}

// own gives v private entries copied from the shared table (which must
// hold them), with room for deg(v) blocks, and returns the number of its
// slot.
func (w *searcher) own(v int32, shared []entry) int32 {
	g := w.f.s.G
	base := len(w.es)
	end := base + int(g.XAdj[v+1]-g.XAdj[v])
	if end > cap(w.es) {
		es := make([]entry, base, max(2*cap(w.es), end, 1024))
		copy(es, w.es)
		w.es = es
	}
	w.es = w.es[:end]
	es := w.es[base:end]
	for i := range shared { // short lists: a loop beats memmove's call
		es[i] = shared[i]
	}
	i := w.vs.addIndex(v)
	x := &w.vs.slots[i]
	x.off, x.cnt = int32(base), int32(len(shared))
	return i
}

// bestMove is v's best target in the searcher's view (see
// ConnTable.BestMove); i is v's slot, or -1 when v may have none.
func (w *searcher) bestMove(v, i int32) (target int32, gain int64) {
	if i < 0 {
		i = w.vs.addIndex(v)
	}
	es, p := w.view(v, i)
	return w.f.bestAmong(v, p, es, w.dbw)
}

// bestAmong is the best target of v, in block p with the connectivity
// entries es, when each block b weighs dbw[b] more than in the shared
// state.
func (f *batchFM) bestAmong(v, p int32, es []entry, dbw []int64) (target int32, gain int64) {
	s := f.s
	vw := s.G.VW[v]
	slack := f.cfg.Slack
	target = -1
	o := &s.Obj
	costAt := func(b int32) int64 {
		var c int64
		for _, x := range es {
			if x.b != b {
				c += x.w * o.D(b, x.b)
			}
		}
		return c
	}
	var base int64
	if o.IsCut() {
		for _, x := range es {
			if x.b == p {
				base = x.w
			}
		}
	} else {
		base = costAt(p)
	}
	for _, x := range es {
		b := x.b
		bw := s.BW[b] + dbw[b]
		if b == p || bw+vw > s.MaxW[b]+slack {
			continue
		}
		var gn int64
		if o.IsCut() {
			gn = x.w - base
		} else {
			gn = base - costAt(b)
		}
		if target < 0 || gn > gain || gn == gain && bw < s.BW[target]+dbw[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}

// consider puts v into the heap with its best move's gain, or takes it out
// when it has none; i is v's slot, or -1 when v may have none.
func (w *searcher) consider(v, i int32) {
	if i < 0 {
		i = w.vs.addIndex(v)
	}
	t, g := w.bestMove(v, i)
	if t < 0 {
		w.heap.Remove(i)
		return
	}
	w.heap.Push(i, g, w.f.tie(v))
}

// search runs one localized FM search from seed on the batch's view and
// returns its best prefix.
// fresh empties the searcher's view: the shared state as it is.
func (w *searcher) fresh() {
	w.vs.reset()
	w.es = w.es[:0]
}

func (w *searcher) search(seed int32) searchResult {
	f := w.f
	s := f.s
	g := s.G
	w.fresh()
	w0 := w.work
	w.moves, w.to, w.touched = w.moves[:0], w.to[:0], w.touched[:0]
	w.heap.Clear()
	w.consider(seed, -1)
	bw := func(b int32) int64 { return s.BW[b] + w.dbw[b] }
	over0 := 0
	for b := range s.BW {
		if s.BW[b] > s.MaxW[b] {
			over0++
		}
	}
	over := over0
	cur, best, bestLen, fruitless := int64(0), int64(0), 0, 0
	stop := newStopRule(&f.cfg, over0)
	for w.heap.Len() > 0 && fruitless < f.cfg.Alpha {
		// The popped vertex's slot stays where it is until it moves:
		// bestMove adds no slot (v has one).
		it := w.heap.Pop()
		i := it.V
		v := w.vs.slots[i].v
		t, gain := w.bestMove(v, i)
		if t < 0 {
			continue
		}
		if gain < it.Gain && w.heap.Len() > 0 && gain < w.heap.Top().Gain {
			w.heap.Push(i, gain, it.Tie)
			continue
		}
		from := w.vs.slots[i].blk
		if from < 0 {
			from = s.Part[v]
		}
		vw := g.VW[v]
		if bw(from) > s.MaxW[from] && bw(from)-vw <= s.MaxW[from] {
			over--
		}
		if bw(t) <= s.MaxW[t] && bw(t)+vw > s.MaxW[t] {
			over++
		}
		w.dbw[from] -= vw
		w.dbw[t] += vw
		w.touched = append(w.touched, from, t)
		w.vs.slots[i].blk = t
		w.moves = append(w.moves, move{v, from})
		w.to = append(w.to, t)
		cur += gain
		if over <= over0 && (cur > best || over < over0) {
			best, bestLen, fruitless = cur, len(w.moves), 0
			over0 = over
			stop.best()
		} else if fruitless++; stop.step(gain) {
			break
		}
		w.work += g.XAdj[v+1] - g.XAdj[v]
		w.touch(g.Adj[g.XAdj[v]:g.XAdj[v+1]])
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			i := w.vs.index(u)
			if i < 0 || w.vs.slots[i].off < 0 {
				if es, ok := f.ct.Entries(u); ok {
					i = w.own(u, es)
				}
			}
			var x *vslot
			if i >= 0 {
				x = &w.vs.slots[i]
			}
			if x != nil && x.off >= 0 {
				if wt := g.W(e); wt != 0 {
					w.shift(x, from, t, wt)
				}
			}
			if (x == nil || x.blk < 0) && f.lock[u] != f.round && !f.frozen(u) {
				w.consider(u, i)
			}
		}
	}
	w.heap.Clear()
	for _, b := range w.touched {
		w.dbw[b] = 0
	}
	res := searchResult{gain: best, work: w.work - w0}
	if bestLen > 0 {
		res.moves = append([]move(nil), w.moves[:bestLen]...)
		res.to = append([]int32(nil), w.to[:bestLen]...)
	}
	for _, m := range w.moves[bestLen:] {
		res.tried = append(res.tried, m.v)
	}
	return res
}

// touch reads what the loop over a moved vertex's neighbours us will read
// first of each (its shared record and first entry, its lock), in a loop
// short enough for the core to have all of their cache misses in flight
// at once; in the longer loop they came one after the other.
func (w *searcher) touch(us []int32) {
	ct, lock := w.f.ct, w.f.lock
	at, es, gen := ct.at, ct.e, ct.gen
	var s int64
	for _, u := range us {
		x := at[u]
		if x.gen == gen && x.cnt > 0 {
			s += es[x.off].w
		}
		s += int64(lock[u])
	}
	w.sink += s
}

// commitResult applies a search's result; when an earlier search of the
// batch got in its way (the replay ends early or gains less than the
// search found), its moves are undone and the search is run again from the
// same seed on the current state, sequentially. It returns the gain and
// the number of moves kept, and the entries the search (and its second
// run) counted in its view.
func (f *batchFM) commitResult(r *searchResult, seed int32) (int64, int, int64) {
	gain, kept := f.apply(r)
	if len(r.moves) == 0 || gain == r.gain && kept == len(r.moves) {
		return gain, kept, r.work
	}
	for i := kept - 1; i >= 0; i-- {
		m := r.moves[i]
		f.ct.Move(m.v, m.from)
		f.lock[m.v] = 0
	}
	if f.lock[seed] == f.round {
		return 0, 0, r.work
	}
	again := f.ws[0].search(seed)
	gain, kept = f.apply(&again)
	return gain, kept, r.work + again.work
}

// apply replays a search's best prefix on the shared state, keeps the
// prefix that gains most there (without adding overload), undoes the rest,
// and returns the gain kept and the number of moves kept.
func (f *batchFM) apply(r *searchResult) (int64, int) {
	s := f.s
	for _, v := range r.tried {
		f.rolledBack(v)
	}
	if len(r.moves) == 0 {
		return 0, 0
	}
	over0 := s.Overloaded()
	cur, best, bestLen := int64(0), int64(0), 0
	n := 0
	for i, m := range r.moves {
		v, t := m.v, r.to[i]
		// A vertex an earlier search of the batch moved ends the replay.
		if f.lock[v] == f.round || s.Part[v] != m.from || s.BW[t]+s.G.VW[v] > s.MaxW[t]+f.cfg.Slack {
			break
		}
		cur += f.gainOf(v, t)
		f.ct.Move(v, t)
		n++
		if over := s.Overloaded(); over <= over0 && (cur > best || over < over0) {
			best, bestLen = cur, n
			over0 = over
		}
	}
	for i := n - 1; i >= bestLen; i-- {
		m := r.moves[i]
		f.ct.Move(m.v, m.from)
		f.rolledBack(m.v)
	}
	for _, m := range r.moves[:bestLen] {
		f.lock[m.v] = f.round
		f.moves = append(f.moves, m.v)
	}
	return best, bestLen
}

// rolledBack notes that a search moved v without keeping the move: like
// the sequential FM, v starts no more searches this round and may move in
// one more search at most.
func (f *batchFM) rolledBack(v int32) {
	f.explored[v] = f.round
	if f.retried[v] == f.round {
		f.lock[v] = f.round
	} else {
		f.retried[v] = f.round
	}
}

// gainOf is the cost reduction of moving v to t on the shared state.
func (f *batchFM) gainOf(v, t int32) int64 {
	s := f.s
	h := f.commit
	h.reset()
	g := s.G
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		wt := g.W(e)
		if wt == 0 {
			continue
		}
		b := s.Part[g.Adj[e]]
		if h.stamp[b] != h.cur {
			h.stamp[b] = h.cur
			h.conn[b] = 0
			h.blocks = append(h.blocks, b)
		}
		h.conn[b] += wt
	}
	p := s.Part[v]
	if s.Obj.IsCut() {
		return h.connTo(t) - h.connTo(p)
	}
	return h.costAt(&s.Obj, p) - h.costAt(&s.Obj, t)
}
