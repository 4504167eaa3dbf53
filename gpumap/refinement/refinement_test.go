package refinement

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// bruteBest evaluates every adjacent block by recomputing the whole cost.
func bruteBest(s *State, v int32, slack int64) (int32, int64) {
	p := s.Part[v]
	before := s.Cost()
	seen := map[int32]bool{}
	target, gain := int32(-1), int64(0)
	g := s.G
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		b := s.Part[g.Adj[e]]
		if b == p || seen[b] || g.W(e) == 0 {
			continue
		}
		seen[b] = true
		if s.BW[b]+g.VW[v] > s.MaxW[b]+slack {
			continue
		}
		s.Part[v] = b
		gn := before - s.Cost()
		s.Part[v] = p
		if target < 0 || gn > gain || gn == gain && s.BW[b] < s.BW[target] {
			target, gain = b, gn
		}
	}
	return target, gain
}

func TestConnTableAgainstRecomputation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	top, _ := topology.Parse("3:4:5", "1:7:40")
	for trial := 0; trial < 8; trial++ {
		g := graph.Random(120, 1500, 9, 3, uint64(trial))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(top.K()))
		}
		maxW := make([]int64, top.K())
		for i := range maxW {
			maxW[i] = 1 << 40
		}
		for _, obj := range []Objective{Cut(), Mapping(top)} {
			s := NewState(g, top.K(), append([]int32(nil), part...), maxW, obj)
			ct := NewConnTable(s)
			for step := 0; step < 300; step++ {
				v := int32(rng.IntN(g.N()))
				if ct.Frozen(v) {
					continue
				}
				tg, gn := ct.BestMove(v, 0)
				bt, bg := bruteBest(s, v, 0)
				if gn != bg || (tg < 0) != (bt < 0) {
					t.Fatalf("trial %d step %d v=%d: BestMove (%d,%d), brute force (%d,%d)", trial, step, v, tg, gn, bt, bg)
				}
				if tg >= 0 { // the target must realise the gain
					before := s.Cost()
					p := s.Part[v]
					s.Part[v] = tg
					real := before - s.Cost()
					s.Part[v] = p
					if real != gn {
						t.Fatalf("BestMove target %d gains %d, claimed %d", tg, real, gn)
					}
				}
				ct.Move(v, int32(rng.IntN(top.K())))
			}
			// The table must equal a fresh one.
			fresh := NewConnTable(s)
			for v := int32(0); v < int32(g.N()); v++ {
				if ct.Frozen(v) {
					continue
				}
				for b := int32(0); b < int32(top.K()); b++ {
					if ct.Conn(v, b) != fresh.Conn(v, b) {
						t.Fatalf("stale entry v=%d b=%d", v, b)
					}
				}
			}
		}
	}
}

// TestBuildAllIsEnsureInOrder: the parallel BuildAll gives every vertex
// the slot and the entries that ensure gives it when called on the same
// vertices one after the other (frozen hubs and vertices built before
// skipped), for any thread count.
func TestBuildAllIsEnsureInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := graph.NewBuilder(20000)
	for i := 0; i < 100000; i++ {
		u, v := rng.IntN(20000), rng.IntN(20000)
		if u != v {
			b.AddEdge(u, v, int64(1+rng.IntN(3)))
		}
	}
	for h := 0; h < 40; h++ { // hubs, frozen
		for i := 0; i < 300; i++ {
			if v := rng.IntN(20000); v != h {
				b.AddEdge(h, v, 1)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int32, g.N())
	for v := range part {
		part[v] = int32(rng.IntN(6))
	}
	s := NewState(g, 6, part, []int64{1 << 40, 1 << 40, 1 << 40, 1 << 40, 1 << 40, 1 << 40}, Cut())
	vs := rng.Perm(g.N())[:12000] // distinct, some of the 40 hubs among them
	frozen := 0
	for _, threads := range []int{1, 2, 3} {
		seq, all := NewConnTable(s), NewConnTable(s)
		for _, v := range vs[:500] { // built before
			seq.ensure(int32(v))
			all.ensure(int32(v))
		}
		list := make([]int32, 0, len(vs))
		for _, v := range vs {
			list = append(list, int32(v))
			seq.ensure(int32(v))
		}
		all.BuildAll(par.New(threads), list)
		if seq.used != all.used {
			t.Fatalf("threads %d: %d arena slots used, ensure used %d", threads, all.used, seq.used)
		}
		for _, v := range list {
			if seq.Frozen(v) {
				frozen++
				continue
			}
			e1, ok1 := seq.Entries(v)
			e2, ok2 := all.Entries(v)
			b1, w1 := split(e1)
			b2, w2 := split(e2)
			if !ok1 || !ok2 || seq.at[v].off != all.at[v].off || !slices.Equal(b1, b2) || !slices.Equal(w1, w2) {
				t.Fatalf("threads %d, vertex %d: BuildAll gave offset %d %v %v, ensure %d %v %v", threads, v, all.at[v].off, b2, w2, seq.at[v].off, b1, w1)
			}
		}
	}
	if frozen == 0 {
		t.Fatal("no frozen vertex among the tested ones")
	}
}

// FM and the parallel FM never move the fixed vertices (State.FixedFrom,
// a distributed mapper's ghosts), report the true fall of J, and keep
// the blocks within their limits.
func TestFMFixedVertices(t *testing.T) {
	defer func(m int) { ParallelFMMin = m }(ParallelFMMin)
	ParallelFMMin = 64 // the batch FM on these small graphs
	top, _ := topology.Parse("2:2:3", "1:10:100")
	k := top.K()
	for trial := range 12 {
		g := graph.Random(300, 1500, 5, 3, uint64(trial))
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(v * k / g.N())
		}
		rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
		maxW := make([]int64, k)
		for b := range maxW {
			maxW[b] = g.TotalVertexWeight()/int64(k) + 10
		}
		fixed := int32(rng.IntN(g.N()))
		for _, parallel := range []bool{false, true} {
			s := NewState(g, k, slices.Clone(part), maxW, Mapping(top))
			s.FixedFrom = fixed
			before := s.Cost()
			var gain int64
			if parallel {
				gain = RunFMParallel(par.New(2), s, FMConfig{Seed: 3}, before)
			} else {
				gain = RunFM(s, FMConfig{Seed: 3}, before)
			}
			for v := fixed; v < int32(g.N()); v++ {
				if s.Part[v] != part[v] {
					t.Fatalf("trial %d (parallel %v): fixed vertex %d (FixedFrom %d) moved", trial, parallel, v, fixed)
				}
			}
			if gain != before-s.Cost() {
				t.Fatalf("trial %d (parallel %v): FM reports a gain of %d, the cost fell by %d", trial, parallel, gain, before-s.Cost())
			}
			if s.Overloaded() > 0 {
				t.Fatalf("trial %d (parallel %v): a block passes its limit", trial, parallel)
			}
		}
	}
}
