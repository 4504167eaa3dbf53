package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/hash"
	"github.com/gpumap/gpumap/gpumap/internal/pq"
	"github.com/gpumap/gpumap/topology"
)

// Two triangles {0,1,2} and {3,4,5} joined by one edge, split across the
// wrong way at exact balance (3 and 3): single moves are infeasible, and
// PairFM must find the two exchanges that leave only the bridge cut.
func TestPairFMHandCase(t *testing.T) {
	b := graph.NewBuilder(6)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}, {2, 3}} {
		b.AddEdge(e[0], e[1], 1)
	}
	g, _ := b.Build()
	part := []int32{0, 0, 1, 1, 1, 0} // cut 4: 0-2, 1-2, 3-5, 4-5
	s := NewState(g, 2, part, []int64{3, 3}, Cut())
	before := s.Cost()
	gain := PairFM(s, PairFMConfig{Seed: 1})
	if s.Cost() != 1 || before-gain != 1 {
		t.Fatalf("cut %d -> %d (gain %d), want 1", before, s.Cost(), gain)
	}
	if s.BW[0] != 3 || s.BW[1] != 3 {
		t.Fatalf("balance broken: %v", s.BW)
	}
}

// On random graphs with random vertex weights and limits that start out
// tight, PairFM never breaks a limit, never raises the cost, and reports
// its gain exactly; for the cut and for J alike.
func TestPairFMInvariants(t *testing.T) {
	top, _ := topology.Parse("2:3:2", "1:10:100")
	k := top.K()
	for trial := 0; trial < 20; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		g := graph.Random(200, 900, 7, 1+int64(trial%3), uint64(trial))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(k))
		}
		bw := make([]int64, k)
		for v, p := range part {
			bw[p] += g.VW[v]
		}
		maxW := append([]int64(nil), bw...) // every block exactly full
		for _, obj := range []Objective{Cut(), Mapping(top)} {
			s := NewState(g, k, append([]int32(nil), part...), maxW, obj)
			before := s.Cost()
			gain := PairFM(s, PairFMConfig{Seed: uint64(trial)})
			if gain < 0 || s.Cost() != before-gain {
				t.Fatalf("trial %d: cost %d -> %d, claimed gain %d", trial, before, s.Cost(), gain)
			}
			w := make([]int64, k)
			for v, p := range s.Part {
				w[p] += g.VW[v]
			}
			for b := range w {
				if w[b] != s.BW[b] || w[b] > maxW[b] {
					t.Fatalf("trial %d: block %d weighs %d (tracked %d), limit %d", trial, b, w[b], s.BW[b], maxW[b])
				}
			}
		}
	}
}

// PairFM's searches keep their moves off the conn table and the state
// until they end and file only the vertices next to the other block
// (search); the reference below is the search as it was, filing every
// member of both blocks, moving every vertex in the table and rolling back
// past the best prefix. Both must give the same partition and gain, for the cut and for
// J alike.
func TestPairFMSameAsMovingSearch(t *testing.T) {
	top, _ := topology.Parse("2:3:2", "1:10:100")
	k := top.K()
	for trial := 0; trial < 30; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 11))
		g := graph.Random(300, 1400, 7, 1+int64(trial%3), uint64(trial))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(k))
		}
		bw := make([]int64, k)
		for v, p := range part {
			bw[p] += g.VW[v]
		}
		maxW := append([]int64(nil), bw...)
		if trial%2 == 1 {
			for b := range maxW {
				maxW[b] += 2 // some room: moves in one direction too
			}
		}
		for _, obj := range []Objective{Cut(), Mapping(top)} {
			cfg := PairFMConfig{Rounds: 3, Alpha: 10 + trial%25, Seed: uint64(trial)}
			s := NewState(g, k, append([]int32(nil), part...), maxW, obj)
			if trial%3 == 2 {
				pairsDenseMax = 0 // pairs' map instead of its table
			}
			gain := PairFM(s, cfg)
			pairsDenseMax = 1 << 16
			r := NewState(g, k, append([]int32(nil), part...), maxW, obj)
			want := pairFMByMoves(r, cfg)
			if gain != want {
				t.Fatalf("trial %d: gain %d, reference %d", trial, gain, want)
			}
			for v := range s.Part {
				if s.Part[v] != r.Part[v] {
					t.Fatalf("trial %d: vertex %d in block %d, reference %d", trial, v, s.Part[v], r.Part[v])
				}
			}
		}
	}
}

