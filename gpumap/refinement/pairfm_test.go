package refinement

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
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

// PairFM must give main's partition and gain (mainPairFM, the test
// oracle in pairfm_main_test.go) on every input: n from 0 to 500, k = 1,
// small k, and k on both sides of pairsDenseMax (k*k = 255^2 and 256^2 in
// pairs' table, 257^2 and 320^2 in its map), the cut and J, zero-weight
// edges, hubs and fixed vertices (never filed), overloaded blocks, and
// calls of varying sizes on one pairFM, so that its scratch (the conn
// table, the heaps, the stamps, the dirty lists, the pairs' table) holds
// the last call's contents, with the stamps sometimes about to wrap.
func TestPairFMSameAsMain(t *testing.T) {
	f := new(pairFM)
	for trial := uint64(0); trial < 600; trial++ {
		rng := rand.New(rand.NewPCG(trial, 13))
		s, cfg := pairFMCase(rng)
		r := NewState(s.G, s.K, append([]int32(nil), s.Part...), s.MaxW, s.Obj)
		r.FixedFrom = s.FixedFrom
		if trial%5 == 4 {
			f.stamp = max(f.stamp, math.MaxUint32-uint32(trial%3)) // the entries stay below it
		}
		var gain int64
		if trial%7 == 6 {
			gain = PairFM(s, cfg) // through the pool
		} else {
			gain = f.run(s, cfg)
		}
		want := mainPairFM(r, cfg)
		if gain != want {
			t.Fatalf("trial %d (n %d, k %d): gain %d, main %d", trial, s.G.N(), s.K, gain, want)
		}
		for v := range s.Part {
			if s.Part[v] != r.Part[v] {
				t.Fatalf("trial %d (n %d, k %d): vertex %d in block %d, main %d", trial, s.G.N(), s.K, v, s.Part[v], r.Part[v])
			}
		}
		for b := range s.BW {
			if s.BW[b] != r.BW[b] {
				t.Fatalf("trial %d: block %d weighs %d, main %d", trial, b, s.BW[b], r.BW[b])
			}
		}
	}
}

// pairFMCase draws an input for TestPairFMSameAsMain.
func pairFMCase(rng *rand.Rand) (*State, PairFMConfig) {
	var k int
	var obj Objective
	switch rng.IntN(8) {
	case 0:
		k, obj = 1, Cut()
	case 1:
		k, obj = 255+rng.IntN(3), Cut() // 255, 256: the table; 257: the map
	case 2:
		top, _ := topology.Parse("16:16", "1:7") // k*k = 2^16: the table
		k, obj = top.K(), Mapping(top)
	case 3:
		top, _ := topology.Parse("4:8:10", "1:10:100") // k = 320: the map
		k, obj = top.K(), Mapping(top)
	case 4, 5:
		top, _ := topology.Parse("2:3:2", "1:10:100")
		k, obj = top.K(), Mapping(top)
	default:
		k, obj = 2+rng.IntN(20), Cut()
	}
	n := rng.IntN(501)
	if rng.IntN(8) == 0 {
		n = rng.IntN(3) // 0, 1, 2
	}
	b := graph.NewBuilder(n)
	if n > 1 {
		for range rng.IntN(5*n + 1) {
			if u, v := rng.IntN(n), rng.IntN(n); u != v {
				b.AddEdge(u, v, int64(rng.IntN(4))) // zero weights too
			}
		}
		if n > 70 && rng.IntN(3) == 0 { // a hub: frozen
			for v := 1; v < n; v++ {
				b.AddEdge(0, v, 1+int64(rng.IntN(3)))
			}
		}
	}
	for v := range n {
		b.SetVertexWeight(v, 1+int64(rng.IntN(3)))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	part := make([]int32, n)
	used := 1 + rng.IntN(k) // some blocks empty
	for v := range part {
		part[v] = int32(rng.IntN(used))
	}
	maxW := make([]int64, k)
	for v, p := range part {
		maxW[p] += g.VW[v]
	}
	for i := range maxW {
		maxW[i] += int64(rng.IntN(4)) - 1 // -1: overloaded; 0: exactly full
	}
	s := NewState(g, k, part, maxW, obj)
	if n > 0 && rng.IntN(4) == 0 {
		s.FixedFrom = int32(1 + rng.IntN(n)) // the vertices from it on never move
	}
	cfg := PairFMConfig{Rounds: rng.IntN(5), Alpha: rng.IntN(40), Seed: rng.Uint64()}
	return s, cfg
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
