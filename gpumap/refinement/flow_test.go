package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// On tiny random directed networks, Dinic's flow equals the minimum over
// every s-t cut (enumerated), and both residual cuts (the source's reach,
// the complement of what reaches the sink) have exactly that capacity.
func TestFlowNetMinCutBruteForce(t *testing.T) {
	for trial := 0; trial < 400; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 25))
		n := 2 + rng.IntN(9)
		type arc struct {
			u, v int32
			c    int64
		}
		var arcs []arc
		var nt flowNet
		nt.reset(n)
		for i := 0; i < rng.IntN(3*n+1); i++ {
			u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
			if u == v {
				continue
			}
			c, rc := int64(rng.IntN(6)), int64(0)
			if rng.IntN(2) == 0 {
				rc = int64(rng.IntN(6)) // an undirected edge when rc == c
			}
			nt.add(u, v, c, rc)
			arcs = append(arcs, arc{u, v, c}, arc{v, u, rc})
		}
		nt.build()
		var work int64
		flow := nt.maxFlow(&work)
		cutOf := func(src func(int) bool) int64 {
			var c int64
			for _, a := range arcs {
				if src(int(a.u)) && !src(int(a.v)) {
					c += a.c
				}
			}
			return c
		}
		best := int64(-1)
		for mask := 0; mask < 1<<(n-2); mask++ {
			c := cutOf(func(x int) bool { return x == 0 || x >= 2 && mask>>(x-2)&1 == 1 })
			if best < 0 || c < best {
				best = c
			}
		}
		if flow != best {
			t.Fatalf("trial %d (n %d): flow %d, minimum cut %d", trial, n, flow, best)
		}
		src, _ := nt.reach(nil, nil, false, &work)
		snk, _ := nt.reach(nil, nil, true, &work)
		if src[1] || snk[0] {
			t.Fatalf("trial %d: the sink is reachable after a maximum flow", trial)
		}
		if c := cutOf(func(x int) bool { return src[x] }); c != flow {
			t.Fatalf("trial %d: the source's reach cuts %d, flow %d", trial, c, flow)
		}
		if c := cutOf(func(x int) bool { return !snk[x] }); c != flow {
			t.Fatalf("trial %d: the sink's reach cuts %d, flow %d", trial, c, flow)
		}
	}
}

// On random graphs with random vertex weights and k blocks whose limits
// start out tight or loose, Flows never raises the cut, reports its gain
// exactly, keeps the block weights exact and breaks no limit (a block that
// starts above its limit gets no heavier); at any alpha, with the work
// bounded or not.
func TestFlowsInvariants(t *testing.T) {
	for trial := 0; trial < 60; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		k := 2 + trial%5
		g := graph.Random(150+rng.IntN(200), 600+rng.IntN(900), 7, 1+int64(trial%3), uint64(trial))
		part := make([]int32, g.N())
		for v := range part {
			part[v] = int32(rng.IntN(k))
		}
		// Make the partition connected-ish: a few rounds of majority
		// label propagation, so that flows find something to improve.
		for r := 0; r < trial%3; r++ {
			for v := range part {
				cnt := make([]int64, k)
				for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
					cnt[part[g.Adj[e]]] += g.W(e)
				}
				for b := range cnt {
					if cnt[b] > cnt[part[v]] {
						part[v] = int32(b)
					}
				}
			}
		}
		bw := NewState(g, k, part, nil, Cut()).BW
		maxW := make([]int64, k)
		for b := range maxW {
			maxW[b] = bw[b] + int64(trial%4)*bw[b]/20
		}
		if trial%6 == 5 {
			maxW[0] = bw[0] * 9 / 10 // block 0 starts above its limit
		}
		cfg := FlowConfig{Rounds: 1 + trial%4, Alpha: float64(1 + trial%3*4)}
		if trial%5 == 4 {
			cfg.Work = 0.5
		}
		s := NewState(g, k, part, maxW, Cut())
		before := s.Cost()
		gain := Flows(s, cfg)
		if gain < 0 || s.Cost() != before-gain {
			t.Fatalf("trial %d: cut %d -> %d, claimed gain %d", trial, before, s.Cost(), gain)
		}
		w := NewState(g, k, s.Part, maxW, Cut()).BW // recounted
		for b := range w {
			if w[b] != s.BW[b] {
				t.Fatalf("trial %d: block %d weighs %d, BW says %d", trial, b, w[b], s.BW[b])
			}
			if w[b] > max(maxW[b], bw[b]) {
				t.Fatalf("trial %d: block %d weighs %d above its limit %d (%d before)", trial, b, w[b], maxW[b], bw[b])
			}
		}
	}
}

