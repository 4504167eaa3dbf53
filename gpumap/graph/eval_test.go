package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

func TestEvaluateByHand(t *testing.T) {
	// Path 0-1-2-3 with weights 1, 2, 3 and a chord 0-3 of weight 4, on
	// 2:2 (2 PEs per socket, 2 sockets) with distances 1:10.
	b := NewBuilder(4)
	b.AddEdge(0, 1, 1)
	b.AddEdge(1, 2, 2)
	b.AddEdge(2, 3, 3)
	b.AddEdge(0, 3, 4)
	g, _ := b.Build()
	top, _ := topology.Parse("2:2", "1:10")
	// PEs 0,1 share socket 0; PEs 2,3 share socket 1.
	part := []int32{0, 1, 2, 2}
	m, err := Evaluate(g, top, part, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 0-1: PEs 0,1 -> 1*1; 1-2: PEs 1,2 -> 2*10; 2-3: same PE -> 0;
	// 0-3: PEs 0,2 -> 4*10.  J = 1 + 20 + 40 = 61.
	if m.J != 61 || m.Cut != 7 || m.CutPerLevel[0] != 7 || m.CutPerLevel[1] != 6 {
		t.Fatalf("%+v", m)
	}
	if m.MaxBlock != 2 || m.Lmax != 1 || m.Feasible {
		t.Fatalf("balance: %+v", m)
	}
	if m.Imbalance != 1 {
		t.Fatalf("imbalance %v", m.Imbalance)
	}
	if _, err := Evaluate(g, top, []int32{0, 1, 2, 4}, 0); err == nil {
		t.Fatal("PE out of range accepted")
	}
}

func TestLmax(t *testing.T) {
	for _, c := range []struct {
		total int64
		k     int
		eps   float64
		want  int64
	}{{192, 192, 0, 1}, {2395, 192, 0.03, 13}, {32768, 32768, 0, 1}, {100, 3, 0, 34}, {300, 3, 0, 100}, {1000, 10, 0.03, 103}} {
		if got := Lmax(c.total, c.k, c.eps); got != c.want {
			t.Errorf("Lmax(%d,%d,%v) = %d, want %d", c.total, c.k, c.eps, got, c.want)
		}
	}
}

// Evaluate in parallel chunks equals a plain loop over the edges, on
// machines with few and with many PEs; the first vertex on a PE out of
// range is the one named.
func TestEvaluateChunksMatchPlainSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 5 * par.MinGrain
	b := NewBuilder(n)
	for i := 0; i < 4*n; i++ {
		if u, v := rng.IntN(n), rng.IntN(n); u != v {
			b.AddEdge(u, v, 1+rng.Int64N(9))
		}
	}
	for v := 0; v < n; v++ {
		b.SetVertexWeight(v, 1+rng.Int64N(5))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"4:8:6", "64:64:32"} {
		top, _ := topology.Parse(h, "1:10:100")
		part := make([]int32, n)
		for v := range part {
			part[v] = int32(rng.IntN(top.K()))
		}
		var j, cut int64
		load := make([]int64, top.K())
		for v := 0; v < n; v++ {
			load[part[v]] += g.VW[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := g.Adj[e]; int(u) > v && part[u] != part[v] {
					j += g.W(e) * top.Distance(int(part[v]), int(part[u]))
					cut += g.W(e)
				}
			}
		}
		m, err := Evaluate(g, top, part, 0.03)
		if err != nil || m.J != j || m.Cut != cut || m.MaxBlock != slices.Max(load) {
			t.Fatalf("%s: %+v, %v; want J %d cut %d max block %d", h, m, err, j, cut, slices.Max(load))
		}
		part[n-3], part[n/2] = int32(top.K()), -1
		if _, err := Evaluate(g, top, part, 0.03); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("vertex %d is mapped to PE -1", n/2)) {
			t.Fatalf("%s: out of range: %v", h, err)
		}
	}
}
