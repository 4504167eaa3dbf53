package refinement

// The test oracle for PairFM (TestPairFMSameAsMain): a copy of PairFM as
// it was on main at a1b64e7, before its searches kept their moves local,
// filed per-pair lists and indexed the pairs in a table; only the names
// differ (mainPairFM, mainPF). It moves every vertex in the conn table and
// rolls back, files every member of both blocks, lists the pairs through a
// map, and allocates its scratch on each call: it shares the conn table
// and the heap with PairFM, none of PairFM's own code.

import (
	"sort"

	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// mainPairFM refines a partition whose limits leave no room (exact balance,
// one task per PE after contraction to a group, ...), where single moves
// are infeasible and k-way FM stalls. It runs two-way FM on every pair of
// adjacent blocks A, B, heaviest connection first: the search moves a
// vertex out of whichever block is further above its limit (ties: the
// side with the better move), so that the sides alternate at exact
// balance, negative gains included, locks every moved vertex, and rolls
// back to the best prefix that respects both limits. Gains are those of
// the objective, so the cut between children of one group and J alike.
// Rounds repeat until one gains nothing. It returns the cost reduction.
func mainPairFM(s *State, cfg PairFMConfig) int64 {
	if cfg.Rounds == 0 {
		cfg.Rounds = 4
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 30
	}
	g := s.G
	n := g.N()
	f := &mainPF{s: s, cfg: cfg, ct: NewConnTable(s), heap: [2]*pq.Heap{pq.New(n), pq.New(n)},
		lock: make([]uint32, n), members: make([][]int32, s.K), pos: make([]int32, n)}
	for v := int32(0); v < int32(n); v++ {
		b := s.Part[v]
		f.pos[v] = int32(len(f.members[b]))
		f.members[b] = append(f.members[b], v)
	}
	total := int64(0)
	for r := 0; r < cfg.Rounds; r++ {
		gained := int64(0)
		for _, pr := range f.pairs() {
			gained += f.search(pr[0], pr[1])
		}
		total += gained
		if gained <= 0 {
			break
		}
	}
	return total
}

type mainPF struct {
	s       *State
	cfg     PairFMConfig
	ct      *ConnTable
	heap    [2]*pq.Heap
	lock    []uint32
	stamp   uint32
	members [][]int32
	pos     []int32
	moves   []move
}

// pairs lists the adjacent block pairs, heaviest connection first (ties:
// by block ids, so the order is deterministic).
func (f *mainPF) pairs() [][2]int32 {
	g, part := f.s.G, f.s.Part
	w := map[[2]int32]int64{}
	for v := int32(0); v < int32(g.N()); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if a, b := part[v], part[g.Adj[e]]; a < b {
				w[[2]int32{a, b}] += g.W(e)
			}
		}
	}
	out := make([][2]int32, 0, len(w))
	for p := range w {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if w[a] != w[b] {
			return w[a] > w[b]
		}
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
	return out
}

func (f *mainPF) move(v, to int32) {
	from := f.s.Part[v]
	m := f.members[from]
	last := m[len(m)-1]
	m[f.pos[v]], f.pos[last] = last, f.pos[v]
	f.members[from] = m[:len(m)-1]
	f.pos[v] = int32(len(f.members[to]))
	f.members[to] = append(f.members[to], v)
	f.ct.Move(v, to)
}

// file puts v (in side's block) into its side's heap when it touches the
// other block, with the gain of moving it there.
func (f *mainPF) file(v int32, side int, blk [2]int32) {
	other := blk[1-side]
	if f.ct.Frozen(v) || f.ct.Conn(v, other) == 0 {
		f.heap[side].Remove(v)
		return
	}
	gain := f.ct.costAt(v, blk[side]) - f.ct.costAt(v, other)
	f.heap[side].Push(v, gain, uint32(hash.Splitmix64(uint64(v)^f.cfg.Seed)))
}

// search runs one two-way FM pass between blocks a and b.
func (f *mainPF) search(a, b int32) int64 {
	s := f.s
	g := s.G
	blk := [2]int32{a, b}
	f.stamp++
	f.heap[0].Clear()
	f.heap[1].Clear()
	for side := 0; side < 2; side++ {
		for _, v := range f.members[blk[side]] {
			f.file(v, side, blk)
		}
	}
	f.moves = f.moves[:0]
	cur, best, bestLen, fruitless := int64(0), int64(0), 0, 0
	for fruitless < f.cfg.Alpha {
		ea, eb := s.BW[a]-s.MaxW[a], s.BW[b]-s.MaxW[b]
		side := 0
		switch {
		case ea < eb:
			side = 1
		case ea == eb:
			if f.heap[0].Len() == 0 || f.heap[1].Len() > 0 && f.heap[1].Top().Gain > f.heap[0].Top().Gain {
				side = 1
			}
		}
		if f.heap[side].Len() == 0 {
			break
		}
		it := f.heap[side].Pop()
		v := it.V
		f.move(v, blk[1-side])
		f.lock[v] = f.stamp
		f.moves = append(f.moves, move{v, blk[side]})
		cur += it.Gain
		if s.BW[a] <= s.MaxW[a] && s.BW[b] <= s.MaxW[b] && cur > best {
			best, bestLen, fruitless = cur, len(f.moves), 0
		} else {
			fruitless++
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			if f.lock[u] == f.stamp {
				continue
			}
			switch s.Part[u] {
			case a:
				f.file(u, 0, blk)
			case b:
				f.file(u, 1, blk)
			}
		}
	}
	for i := len(f.moves) - 1; i >= bestLen; i-- {
		f.move(f.moves[i].v, f.moves[i].from)
	}
	return best
}
