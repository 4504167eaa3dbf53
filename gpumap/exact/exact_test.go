package exact

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// plain enumerates every feasible mapping, without bounds or symmetry.
func plain(g *graph.Graph, top *topology.Topology, lmax int64) int64 {
	n, k := g.N(), top.K()
	pe := make([]int32, n)
	load := make([]int64, k)
	best := int64(-1)
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			if c := cost(g, top, pe); best < 0 || c < best {
				best = c
			}
			return
		}
		for p := 0; p < k; p++ {
			if load[p]+g.VW[v] <= lmax {
				load[p] += g.VW[v]
				pe[v] = int32(p)
				rec(v + 1)
				load[p] -= g.VW[v]
			}
		}
	}
	rec(0)
	return best
}

// testMachines: six regular hierarchies (levels of arity 1 and falling
// distances among them) and an irregular tree.
func testMachines() []*topology.Topology {
	var tops []*topology.Topology
	for _, h := range [][2]string{{"2:2", "1:10"}, {"2:2:2", "1:10:100"}, {"3:2", "1:4"}, {"4", "3"}, {"1:3:1:2", "1:2:3:9"}, {"2:3", "5:1"}} {
		top, _ := topology.Parse(h[0], h[1])
		tops = append(tops, top)
	}
	tree, _ := topology.NewTree([][]int{{0, 0, 0, 1, 2, 2}, {0, 0, 0, 0, 1, 1}}, []int64{1, 5, 20})
	return append(tops, tree)
}

func TestExactMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	tops := testMachines()[:4]
	tops = append(tops, testMachines()[6])
	for trial := 0; trial < 120; trial++ {
		top := tops[trial%len(tops)]
		n := 2 + rng.IntN(6)
		g := graph.Random(n, 3*n, 9, 2, uint64(trial))
		lmax := int64(1 + rng.IntN(4))
		if g.TotalVertexWeight() > lmax*int64(top.K()) || g.MaxVertexWeight() > lmax {
			continue
		}
		want := plain(g, top, lmax)
		if want < 0 {
			continue
		}
		// Start from any feasible mapping: first fit.
		pe := make([]int32, n)
		load := make([]int64, top.K())
		fits := true
		for v := 0; v < n && fits; v++ {
			p := 0
			for p < top.K() && load[p]+g.VW[v] > lmax {
				p++
			}
			if p == top.K() {
				fits = false
				break
			}
			load[p] += g.VW[v]
			pe[v] = int32(p)
		}
		if !fits {
			continue
		}
		if !Improve(g, top, lmax, pe, 1<<22) {
			t.Fatalf("trial %d: budget exhausted", trial)
		}
		if got := cost(g, top, pe); got != want {
			t.Fatalf("trial %d (%v, n=%d, lmax=%d): exact %d, enumeration %d", trial, top, n, lmax, got, want)
		}
	}
}

// Solve without a starting mapping (the tiny-instance path of gpumap.Map)
// finds the optimum too, infeasible instances included (no mapping).
func TestSolveFromScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	tops := testMachines()
	for trial := 0; trial < 150; trial++ {
		top := tops[trial%len(tops)]
		n := 2 + rng.IntN(6)
		g := graph.Random(n, 3*n, 9, 2, uint64(trial))
		lmax := int64(1 + rng.IntN(4))
		want := plain(g, top, lmax)
		pe, optimal := Solve(g, top, lmax, nil, 1<<22)
		if want < 0 {
			if optimal || len(pe) != n {
				t.Fatalf("trial %d: infeasible instance reported optimal (%v)", trial, pe)
			}
			continue
		}
		if !optimal {
			t.Fatalf("trial %d: budget exhausted", trial)
		}
		if got := cost(g, top, pe); got != want {
			t.Fatalf("trial %d (%v, n=%d, lmax=%d): exact %d, enumeration %d", trial, top, n, lmax, got, want)
		}
		load := map[int32]int64{}
		for v, p := range pe {
			if load[p] += g.VW[v]; load[p] > lmax {
				t.Fatalf("trial %d: PE %d overloaded", trial, p)
			}
		}
	}
}

// D8 (issue 8): the search does not depend on the number of PEs.
func TestSolveHugeMachines(t *testing.T) {
	// The path a-b-c-d with weights 5, 1, 5.
	g, err := graph.FromCSR([]int64{0, 1, 3, 5, 6}, []int32{1, 0, 2, 1, 3, 2}, nil, []int64{5, 5, 1, 1, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		h, d string
		lmax int64
		want int64
	}{
		{"2147483647", "3", 1, 3 * 11},
		{"2147483647", "3", 4, 0},
		{"2:1073741823", "1:10", 1, 5 + 10 + 5},
		{"2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2:2", "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22:23:24:25:26:27:28:29:30", 1, 5 + 2 + 5},
		{"1:1:1:65536:32767", "1:1:1:7:9", 2, 7},
	}
	for _, c := range cases {
		top, err := topology.Parse(c.h, c.d)
		if err != nil {
			t.Fatal(err)
		}
		pe, optimal := Solve(g, top, c.lmax, nil, 1<<21)
		if !optimal || cost(g, top, pe) != c.want {
			t.Errorf("%s / %s, lmax %d: %v (optimal %v) costs %d, want %d", c.h, c.d, c.lmax, pe, optimal, cost(g, top, pe), c.want)
		}
	}
}
