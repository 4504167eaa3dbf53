package refinement

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// TestFM2SameAsFM runs RunFM2 and RunFM on copies of thousands of random
// bisections (n 0-500; unit, weighted and zero-weight edges; unit and
// weighted vertices; hubs, which FM freezes; disconnected graphs; starts
// under, at and over the limits) with the configurations the flat
// bisections pass and others (Seeds 1-4 and n, Active, SeedFilter,
// SkipExplored, Waste, WasteWork, StopAlpha, MinImprove with a cost,
// slack), and requires the same gain, partition, block weights and
// counted work.
func TestFM2SameAsFM(t *testing.T) {
	trials := 4000
	if testing.Short() {
		trials = 800
	}
	for trial := uint64(0); trial < uint64(trials); trial++ {
		rng := rand.New(rand.NewPCG(trial, 0xf2))
		s, cfg, cost := fm2Case(rng)
		r := NewState(s.G, 2, append([]int32(nil), s.Part...), s.MaxW, s.Obj)
		var w2, w1 atomic.Int64
		c2, c1 := cfg, cfg
		c2.Work, c1.Work = &w2, &w1
		gain := RunFM2(s, c2, cost)
		want := RunFM(r, c1, cost)
		if gain != want {
			t.Fatalf("trial %d (n %d, cfg %+v): gain %d, RunFM %d", trial, s.G.N(), cfg, gain, want)
		}
		for v := range s.Part {
			if s.Part[v] != r.Part[v] {
				t.Fatalf("trial %d (n %d): vertex %d in block %d, RunFM %d", trial, s.G.N(), v, s.Part[v], r.Part[v])
			}
		}
		if s.BW[0] != r.BW[0] || s.BW[1] != r.BW[1] {
			t.Fatalf("trial %d: block weights %v, RunFM %v", trial, s.BW, r.BW)
		}
		if w2.Load() != w1.Load() {
			t.Fatalf("trial %d (n %d, cfg %+v): work %d, RunFM %d", trial, s.G.N(), cfg, w2.Load(), w1.Load())
		}
	}
}

