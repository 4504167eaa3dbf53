package graph

import (
	"math"
	"testing"
)

// path3 is the path 0-1-2 with edge weights a (0-1) and b (1-2).
func path3(t *testing.T, a, b int64) *Graph {
	t.Helper()
	bl := NewBuilder(3)
	bl.AddEdge(0, 1, a)
	bl.AddEdge(1, 2, b)
	g, err := bl.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The weights are stored as compactly as their total allows, and read back
// unchanged whatever the form.
func TestEdgeWeightForms(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b       int64
		unit, wide bool
	}{
		{"unit", 1, 1, true, false},
		{"narrow", 5, 7, false, false},
		{"narrow at the limit", math.MaxInt32 - 1, 1, false, false},
		{"wide: total one past the limit", math.MaxInt32, 1, false, true},
		{"wide: one heavy edge", 1 << 40, 1, false, true},
	} {
		g := path3(t, c.a, c.b)
		w32, w64 := g.Weights()
		if unit := w32 == nil && w64 == nil; unit != c.unit || g.Wide() != c.wide {
			t.Errorf("%s: unit=%v wide=%v, want %v %v", c.name, unit, g.Wide(), c.unit, c.wide)
		}
		if g.W(g.XAdj[1]) != c.a || g.W(g.XAdj[1]+1) != c.b || g.W(0) != c.a {
			t.Errorf("%s: weights read back as %v", c.name, g.EdgeWeights())
		}
		if got := g.TotalEdgeWeight(); got != c.a+c.b {
			t.Errorf("%s: total %d, want %d", c.name, got, c.a+c.b)
		}
		if err := g.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if u, e := g.UnitWeights(); !u || e != c.unit {
			t.Errorf("%s: UnitWeights = %v %v", c.name, u, e)
		}
	}
}

func TestNegativeWeightStaysVisible(t *testing.T) {
	g := path3(t, 1, 1)
	ew := g.EdgeWeights()
	ew[0], ew[1] = -3, -3 // 0->1 and 1->0
	g.SetEdgeWeights(ew)
	if g.W(0) != -3 || g.Validate() == nil {
		t.Fatalf("negative weight lost: W(0)=%d", g.W(0))
	}
}
