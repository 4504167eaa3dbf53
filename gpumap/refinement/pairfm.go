package refinement

import (
	"sort"
	"sync"

	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
)

// PairFMConfig tunes PairFM.
type PairFMConfig struct {
	Rounds int // passes over the adjacent block pairs (0: 4)
	Alpha  int // a pair search stops after this many moves without a new best (0: 30)
	Seed   uint64
}

// PairFM refines a partition whose limits leave no room (exact balance,
// one task per PE after contraction to a group, ...), where single moves
// are infeasible and k-way FM stalls. It runs two-way FM on every pair of
// adjacent blocks A, B, heaviest connection first: the search moves a
// vertex out of whichever block is further above its limit (ties: the
// side with the better move), so that the sides alternate at exact
// balance, negative gains included, locks every moved vertex, and rolls
// back to the best prefix that respects both limits. Gains are those of
// the objective, so the cut between children of one group and J alike.
// Rounds repeat until one gains nothing. It returns the cost reduction.
func PairFM(s *State, cfg PairFMConfig) int64 {
	f := pairPool.Get().(*pairFM)
	defer func() {
		f.s, f.ct.s = nil, nil // the pool keeps no graph alive
		pairPool.Put(f)
	}()
	return f.run(s, cfg)
}

// run is PairFM on f's scratch (the tests reuse one f across sizes).
func (f *pairFM) run(s *State, cfg PairFMConfig) int64 {
	if cfg.Rounds == 0 {
		cfg.Rounds = 4
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 30
	}
	f.reset(s, cfg)
	total := int64(0)
	for r := 0; r < cfg.Rounds; r++ {
		gained := int64(0)
		pairs, touch := f.pairs()
		for b := range f.dirty {
			f.dirty[b] = f.dirty[b][:0]
		}
		for i, pr := range pairs {
			gained += f.search(pr[0], pr[1], touch[i])
		}
		total += gained
		if gained <= 0 {
			break
		}
	}
	return total
}

// pairPool keeps PairFM's scratch (conn table, heaps, stamps) from one
// call to the next: kway refines every level of every split by PairFM,
// each call allocated O(n) scratch and grew the conn table's arena by
// copying, and the runtime returned the memory to the OS (madvise) after.
// BenchmarkPairFMTiles (one round on a 60x60 grid in 64 tiles, 1000
// calls, user+sys of 3 runs each): 1.37-1.74 s -> 0.73-1.01 s.
var pairPool = sync.Pool{New: func() any { return new(pairFM) }}

// reset prepares f for a call on s, reusing its memory. The stamps go on
// from the last call: the entries of lock and seen stay below them.
func (f *pairFM) reset(s *State, cfg PairFMConfig) {
	n := s.G.N()
	f.s, f.cfg = s, cfg
	if f.ct == nil {
		f.ct = NewConnTable(s)
		f.heap = [2]*pq.Heap{pq.New(n), pq.New(n)}
	} else {
		f.ct.reset(s)
		for _, h := range f.heap {
			h.Clear()
			h.Reserve(n)
		}
	}
	f.lock, f.seen = growU32(f.lock, n), growU32(f.seen, n)
	f.co, f.gn = grow(f.co, n), grow(f.gn, n)
	if cap(f.dirty) < s.K {
		f.dirty = make([][]int32, s.K)
	}
	f.dirty = f.dirty[:s.K]
}

type pairFM struct {
	s     *State
	cfg   PairFMConfig
	ct    *ConnTable
	heap  [2]*pq.Heap
	lock  []uint32
	stamp uint32
	moves []move
	// dirty[b]: the vertices of block b that may have come to touch
	// another block during the round (moved into b, or next to a vertex
	// that moved), which the round's lists (pairs) may lack.
	dirty [][]int32
	// A search's view of the vertices it touched (seen == stamp): the
	// connectivity to the other block of the pair, and the gain of moving
	// there.
	seen   []uint32
	co, gn []int64
	// pairs' k x k table of pair indices, -1 between calls (pairs resets
	// the entries it used): a new table each round was 256 KB at k = 256.
	dense []int32
}

