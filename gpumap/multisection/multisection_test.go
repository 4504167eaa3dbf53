package multisection

import (
	"slices"
	"sync"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

func TestLimitsByHand(t *testing.T) {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	nodes := top.Children(top.Root())
	// 19200 units on 192 PEs, eps 3%: Lmax 103. With the published rule
	// (depth 3) the top split gets (1.03)^(1/3) - 1 = 0.990%: floor(3200 *
	// 1.00990) = 3231 per node.
	lim := Limits(nodes, 192, 19200, 19200, 192, 0.03, 3, 103, 1)
	for _, l := range lim {
		if l != 3231 {
			t.Fatalf("limits %v, want 3231 each", lim)
		}
	}
	// All slack to the top (depth 1): 3200 * 1.03 = 3296.
	if lim := Limits(nodes, 192, 19200, 19200, 192, 0.03, 1, 103, 1); lim[0] != 3296 {
		t.Fatalf("top-first limit %d, want 3296", lim[0])
	}
	// A node already 2% heavy may only split 1% more: 3264 * 1.03/1.02 per
	// its 32 PEs, shared into 8 sockets: 408 * 1.0098 = 412.
	sockets := top.Children(nodes[0])
	lim = Limits(sockets, 32, 3264, 19200, 192, 0.03, 1, 103, 1)
	if lim[0] != 411 && lim[0] != 412 {
		t.Fatalf("socket limit %d, want 411 or 412", lim[0])
	}
}

func check(t *testing.T, g *graph.Graph, top *topology.Topology, eps float64, pe []int32) {
	t.Helper()
	m, err := graph.Evaluate(g, top, pe, eps)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Feasible {
		t.Fatalf("infeasible: max block %d > %d", m.MaxBlock, m.Lmax)
	}
}

func TestFeasibleOnRegularAndIrregularMachines(t *testing.T) {
	x := par.New(2)
	reg, _ := topology.Parse("4:8:3", "1:10:100")
	// three nodes with 16, 16 and 8 slots; node 2's sockets hold 6 and 2.
	tree, err := topology.NewNodes([][]int{{8, 8}, {8, 8}, {6, 2}}, []int64{1, 10, 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, top := range []*topology.Topology{reg, tree} {
		for seed := uint64(0); seed < 4; seed++ {
			g := graph.Random(2000, 9000, 10, 5, seed)
			for _, depth := range []float64{0.03, 1} {
				pe := Map(x, g, top, Config{Eps: 0.03, Seed: seed, SlackDepth: depth})
				check(t, g, top, 0.03, pe)
			}
		}
		// One task per PE, exact.
		g := graph.Grid(top.K())
		pe := Map(x, g, top, Config{Eps: 0, Seed: 1})
		check(t, g, top, 0, pe)
	}
}

// The sub-problems run on a queue of workers: whichever worker takes a
// block, and however many there are (more than the siblings of a split,
// or fewer), the mapping is the same.
func TestSameMappingForAnyWorkerCount(t *testing.T) {
	top, _ := topology.Parse("4:8:3", "1:10:100")
	g := graph.RandomGeometric(12000, 5)
	if underRace {
		g = graph.RandomGeometric(2500, 5)
	}
	var ref []int32
	for _, threads := range []int{1, 2, 3, 5} {
		pe := Map(par.New(threads), g, top, Config{Eps: 0.03, Seed: 7, TopTries: 3})
		check(t, g, top, 0.03, pe)
		if ref == nil {
			ref = pe
			continue
		}
		for v := range ref {
			if pe[v] != ref[v] {
				t.Fatalf("threads=%d maps vertex %d to %d, threads=1 to %d", threads, v, pe[v], ref[v])
			}
		}
	}
}

// AfterSecond sees, once, the cost of the splits of the top's children:
// the weight of the edges that the mapping cuts between their children
// times their distance, on every machine shape (4:8:3: nodes into
// sockets, at distance 10; 4:8: sockets into PEs, at 1; 2:1:4: nodes of
// one socket each, passed through to the split into PEs); the splits
// below still give the mapping of a Map without hooks, at any thread
// count; false stops Map there (nil).
func TestAfterSecond(t *testing.T) {
	g := graph.RandomGeometric(3000, 5)
	for _, c := range []struct {
		h, d   string
		second int // the level of the children's splits
	}{{"4:8:3", "1:10:100", 2}, {"4:8", "1:10", 1}, {"2:1:4", "1:10:100", 1}} {
		top, _ := topology.Parse(c.h, c.d)
		cfg := Config{Eps: 0.03, Seed: 7, TopTries: 2}
		plain := Map(par.New(1), g, top, cfg)
		want := int64(0)
		for v := range g.N() {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if top.CommonLevel(int(plain[v]), int(plain[g.Adj[e]])) == c.second {
					want += g.W(e) * top.Distances()[c.second-1]
				}
			}
		}
		want /= 2 // every edge seen from both ends
		for _, threads := range []int{1, 2, 3} {
			for _, goOn := range []bool{true, false} {
				var mu sync.Mutex
				calls, cost, level := 0, int64(0), 0
				cfg.AfterTop = func(int, []int32) bool { return true }
				cfg.AfterSecond = func(l int, c int64) bool {
					mu.Lock()
					defer mu.Unlock()
					calls++
					level, cost = l, c
					return goOn
				}
				pe := Map(par.New(threads), g, top, cfg)
				if calls != 1 || level != c.second || cost != want {
					t.Fatalf("%s, %d threads: AfterSecond called %d times, last with level %d, cost %d; want once, %d, %d",
						c.h, threads, calls, level, cost, c.second, want)
				}
				if !goOn {
					if pe != nil {
						t.Errorf("%s, %d threads: AfterSecond said stop, Map mapped", c.h, threads)
					}
					continue
				}
				if !slices.Equal(pe, plain) {
					t.Errorf("%s, %d threads: the mapping differs from Map's without hooks", c.h, threads)
				}
			}
		}
	}
}
