package refinement

import (
	"math/rand/v2"
)

// FMConfig tunes the localized k-way FM.
type FMConfig struct {
	Rounds     int     // maximal number of rounds (0: 8)
	Alpha      int     // a search stops after this many moves without a new best (0: 60)
	Seeds      int     // boundary vertices that start one search (0: 1)
	MinImprove float64 // stop when a round improves the cost by less than this fraction (0: 0.0005)
	Slack      int64   // temporary overload allowed during a search (< 0: none; 0: heaviest vertex)
	Seed       uint64
	// SeedMinGain: a boundary vertex starts a search only if its best
	// move gains at least this much (math.MinInt64: every boundary vertex).
	SeedMinGain int64
	AllSeeds    bool // ignore SeedMinGain
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
	s       *State
	cfg     FMConfig
	ct      *ConnTable
	heap    *gainHeap
	tgt     []int32
	lock    []uint32 // round in which the vertex moved for good
	retried []uint32 // round in which the vertex was already given a retry
	round   uint32
	moves   []move
	rng     *rand.Rand
}

type move struct {
	v, from int32
}

// NewFM prepares an FM refiner for s.
func NewFM(s *State, cfg FMConfig) *FM {
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
	n := s.G.N()
	return &FM{s: s, cfg: cfg, heap: newGainHeap(n),
		tgt: make([]int32, n), lock: make([]uint32, n), retried: make([]uint32, n),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x666d))}
}

// Run performs the rounds and returns the cost reduction.
func (f *FM) Run(cost int64) int64 {
	f.ct = NewConnTable(f.s)
	total := int64(0)
	for r := 0; r < f.cfg.Rounds; r++ {
		gain := f.round1()
		total += gain
		cost -= gain
		if gain <= 0 || float64(gain) < f.cfg.MinImprove*float64(cost) {
			break
		}
	}
	return total
}

func (f *FM) tie(v int32) uint32 {
	return uint32((uint64(v)*0x9e3779b97f4a7c15 ^ uint64(f.round)*0xbf58476d1ce4e5b9 ^ f.cfg.Seed) >> 32)
}

// round1 runs one round of localized searches.
func (f *FM) round1() int64 {
	s := f.s
	n := int32(s.G.N())
	f.round++
	var boundary []int32
	for v := int32(0); v < n; v++ {
		if !f.ct.Frozen(v) && s.IsBoundary(v) {
			boundary = append(boundary, v)
		}
	}
	f.rng.Shuffle(len(boundary), func(i, j int) { boundary[i], boundary[j] = boundary[j], boundary[i] })
	total := int64(0)
	for i := 0; i < len(boundary); {
		f.heap.clear()
		for c := 0; c < f.cfg.Seeds && i < len(boundary); i++ {
			v := boundary[i]
			if f.lock[v] == f.round {
				continue
			}
			if !f.cfg.AllSeeds {
				if t, g := f.ct.BestMove(v, f.cfg.Slack); t < 0 || g < f.cfg.SeedMinGain {
					continue
				}
			}
			f.consider(v)
			c++
		}
		if f.heap.len() > 0 {
			total += f.search()
		}
	}
	return total
}

// consider (re)computes v's best move and files it in the heap.
func (f *FM) consider(v int32) {
	t, g := f.ct.BestMove(v, f.cfg.Slack)
	if t < 0 {
		f.heap.remove(v)
		return
	}
	f.tgt[v] = t
	f.heap.push(v, g, f.tie(v))
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
	for f.heap.len() > 0 && fruitless < f.cfg.Alpha {
		it := f.heap.pop()
		v := it.v
		// Block weights change under the search: re-check the target.
		t, gain := f.ct.BestMove(v, f.cfg.Slack)
		if t < 0 {
			continue
		}
		if gain < it.gain && f.heap.len() > 0 && gain < f.heap.top().gain {
			f.tgt[v] = t
			f.heap.push(v, gain, it.tie)
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
		f.ct.Move(v, t)
		f.lock[v] = f.round
		f.moves = append(f.moves, move{v, from})
		cur += gain
		if over <= over0 && (cur > best || over < over0) {
			best, bestLen, fruitless = cur, len(f.moves), 0
			over0 = over
		} else {
			fruitless++
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; f.lock[u] != f.round && !f.ct.Frozen(u) {
				f.consider(u)
			}
		}
	}
	// Undo the moves after the best prefix. Their vertices may serve one
	// more search of this round (never more, which bounds the work).
	for i := len(f.moves) - 1; i >= bestLen; i-- {
		v := f.moves[i].v
		f.ct.Move(v, f.moves[i].from)
		if f.retried[v] != f.round {
			f.retried[v] = f.round
			f.lock[v] = 0
		}
	}
	f.heap.clear()
	return best
}