// fm2Case draws an input for TestFM2SameAsFM.
func fm2Case(rng *rand.Rand) (*State, FMConfig, int64) {
	n := rng.IntN(501)
	if rng.IntN(8) == 0 {
		n = rng.IntN(4)
	}
	b := graph.NewBuilder(n)
	unitE := rng.IntN(3) == 0
	if n > 1 {
		parts := 1 + rng.IntN(3) // components (roughly): edges stay within a range
		for range rng.IntN(6*n + 1) {
			c := rng.IntN(parts)
			lo, hi := c*n/parts, (c+1)*n/parts
			if hi-lo < 2 {
				continue
			}
			u, v := lo+rng.IntN(hi-lo), lo+rng.IntN(hi-lo)
			if u == v {
				continue
			}
			w := int64(1)
			if !unitE {
				w = int64(rng.IntN(5)) // zero weights too
			}
			b.AddEdge(u, v, w)
		}
		if n > 70 && rng.IntN(3) == 0 { // a hub: frozen
			for v := 1; v < n; v++ {
				if rng.IntN(4) > 0 {
					b.AddEdge(0, v, 1)
				}
			}
		}
	}
	unitV := rng.IntN(2) == 0
	for v := range n {
		w := int64(1)
		if !unitV {
			w = int64(rng.IntN(6)) // zero-weight vertices too
		}
		b.SetVertexWeight(v, w)
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	part := make([]int32, n)
	var tw [2]int64
	for v := range part {
		part[v] = int32(rng.IntN(2))
		if rng.IntN(3) == 0 && v > 0 {
			part[v] = part[v-1] // some locality
		}
		tw[part[v]] += g.VW[v]
	}
	total := tw[0] + tw[1]
	var maxW [2]int64
	switch rng.IntN(3) {
	case 0: // the flat bisections' limits: half and half, a little slack
		maxW[0] = total/2 + int64(rng.IntN(3))
		maxW[1] = total - total/2 + int64(rng.IntN(3))
	case 1: // exactly full, under or over
		maxW[0], maxW[1] = tw[0]+int64(rng.IntN(4))-1, tw[1]+int64(rng.IntN(4))-1
	default: // unequal
		maxW[0] = total/3 + int64(rng.IntN(3))
		maxW[1] = total - total/3
	}
	s := NewState(g, 2, part, maxW[:], Cut())
	var cfg FMConfig
	cost := int64(-1)
	switch rng.IntN(3) {
	case 0: // what flatBisect passes (default, IM and wide presets)
		cfg = FMConfig{Alpha: min(max(30, n/4, 60), 1<<30), Rounds: 10, Seeds: n, SkipExplored: true}
		if rng.IntN(2) == 0 {
			cfg.Waste = 0.25
		}
		if rng.IntN(2) == 0 {
			cfg.WasteWork = 3
		}
		if rng.IntN(3) == 0 {
			cfg.SkipExplored = false
		}
		if rng.IntN(3) == 0 {
			cfg.MinImprove, cost = 0.002, s.Cost()
		}
	default: // anything
		cfg = FMConfig{Rounds: rng.IntN(5), Alpha: rng.IntN(40), Seeds: rng.IntN(5),
			SkipExplored: rng.IntN(2) == 0, Active: rng.IntN(3) == 0, SeedFilter: rng.IntN(3) == 0,
			SeedMinGain: int64(rng.IntN(3)) - 1, Slack: int64(rng.IntN(4)) - 1}
		if rng.IntN(4) == 0 {
			cfg.Seeds = n
		}
		if rng.IntN(3) == 0 {
			cfg.Waste = 0.1 * float64(rng.IntN(4))
		}
		if rng.IntN(3) == 0 {
			cfg.WasteWork = 0.5 * float64(rng.IntN(6))
		}
		if rng.IntN(4) == 0 {
			cfg.StopAlpha, cfg.StopBeta = 1+float64(rng.IntN(3)), float64(rng.IntN(4))
		}
		if rng.IntN(3) == 0 {
			cfg.MinImprove, cost = 0.001*float64(rng.IntN(5)), s.Cost()
		}
	}
	cfg.Seed = rng.Uint64()
	return s, cfg, cost
}

// BenchmarkFM2 compares RunFM2 with RunFM on bisections of the size of a
// split's coarsest graph (dense communities, a grid, a weighted random
// graph), each run from the same random balanced start with the flat
// bisections' FM configuration (partition.flatBisect); both give the
// same partition (the cut metric).
func BenchmarkFM2(b *testing.B) {
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"dense160", graph.Communities(160, 8, 24, 6, 1)},
		{"grid13x13", graph.Grid(13, 13)},
		{"random300w", graph.Random(300, 1800, 20, 8, 3)},
	}
	for _, c := range graphs {
		g := c.g
		n := g.N()
		total := g.TotalVertexWeight()
		maxW := []int64{total/2 + total/100 + 1, total/2 + total/100 + 1}
		start := make([]int32, n)
		for v, p := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
			start[p] = int32(2 * v / n)
		}
		cfg := FMConfig{Alpha: max(30, n/4, 60), Seeds: n, Rounds: 10, SkipExplored: true, Waste: 0.25, WasteWork: 3}
		for _, v := range []struct {
			name string
			run  func(*State, FMConfig, int64) int64
		}{{"RunFM", RunFM}, {"RunFM2", RunFM2}} {
			b.Run(c.name+"/fm="+v.name, func(b *testing.B) {
				o := Cut()
				part := make([]int32, n)
				var cut int64
				for i := 0; i < b.N; i++ {
					copy(part, start)
					s := NewState(g, 2, part, maxW, o)
					if s.Overloaded() > 0 {
						Rebalance(s)
					}
					c := cfg
					c.Seed = uint64(i % 8)
					v.run(s, c, -1)
					cut += s.Cost()
				}
				b.ReportMetric(float64(cut)/float64(b.N), "cut")
			})
		}
	}
}
