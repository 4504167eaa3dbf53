package refinement

import (
	"sync"

	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// fm2 is FM specialised to two blocks and the edge cut (RunFM2): a vertex's
// connectivity is two numbers, its weight to block 0 and to block 1, so a
// move adds and subtracts instead of scanning ConnTable's entry lists, and
// a best move is one comparison. It reproduces FM step for step: the same
// seeds and shuffle, the same heap operations with the same (gain, tie)
// keys, the same re-checks, stop rules, rollbacks and stamps, and the same
// counted work (FMConfig.Work, WasteWork: the entries ConnTable would have
// built and updated, a built vertex holding one entry per block it has
// positive weight to), so its partitions, gains and counts are RunFM's
// (TestFM2SameAsFM). The heap is pq's, with the same calls: keys tie
// when two vertices' 32-bit hashes collide at equal gain, and then only
// the same sequence of heap operations pops them in RunFM's order. On
// the real corpus's fit half (9 graphs onto 4:8:2 and 4:8:6, default
// preset, -t 1, 4 pairs each against RunFM's binary) the mapper's CPU
// fell to 0.89x in the geometric mean (0.67-1.13 per pair; 25fv47 onto
// 4:8:6 0.76x, bitcoin 0.84-0.87x, TG 0.95-0.96x), the mappings byte
// for byte the same.
type fm2 struct {
	s      *State
	cfg    FMConfig
	vs     []fm2Vertex // per vertex, what a neighbour's move reads and writes
	gen    uint32
	nbuilt int32
	hub    int64
	work   int64
	heap   *pq.Heap
	rounds
}

// fm2Vertex is what fm2 keeps of a vertex in one record: a move's pass
// over its row reads, for every neighbour, whether it is built, when, its
// two connectivities and its lock, which four arrays (conn, built, order
// and a lock array like FM.lock) held in four cache lines.
type fm2Vertex struct {
	conn  [2]int64 // v's edge weight to block 0 and 1, valid when built
	built uint32   // gen when v's connectivity is built
	order int32    // when v was built in this run (ConnTable's arena offset)
	lock  uint32   // round in which v moved for good (FM.lock's role)
}

var fm2Pool = sync.Pool{New: func() any {
	f := par.NewPrivate[fm2]()
	f.heap = pq.New(0)
	return f
}}

// fm2Applies reports whether RunFM2 reproduces RunFM on s: two blocks
// holding every vertex, the edge cut, no fixed vertices.
func fm2Applies(s *State) bool {
	return s.K == 2 && len(s.BW) == 2 && s.Obj.IsCut() && s.FixedFrom == 0
}

// RunFM2 is RunFM for a bisection under the edge cut (the flat
// bisections' FM), faster and with exactly RunFM's results: the same
// assignment, return value and counted work. Other states go to RunFM.
func RunFM2(s *State, cfg FMConfig, cost int64) int64 {
	if !fm2Applies(s) {
		return RunFM(s, cfg, cost)
	}
	f := fm2Pool.Get().(*fm2)
	f.reset(s, cfg)
	gain := f.run(cost)
	f.s = nil
	fm2Pool.Put(f)
	return gain
}

func (f *fm2) reset(s *State, cfg FMConfig) {
	cfg = withFMDefaults(s, cfg)
	n := s.G.N()
	f.s, f.cfg = s, cfg
	f.heap.Reserve(n)
	f.gen++
	if f.gen == 0 {
		clear(f.vs[:cap(f.vs)])
		f.gen = 1
	}
	// Existing records keep their stamps (older generations and rounds:
	// not built, not locked), new memory is zero.
	if cap(f.vs) < n {
		vs := make([]fm2Vertex, n)
		copy(vs, f.vs)
		f.vs = vs
	}
	f.vs = f.vs[:n]
	f.rounds.reset(n, cfg.Seed)
	f.nbuilt, f.work = 0, 0
	f.hub = hubDegree(s.G)
}

func (f *fm2) frozen(v int32) bool {
	if f.vs[v].built == f.gen {
		return false
	}
	g := f.s.G
	return g.XAdj[v+1]-g.XAdj[v] > f.hub
}

// ensure builds v's connectivity (ConnTable.ensure, frozen vertices
// aside: FM never asks about them).
func (f *fm2) ensure(v int32) {
	x := &f.vs[v]
	if x.built == f.gen {
		return
	}
	g := f.s.G
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	f.work += hi - lo
	x.built = f.gen
	x.order = f.nbuilt
	f.nbuilt++
	part := f.s.Part
	var c [2]int64
	for e := lo; e < hi; e++ {
		c[part[g.Adj[e]]] += g.W(e)
	}
	x.conn = c
}

// best is BestMove for a built vertex: the other block when v has weight
// to it and it can take v within its limit plus slack.
func (f *fm2) best(v int32) (int32, int64) {
	return f.bestOf(v, &f.vs[v].conn)
}

// bestOf is best with v's connectivities c at hand.
func (f *fm2) bestOf(v int32, c *[2]int64) (int32, int64) {
	s := f.s
	p := s.Part[v]
	o := 1 - p
	co := c[o&1]
	if co == 0 || s.BW[o]+s.G.VW[v] > s.MaxW[o]+f.cfg.Slack {
		return -1, 0
	}
	return o, co - c[p&1]
}

func (f *fm2) bestMove(v int32) (int32, int64) {
	f.ensure(v)
	return f.best(v)
}

func (f *fm2) file(v, t int32, g int64) {
	if t < 0 {
		f.heap.Remove(v)
		return
	}
	f.heap.Push(v, g, f.tie(v, f.cfg.Seed))
}

func (f *fm2) consider(v int32) {
	t, g := f.bestMove(v)
	f.file(v, t, g)
}

// move is ConnTable.Move.
func (f *fm2) move(v, to int32) {
	s := f.s
	from := s.Part[v]
	if from == to {
		return
	}
	s.Move(v, to)
	g := s.G
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	f.work += hi - lo
	vs, gen := f.vs, f.gen
	for e := lo; e < hi; e++ {
		x := &vs[g.Adj[e]]
		if x.built != gen {
			continue
		}
		if w := g.W(e); w != 0 {
			f.work += entries2(x.conn[0], x.conn[1])
			x.conn[from&1] -= w
			x.conn[to&1] += w
		}
	}
}

// moveAndConsider is FM.moveAndConsider. The edge weights' slices are
// read once, not per edge through Graph.W.
func (f *fm2) moveAndConsider(v, to int32) {
	s := f.s
	from := s.Part[v]
	s.Move(v, to)
	g := s.G
	w32, w64 := g.Weights()
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	f.work += hi - lo
	mark, gen, round := f.nbuilt, f.gen, f.round
	vs := f.vs
	for e := lo; e < hi; e++ {
		u := g.Adj[e]
		x := &vs[u]
		if x.built != gen {
			if x.lock != round && !f.frozen(u) {
				f.consider(u)
			}
			continue
		}
		if w := edgeW(w32, w64, e); w != 0 && x.order < mark {
			f.work += entries2(x.conn[0], x.conn[1])
			x.conn[from&1] -= w
			x.conn[to&1] += w
		}
		if x.lock != round {
			t, gain := f.bestOf(u, &x.conn)
			f.file(u, t, gain)
		}
	}
}

// edgeW is Graph.W on the slices of Graph.Weights.
func edgeW(w32 []int32, w64 []int64, e int64) int64 {
	if w32 != nil {
		return int64(w32[e])
	}
	if w64 != nil {
		return w64[e]
	}
	return 1
}

// entries2 is the number of ConnTable entries of a vertex with weights a
// and b to the two blocks.
func entries2(a, b int64) int64 {
	n := int64(0)
	if a > 0 {
		n++
	}
	if b > 0 {
		n++
	}
	return n
}

func (f *fm2) run(cost int64) int64 {
	if f.cfg.Work != nil {
		defer func() { f.cfg.Work.Add(f.work) }()
	}
	return f.rounds.run(&f.cfg, cost, f.round1)
}

func (f *fm2) round1() int64 {
	s := f.s
	n := int32(s.G.N())
	f.round++
	boundary := f.seeds[:0]
	if f.cfg.Active && f.round > f.firstRound {
		g := s.G
		add := func(v int32) {
			if f.stamp[v] != f.round && !f.frozen(v) && s.IsBoundary(v) {
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
	} else if boundary = f.boundaryAfter(s.G, func(v int32) bool { return !f.frozen(v) && s.IsBoundary(v) }); boundary == nil {
		boundary = f.seeds[:0]
		for v := int32(0); v < n; v++ {
			if !f.frozen(v) && s.IsBoundary(v) {
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
	wasted, wlimit := int64(0), int64(-1)
	if f.cfg.WasteWork > 0 {
		wlimit = int64(f.cfg.WasteWork * float64(len(s.G.Adj)))
	}
	for i := 0; i < len(boundary) && (limit < 0 || waste <= limit) && (wlimit < 0 || wasted <= wlimit); {
		f.heap.Clear()
		for c := 0; c < f.cfg.Seeds && i < len(boundary); i++ {
			v := boundary[i]
			if f.vs[v].lock == f.round || f.cfg.SkipExplored && f.explored[v] == f.round {
				continue
			}
			if f.cfg.SeedFilter {
				if t, g := f.bestMove(v); t < 0 || g < f.cfg.SeedMinGain {
					continue
				}
			}
			f.consider(v)
			c++
		}
		if f.heap.Len() > 0 {
			kept := len(f.kept)
			w0 := f.work
			total += f.search()
			if len(f.kept) > kept {
				wasted = 0
			} else {
				wasted += f.work - w0
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
	return total
}

// search is FM.search.
func (f *fm2) search() int64 {
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
		t, gain := f.bestMove(v)
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
		f.vs[v].lock = f.round
		f.moves = append(f.moves, move{v, from})
		cur += gain
		if over <= over0 && (cur > best || over < over0) {
			best, bestLen, fruitless = cur, len(f.moves), 0
			over0 = over
			stop.best()
		} else if fruitless++; stop.step(gain) {
			f.move(v, t)
			break
		}
		f.moveAndConsider(v, t)
	}
	for _, m := range f.moves[:bestLen] {
		f.kept = append(f.kept, m.v)
	}
	f.rolled = len(f.moves) - bestLen
	for i := len(f.moves) - 1; i >= bestLen; i-- {
		v := f.moves[i].v
		f.explored[v] = f.round
		f.move(v, f.moves[i].from)
		if f.retried[v] != f.round {
			f.retried[v] = f.round
			f.vs[v].lock = 0
		}
	}
	f.heap.Clear()
	return best
}
