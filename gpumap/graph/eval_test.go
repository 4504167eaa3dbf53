package graph

import (
	"testing"

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
