package graph

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBuilderMergesAndSymmetrises(t *testing.T) {
	b := NewBuilder(3)
	b.AddEdge(0, 1, 5) // 0 sends 5 to 1
	b.AddEdge(1, 0, 2) // 1 sends 2 to 0: edge weight 7
	b.AddEdge(2, 1, 1)
	b.AddEdge(2, 1, 1) // duplicate: summed
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[[2]int32]int64{{0, 1}: 7, {1, 0}: 7, {1, 2}: 2, {2, 1}: 2}
	if len(g.Adj) != len(want) {
		t.Fatalf("adj = %v", g.Adj)
	}
	for v := int32(0); v < 3; v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if want[[2]int32{v, g.Adj[e]}] != g.W(e) {
				t.Fatalf("w(%d,%d) = %d", v, g.Adj[e], g.W(e))
			}
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		f    func(b *Builder)
		want string
	}{
		{func(b *Builder) { b.AddEdge(0, 3, 1) }, "vertex 3 out of range"},
		{func(b *Builder) { b.AddEdge(1, 1, 1) }, "self loop"},
		{func(b *Builder) { b.AddEdge(0, 1, -1) }, "negative weight"},
		{func(b *Builder) { b.SetVertexWeight(2, -4) }, "negative weight"},
	} {
		b := NewBuilder(3)
		c.f(b)
		if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestBuilderRandomValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		n := 1 + rng.IntN(40)
		b := NewBuilder(n)
		total := map[[2]int]int64{}
		for i := 0; i < rng.IntN(200); i++ {
			u, v := rng.IntN(n), rng.IntN(n)
			if u == v {
				continue
			}
			w := int64(rng.IntN(10))
			b.AddEdge(u, v, w)
			total[[2]int{min(u, v), max(u, v)}] += w
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		if int(g.M()) != len(total) {
			t.Fatalf("m = %d, want %d", g.M(), len(total))
		}
		for v := 0; v < n; v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				u := int(g.Adj[e])
				if total[[2]int{min(u, v), max(u, v)}] != g.W(e) {
					t.Fatal("weight mismatch")
				}
			}
		}
	}
}