// pairFMByMoves is PairFM with the search that moves every vertex in the
// conn table and rolls back (the code before search kept its moves local).
func pairFMByMoves(s *State, cfg PairFMConfig) int64 {
	n := s.G.N()
	f := &refPairFM{pairFM: &pairFM{s: s, cfg: cfg, ct: NewConnTable(s), heap: [2]*pq.Heap{pq.New(n), pq.New(n)},
		lock: make([]uint32, n)}, members: make([][]int32, s.K), pos: make([]int32, n)}
	for v := int32(0); v < int32(n); v++ {
		b := s.Part[v]
		f.pos[v] = int32(len(f.members[b]))
		f.members[b] = append(f.members[b], v)
	}
	total := int64(0)
	for r := 0; r < cfg.Rounds; r++ {
		gained := int64(0)
		pairs, _ := f.pairs()
		for _, pr := range pairs {
			gained += f.searchByMoves(pr[0], pr[1])
		}
		total += gained
		if gained <= 0 {
			break
		}
	}
	return total
}

// refPairFM is the reference's state: it files every member of both
// blocks.
type refPairFM struct {
	*pairFM
	members [][]int32
	pos     []int32
}

func (f *refPairFM) move(v, to int32) {
	from := f.s.Part[v]
	m := f.members[from]
	last := m[len(m)-1]
	m[f.pos[v]], f.pos[last] = last, f.pos[v]
	f.members[from] = m[:len(m)-1]
	f.pos[v] = int32(len(f.members[to]))
	f.members[to] = append(f.members[to], v)
	f.ct.Move(v, to)
}

func (f *pairFM) fileByMoves(v int32, side int, blk [2]int32) {
	other := blk[1-side]
	if f.ct.Frozen(v) || f.ct.Conn(v, other) == 0 {
		f.heap[side].Remove(v)
		return
	}
	gain := f.ct.costAt(v, blk[side]) - f.ct.costAt(v, other)
	f.heap[side].Push(v, gain, uint32(hash.Splitmix64(uint64(v)^f.cfg.Seed)))
}

func (f *refPairFM) searchByMoves(a, b int32) int64 {
	s := f.s
	g := s.G
	blk := [2]int32{a, b}
	f.stamp++
	f.heap[0].Clear()
	f.heap[1].Clear()
	for side := 0; side < 2; side++ {
		for _, v := range f.members[blk[side]] {
			f.fileByMoves(v, side, blk)
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
				f.fileByMoves(u, 0, blk)
			case b:
				f.fileByMoves(u, 1, blk)
			}
		}
	}
	for i := len(f.moves) - 1; i >= bestLen; i-- {
		f.move(f.moves[i].v, f.moves[i].from)
	}
	return best
}

// BenchmarkPairFMTiles is one level of kway's refinement on a wide
// machine's split into 64 groups: a 60x60 grid (the 5-point stencil) in
// 8x8 tiles, a tenth of the vertices moved to a neighbour's tile, limits
// one above the tiles' weights, one round at alpha 30 (WideConfig.KWay).
func BenchmarkPairFMTiles(b *testing.B) {
	const side, tiles = 60, 8
	g := graph.Grid(side, side, 1)
	part := make([]int32, g.N())
	for v := range part {
		x, y := v%side, v/side
		part[v] = int32(y*tiles/side*tiles + x*tiles/side)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for v := range part {
		if rng.IntN(10) == 0 {
			u := g.Adj[g.XAdj[v]+int64(rng.IntN(int(g.XAdj[v+1]-g.XAdj[v])))]
			part[v] = part[u]
		}
	}
	maxW := make([]int64, tiles*tiles)
	for _, p := range part {
		maxW[p]++
	}
	for i := range maxW {
		maxW[i]++
	}
	p := make([]int32, len(part))
	for i := range b.N {
		copy(p, part)
		s := NewState(g, len(maxW), p, maxW, Cut())
		PairFM(s, PairFMConfig{Rounds: 1, Alpha: 30, Seed: uint64(i)})
	}
}
