package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// flowCheck runs Flows on a copy of part and checks its contract: the cut
// never rises, the gain is exact, BW matches Part, a block within its limit
// stays within it, a block above gets no heavier, fixed vertices stay.
func flowCheck(t *testing.T, name string, g *graph.Graph, k int, part []int32, maxW []int64, cfg FlowConfig, fixed int32) *State {
	t.Helper()
	p := append([]int32(nil), part...)
	s := NewState(g, k, p, maxW, Cut())
	s.FixedFrom = fixed
	bw0 := append([]int64(nil), s.BW...)
	before := s.Cost()
	gain := Flows(s, cfg)
	if gain > 0 {
		attackGains++
	}
	attackRuns++
	if gain < 0 || s.Cost() != before-gain {
		t.Fatalf("%s: cut %d -> %d, claimed gain %d", name, before, s.Cost(), gain)
	}
	w := make([]int64, k)
	for v, b := range s.Part {
		w[b] += g.VW[v]
		if fixed > 0 && int32(v) >= fixed && b != part[v] {
			t.Fatalf("%s: fixed vertex %d moved", name, v)
		}
	}
	for b := range w {
		if w[b] != s.BW[b] {
			t.Fatalf("%s: block %d weighs %d, BW %d", name, b, w[b], s.BW[b])
		}
		if w[b] > max(maxW[b], bw0[b]) {
			t.Fatalf("%s: block %d weighs %d, limit %d, before %d", name, b, w[b], maxW[b], bw0[b])
		}
	}
	return s
}

var attackGains, attackRuns int

// blockPart puts vertex v in block v*k/n, a tenth of them anywhere.
func blockPart(rng *rand.Rand, n, k int) []int32 {
	part := make([]int32, n)
	for v := range part {
		part[v] = int32(v * k / n)
		if rng.IntN(10) == 0 {
			part[v] = int32(rng.IntN(k))
		}
	}
	return part
}

// Edge cases: zero weights, huge weights, exact limits, many blocks,
// disconnected graphs, isolated vertices, fixed vertices.
func TestFlowsAttack(t *testing.T) {
	for trial := 0; trial < 400; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 99))
		n := 20 + rng.IntN(300)
		b := graph.NewBuilder(n)
		bigE := trial%7 == 3
		bigV := trial%11 == 5
		comps := 1 + rng.IntN(4)
		for i := 0; i < n*(1+rng.IntN(6)); i++ {
			u, v := rng.IntN(n), rng.IntN(n)
			if u == v || rng.IntN(10) == 0 && u%comps != v%comps {
				continue
			}
			if u%comps != v%comps { // disconnected components
				continue
			}
			w := int64(rng.IntN(4)) // zero-weight edges too
			if bigE {
				w = int64(1<<61) / int64(8*n) * int64(1+rng.IntN(3))
			}
			b.AddEdge(u, v, w)
		}
		for v := 0; v < n; v++ {
			w := int64(rng.IntN(4)) // zero-weight vertices
			if bigV {
				w = int64(1<<61) / int64(2*n) * int64(rng.IntN(2))
			}
			b.SetVertexWeight(v, w)
		}
		g, err := b.Build()
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		k := 2 + rng.IntN(63)
		if trial%3 == 0 {
			k = 2 + rng.IntN(4)
		}
		part := blockPart(rng, g.N(), k)
		bw := make([]int64, k)
		for v, p := range part {
			bw[p] += g.VW[v]
		}
		maxW := make([]int64, k)
		for i := range maxW {
			switch trial % 4 {
			case 0: // exact limits
				maxW[i] = bw[i]
			case 1:
				maxW[i] = bw[i] + bw[i]/10
			case 2: // very loose
				maxW[i] = bw[i] * 4
			case 3: // some blocks over
				maxW[i] = bw[i] - bw[i]/(1+int64(rng.IntN(10)))
				if rng.IntN(2) == 0 {
					maxW[i] = bw[i] + bw[i]/5
				}
			}
		}
		fixed := int32(0)
		if trial%5 == 2 {
			fixed = int32(n / 2)
		}
		for _, alpha := range []float64{1, 2, 8, 64} {
			cfg := FlowConfig{Rounds: 3, Alpha: alpha}
			flowCheck(t, "trial "+itoa(trial)+" alpha "+itoa(int(alpha)), g, k, part, maxW, cfg, fixed)
		}
	}
	t.Logf("%d of %d runs gained", attackGains, attackRuns)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		s = string(rune('0'+i%10)) + s
		i /= 10
	}
	if neg {
		s = "-" + s
	}
	return s
}

// The whole block as region: two small blocks, limits loose enough that
// either block fits in the other.
func TestFlowsWholeBlock(t *testing.T) {
	g := graph.Grid(10, 10)
	part := make([]int32, g.N())
	for v := range part {
		if v%10 >= 8 {
			part[v] = 1
		}
	}
	s := flowCheck(t, "whole", g, 2, part, []int64{1000, 1000}, FlowConfig{Rounds: 2, Alpha: 1}, 0)
	t.Logf("whole block: BW %v cut %d", s.BW, s.Cost())
}