// pairsDenseMax bounds pairs' table of k x k indices (the map above it).
const pairsDenseMax = 1 << 16

// pairs lists the adjacent block pairs, heaviest connection first (ties:
// by block ids, so the order is deterministic), and for each the vertices
// of either block next to the other.
func (f *pairFM) pairs() ([][2]int32, [][]int32) {
	g, part := f.s.G, f.s.Part
	// The pairs' indices: a k x k table where it is small (a split's
	// children), else a map. The map's lookups took 100 of PairFM's 580
	// ms of samples on the kway splits of rgg 121k onto 4:8:64:8:6 (k =
	// 64); k is at most the children of a group everywhere PairFM runs.
	k := int32(f.s.K)
	var idx map[[2]int32]int32
	var dense []int32
	if int64(k)*int64(k) <= pairsDenseMax {
		if cap(f.dense) < int(k*k) {
			f.dense = make([]int32, k*k)
			for i := range f.dense {
				f.dense[i] = -1
			}
		}
		dense = f.dense[:k*k]
	} else {
		idx = map[[2]int32]int32{}
	}
	var keys [][2]int32
	var w []int64
	var touch [][]int32
	var last []int32 // the last vertex put in the pair's list
	for v := int32(0); v < int32(g.N()); v++ {
		a := part[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			b := part[g.Adj[e]]
			if a == b {
				continue
			}
			key := [2]int32{min(a, b), max(a, b)}
			var i int32
			var ok bool
			if dense != nil {
				i = dense[key[0]*k+key[1]]
				ok = i >= 0
			} else {
				i, ok = idx[key]
			}
			if !ok {
				i = int32(len(keys))
				if dense != nil {
					dense[key[0]*k+key[1]] = i
				} else {
					idx[key] = i
				}
				keys, w, touch, last = append(keys, key), append(w, 0), append(touch, nil), append(last, -1)
			}
			if a < b {
				w[i] += g.W(e)
			}
			if last[i] != v {
				last[i] = v
				touch[i] = append(touch[i], v)
			}
		}
	}
	if dense != nil {
		for _, key := range keys {
			dense[key[0]*k+key[1]] = -1
		}
	}
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(i, j int) bool {
		x, y := order[i], order[j]
		if w[x] != w[y] {
			return w[x] > w[y]
		}
		a, b := keys[x], keys[y]
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
	out, vs := make([][2]int32, len(order)), make([][]int32, len(order))
	for i, x := range order {
		out[i], vs[i] = keys[x], touch[x]
	}
	return out, vs
}

// load reads v's connectivity to the other block of the current search
// (other) and the gain of moving v there from the conn table, the first
// time the search touches v (stamp). The table is not updated during a
// search (only the prefix that a search keeps is moved there, at its end),
// so it holds v's values until a neighbour of v moves, and each move
// updates the loaded neighbours (search).
func (f *pairFM) load(v, own, other int32) {
	if f.seen[v] == f.stamp {
		return
	}
	f.seen[v] = f.stamp
	f.co[v] = f.ct.Conn(v, other)
	f.gn[v] = f.ct.costAt(v, own) - f.ct.costAt(v, other)
}

// file puts v (in side's block) into its side's heap when it touches the
// other block, with the gain of moving it there.
func (f *pairFM) file(v int32, side int, blk [2]int32) {
	if f.ct.Frozen(v) {
		f.heap[side].Remove(v)
		return
	}
	f.load(v, blk[side], blk[1-side])
	if f.co[v] == 0 {
		f.heap[side].Remove(v)
		return
	}
	f.heap[side].Push(v, f.gn[v], uint32(hash.Splitmix64(uint64(v)^f.cfg.Seed)))
}

// search runs one two-way FM pass between blocks a and b. Its moves stay
// off the conn table and the state until it ends: a moved vertex is
// locked, so the unlocked vertices keep their blocks, and a move shifts a
// neighbour's connectivity between a and b only, which changes its gain
// by the edge weight times D(a,b)+D(b,a). Only the best prefix is then
// moved in the table (on the wide instance's kway splits the searches kept
// few of their 30+ moves, and moving each one there and back took 40% of
// PairFM's time).
func (f *pairFM) search(a, b int32, touch []int32) int64 {
	s := f.s
	g := s.G
	blk := [2]int32{a, b}
	sab := s.Obj.D(a, b) + s.Obj.D(b, a)
	if f.stamp++; f.stamp == 0 {
		clear(f.lock[:cap(f.lock)])
		clear(f.seen[:cap(f.seen)])
		f.stamp = 1
	}
	f.heap[0].Clear()
	f.heap[1].Clear()
	// The vertices of a and b next to the other block: those of the
	// round's list, or of the dirty lists (a vertex next to the other
	// block now was so at the round's start, or it or a neighbour has
	// moved since). The heap orders by gain, then by the 32-bit hash of
	// the vertex, so the order of filing does not matter as long as no two
	// of its entries tie on both; where two do (a hash collision), the
	// order of filing may decide which one pops first.
	//
	// On the edge cut a search gains only what it takes off the cut
	// between a and b, which takes moving an unlocked vertex: open, the
	// connectivity to the other block summed over the unlocked vertices
	// loaded (those filed here: every one that touches it, frozen ones
	// aside), bounds what the rest of the search can gain. Once cur+open
	// is no better than best, the search could only make moves that it
	// rolls back, and it stops there: the same result.
	var open int64
	for _, list := range [3][]int32{touch, f.dirty[a], f.dirty[b]} {
		for _, v := range list {
			if f.seen[v] == f.stamp {
				continue
			}
			switch s.Part[v] {
			case a:
				f.file(v, 0, blk)
			case b:
				f.file(v, 1, blk)
			default:
				continue
			}
			if f.seen[v] == f.stamp { // loaded: not frozen
				open += f.co[v]
			}
		}
	}
	bound := s.Obj.IsCut()
	bw := [2]int64{s.BW[a], s.BW[b]}
	f.moves = f.moves[:0]
	cur, best, bestLen, fruitless := int64(0), int64(0), 0, 0
	for fruitless < f.cfg.Alpha {
		if bound && cur+open <= best {
			break
		}
		ea, eb := bw[0]-s.MaxW[a], bw[1]-s.MaxW[b]
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
		f.lock[v] = f.stamp
		open -= f.co[v]
		wv := g.VW[v]
		bw[side] -= wv
		bw[1-side] += wv
		f.moves = append(f.moves, move{v, blk[side]})
		cur += it.Gain
		if bw[0] <= s.MaxW[a] && bw[1] <= s.MaxW[b] && cur > best {
			best, bestLen, fruitless = cur, len(f.moves), 0
		} else {
			fruitless++
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			if f.lock[u] == f.stamp {
				continue
			}
			us := 0
			switch s.Part[u] {
			case a:
			case b:
				us = 1
			default:
				continue
			}
			if f.ct.Frozen(u) {
				continue // never filed
			}
			// Loaded before the shift: a neighbour not touched yet has
			// its values in the table, from before this search.
			f.load(u, blk[us], blk[1-us])
			d := g.W(e)
			if us != side {
				d = -d // v moved into u's block
			}
			f.co[u] += d
			open += d
			f.gn[u] += d * sab
			f.file(u, us, blk)
		}
	}
	for _, m := range f.moves[:bestLen] {
		to := a
		if m.from == a {
			to = b
		}
		f.ct.Move(m.v, to)
		f.dirty[to] = append(f.dirty[to], m.v)
		for e := g.XAdj[m.v]; e < g.XAdj[m.v+1]; e++ {
			u := g.Adj[e]
			f.dirty[s.Part[u]] = append(f.dirty[s.Part[u]], u)
		}
	}
	return best
}