// flowTrap is an instance where k-way FM and PairFM are stuck: block A
// holds a clique X of 40 vertices and a clique L of 40 vertices (edges of
// weight 10) joined to X by one edge, block B a clique Y of 40 vertices;
// every vertex of L has one edge to Y. The cut is 40; moving L into B
// leaves the bridge alone (cut 1), but moving any j of L's vertices costs
// 10 j (40-j) - j, so every search of 30 moves only climbs.
func flowTrap() (*graph.Graph, []int32) {
	const c = 40
	b := graph.NewBuilder(3 * c)
	clique := func(off int, w int64) {
		for i := 0; i < c; i++ {
			for j := i + 1; j < c; j++ {
				b.AddEdge(off+i, off+j, w)
			}
		}
	}
	clique(0, 1)   // X
	clique(c, 10)  // L
	clique(2*c, 1) // Y
	b.AddEdge(0, c, 1)
	for i := 0; i < c; i++ {
		b.AddEdge(c+i, 2*c+i, 1)
	}
	g, _ := b.Build()
	part := make([]int32, 3*c)
	for v := 2 * c; v < 3*c; v++ {
		part[v] = 1
	}
	return g, part
}

func TestFlowsFindWhatFMMisses(t *testing.T) {
	maxW := []int64{80, 90}
	{
		g, part := flowTrap()
		s := NewState(g, 2, part, maxW, Cut())
		RunFM(s, FMConfig{Alpha: 30, Rounds: 4}, -1)
		PairFM(s, PairFMConfig{Seed: 1})
		if c := s.Cost(); c != 40 {
			t.Fatalf("FM and PairFM changed the trap's cut to %d (the test assumes them stuck at 40)", c)
		}
	}
	g, part := flowTrap()
	s := NewState(g, 2, part, maxW, Cut())
	gain := Flows(s, FlowConfig{Rounds: 2})
	if gain != 39 || s.Cost() != 1 {
		t.Fatalf("Flows: gain %d, cut %d; want 39 and 1", gain, s.Cost())
	}
	for v := 40; v < 80; v++ {
		if s.Part[v] != 1 {
			t.Fatalf("vertex %d of L in block %d, want 1", v, s.Part[v])
		}
	}
	if s.BW[0] != 40 || s.BW[1] != 80 {
		t.Fatalf("weights %v, want [40 80]", s.BW)
	}
}

// Flows draws on nothing but its input: two runs give the same partition.
func TestFlowsDeterministic(t *testing.T) {
	g := graph.Random(400, 2000, 5, 1, 3)
	k := 4
	part := make([]int32, g.N())
	for v := range part {
		part[v] = int32(v * k / g.N())
	}
	maxW := []int64{130, 130, 130, 130}
	var first []int32
	for run := 0; run < 2; run++ {
		s := NewState(g, k, append([]int32(nil), part...), maxW, Cut())
		Flows(s, FlowConfig{Rounds: 3, Alpha: 4})
		if run == 0 {
			first = s.Part
			continue
		}
		for v := range first {
			if first[v] != s.Part[v] {
				t.Fatalf("vertex %d: block %d, then %d", v, first[v], s.Part[v])
			}
		}
	}
}
