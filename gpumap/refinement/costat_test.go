package refinement

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// refCostAt is the cost of sitting in block b as costAt summed it before
// b's label was read once: conn(x) * o.D(b, x) over the adjacent blocks x.
func refCostAt(o *Objective, blocks []int32, conn func(int32) int64, b int32) int64 {
	var c int64
	for _, x := range blocks {
		if x != b {
			c += conn(x) * o.D(b, x)
		}
	}
	return c
}

// TestCostAtAsD: nbhd.costAt and ConnTable.costAt equal refCostAt for
// every block, on random weighted graphs and assignments under the cut and
// under J on several hierarchies.
func TestCostAtAsD(t *testing.T) {
	tops := []struct{ h, d string }{{"8", "1"}, {"2:4:3", "1:10:100"}, {"4:8:6", "1:10:100"}, {"3:5", "2:7"}}
	for trial := 0; trial < 300; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 0xc0a7))
		tc := tops[trial%len(tops)]
		top, err := topology.Parse(tc.h, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		k := top.K()
		objs := []Objective{Cut(), Mapping(top)}
		n := 2 + rng.IntN(120)
		b := graph.NewBuilder(n)
		for range rng.IntN(8 * n) {
			u, v := rng.IntN(n), rng.IntN(n)
			if u != v {
				b.AddEdge(u, v, int64(rng.IntN(9)))
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		part := make([]int32, n)
		for v := range part {
			part[v] = int32(rng.IntN(k))
		}
		for _, o := range objs {
			s := NewState(g, k, part, nil, o)
			ct := NewConnTable(s)
			h := newNbhd(k)
			for v := int32(0); v < int32(n); v++ {
				h.load(s, v)
				blk, w := ct.entriesOf(v)
				for bl := int32(0); bl < int32(k); bl++ {
					want := refCostAt(&s.Obj, h.blocks, h.connTo, bl)
					if got := h.costAt(&s.Obj, bl); got != want {
						t.Fatalf("trial %d v %d b %d: nbhd.costAt %d, sum of D %d", trial, v, bl, got, want)
					}
					wantCT := refCostAt(&s.Obj, blk, func(x int32) int64 { return w[indexOf(blk, x)] }, bl)
					if got := ct.costAt(v, bl); got != wantCT {
						t.Fatalf("trial %d v %d b %d: ConnTable.costAt %d, sum of D %d", trial, v, bl, got, wantCT)
					}
				}
			}
		}
	}
}

// entriesOf builds v's entries and returns them.
func (c *ConnTable) entriesOf(v int32) ([]int32, []int64) {
	c.ensure(v)
	x := c.at[v]
	return split(c.e[x.off : x.off+int64(x.cnt)])
}

func indexOf(a []int32, x int32) int {
	for i, y := range a {
		if y == x {
			return i
		}
	}
	return -1
}
