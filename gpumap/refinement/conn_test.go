package refinement

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// refShift is the entry update that fixed the order of connectivity lists
// (the order decides BestMove's ties, hence the mappings): a full scan,
// from's entry filled from the last one when it empties, to appended.
func refShift(blk []int32, w []int64, from, to int32, wt int64) ([]int32, []int64) {
	fi, ti := -1, -1
	for i, b := range blk {
		switch b {
		case from:
			fi = i
		case to:
			ti = i
		}
	}
	end := len(blk)
	switch {
	case ti >= 0:
		w[ti] += wt
		if w[fi] -= wt; w[fi] == 0 {
			blk[fi], w[fi] = blk[end-1], w[end-1]
			end--
		}
	case w[fi] == wt:
		blk[fi] = to
	default:
		w[fi] -= wt
		blk, w = append(blk, to), append(w, wt)
		end++
	}
	return blk[:end], w[:end]
}

// split returns the blocks and the weights of entries es.
func split(es []entry) ([]int32, []int64) {
	blk, w := make([]int32, len(es)), make([]int64, len(es))
	for i, x := range es {
		blk[i], w[i] = x.b, x.w
	}
	return blk, w
}

// shiftEntry must leave every list exactly as refShift does: same blocks,
// same weights, same order.
func TestShiftEntryKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k = 12
	for trial := 0; trial < 20000; trial++ {
		n := 1 + rng.IntN(k)
		perm := rng.Perm(k)
		blk := make([]int32, n)
		w := make([]int64, n)
		for i := range blk {
			blk[i], w[i] = int32(perm[i]), 1+rng.Int64N(4)
		}
		fi := rng.IntN(n)
		from := blk[fi]
		wt := 1 + rng.Int64N(w[fi])
		to := int32(perm[rng.IntN(k)])
		if to == from {
			continue
		}
		arena := make([]entry, 2+n+1)
		for i := range blk {
			arena[2+i] = entry{w: w[i], b: blk[i]}
		}
		end := shiftEntry(arena, 2, 2+int64(n), from, to, wt)
		gb, gw := split(arena[2:end])
		rb, rw := refShift(slices.Clone(blk), slices.Clone(w), from, to, wt)
		if !slices.Equal(gb, rb) || !slices.Equal(gw, rw) {
			t.Fatalf("%v %v, %d -> %d by %d: got %v %v, want %v %v", blk, w, from, to, wt, gb, gw, rb, rw)
		}
	}
}

// refBestCut is the cut objective's BestMove as two passes over v's list
// (conn(p) first, then every candidate's gain), the order whose ties the
// one-pass version must keep.
func refBestCut(s *State, blk []int32, cw []int64, v int32, slack int64) (target int32, gain int64) {
	p := s.Part[v]
	cp := int64(0)
	for i, b := range blk {
		if b == p {
			cp = cw[i]
		}
	}
	target = -1
	for i, b := range blk {
		if b == p || s.BW[b]+s.G.VW[v] > s.MaxW[b]+slack {
			continue
		}
		if gn := cw[i] - cp; target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}

// BestMove under the cut picks the target the two-pass scan picks, ties
// included (unit weights and few blocks make ties common), after moves
// that reorder the lists.
func TestBestMoveCutTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 6; trial++ {
		g := graph.Random(300, 2400, 1, 1, uint64(trial))
		const k = 6
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(k))
		}
		maxW := make([]int64, k)
		for i := range maxW {
			maxW[i] = int64(g.N()/k) + int64(rng.IntN(8))
		}
		s := NewState(g, k, part, maxW, Cut())
		ct := NewConnTable(s)
		ties := 0
		for step := 0; step < 3000; step++ {
			v := int32(rng.IntN(g.N()))
			if ct.Frozen(v) {
				continue
			}
			tg, gn := ct.BestMove(v, 0)
			es, _ := ct.Entries(v)
			blk, cw := split(es)
			rt, rg := refBestCut(s, blk, cw, v, 0)
			if tg != rt || gn != rg {
				t.Fatalf("trial %d step %d v=%d %v %v: BestMove (%d,%d), two passes (%d,%d)", trial, step, v, blk, cw, tg, gn, rt, rg)
			}
			for i := range blk {
				for j := range i {
					if blk[i] != s.Part[v] && blk[j] != s.Part[v] && cw[i] == cw[j] {
						ties++
					}
				}
			}
			ct.Move(v, int32(rng.IntN(k)))
		}
		if ties == 0 {
			t.Fatal("no ties exercised")
		}
	}
}

// benchTable is a table over a random graph with k blocks, every vertex
// built, and a fixed sequence of moves.
func benchTable(b *testing.B, k int, obj Objective) (*ConnTable, []int32, []int32) {
	g := graph.Random(1<<15, 1<<19, 1, 1, 9)
	rng := rand.New(rand.NewPCG(1, 2))
	part := make([]int32, g.N())
	for v := range part {
		part[v] = int32(rng.IntN(k))
	}
	maxW := make([]int64, k)
	for i := range maxW {
		maxW[i] = 1 << 40
	}
	ct := NewConnTable(NewState(g, k, part, maxW, obj))
	for v := int32(0); v < int32(g.N()); v++ {
		ct.ensure(v)
	}
	vs, to := make([]int32, 1<<16), make([]int32, 1<<16)
	for i := range vs {
		vs[i], to[i] = int32(rng.IntN(g.N())), int32(rng.IntN(k))
	}
	return ct, vs, to
}

// BenchmarkConnTableMove: moves that update the neighbours' lists (about
// 32 neighbours, lists of up to 32 blocks).
func BenchmarkConnTableMove(b *testing.B) {
	ct, vs, to := benchTable(b, 64, Cut())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i & (len(vs) - 1)
		ct.Move(vs[j], to[j])
	}
}

func benchBestMove(b *testing.B, obj Objective, k int) {
	ct, vs, _ := benchTable(b, k, obj)
	b.ResetTimer()
	var sum int64
	for i := 0; i < b.N; i++ {
		_, g := ct.BestMove(vs[i&(len(vs)-1)], 0)
		sum += g
	}
	_ = sum
}

func BenchmarkConnTableBestMoveCut(b *testing.B) { benchBestMove(b, Cut(), 8) }

func BenchmarkConnTableBestMoveJ(b *testing.B) {
	top, _ := topology.Parse("2:2:2", "1:10:100")
	benchBestMove(b, Mapping(top), top.K())
}

// BenchmarkNbhdLoad: gathering a vertex's connectivity from scratch, as
// label propagation and Jet do for every candidate.
func BenchmarkNbhdLoad(b *testing.B) {
	ct, vs, _ := benchTable(b, 64, Cut())
	h := newNbhd(64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.load(ct.s, vs[i&(len(vs)-1)])
	}
}
