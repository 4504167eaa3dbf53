package refinement

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// With JetConfig.Segment, the Jet loop refines independent parts side by
// side (GPU-HM's groups of one machine level): two graphs with no edge
// between them, blocks 0-1 for the first and 2-3 for the second, block 0
// holding 95% of the first. A rebalancing round (weak, then strong) must
// move block 0's vertices into block 1 only, though blocks 2 and 3 have
// room too (without segments, a vertex with no neighbour in a block with
// room goes to any block with room), and the Jet loop ends feasible.
func TestJetSegmentsStayApart(t *testing.T) {
	a, b := graph.RandomGeometric(1500, 0x5e6), graph.RandomGeometric(1500, 0x5e7)
	na := int32(a.N())
	u := &graph.Graph{XAdj: append(slices.Clone(a.XAdj), make([]int64, b.N())...), Adj: slices.Clone(a.Adj)}
	for v := 0; v < b.N(); v++ {
		u.XAdj[a.N()+v+1] = a.XAdj[a.N()] + b.XAdj[v+1]
	}
	for _, w := range b.Adj {
		u.Adj = append(u.Adj, w+na)
	}
	u.VW = make([]int64, a.N()+b.N())
	for v := range u.VW {
		u.VW[v] = 1
	}
	part := make([]int32, u.N())
	for v := range part {
		switch {
		case int32(v) < na:
			part[v] = 1 - int32(min(v%20, 1)) // 1 in 20 in block 1
		default:
			part[v] = 2 + int32(v%2)
		}
	}
	top, _ := topology.NewRegular([]int{4}, []int64{1})
	lmax := graph.Lmax(int64(u.N()), 4, 0.03)
	s := NewState(u, 4, part, []int64{lmax, lmax, lmax, lmax}, Mapping(top))
	apart := func(what string) {
		t.Helper()
		for v, p := range s.Part {
			if (int32(v) < na) != (p < 2) {
				t.Fatalf("%s: vertex %d (graph %d) moved to block %d of the other segment", what, v, 1+v/int(na), p)
			}
		}
	}
	cfg := JetConfig{Seed: 3, Segment: 2}
	j := newJet(par.New(2), s, cfg)
	for _, strong := range []bool{false, true} {
		before := s.BW[0]
		if err := j.Rebalance(strong); err != nil {
			t.Fatal(err)
		}
		apart(fmt.Sprintf("rebalancing (strong %v)", strong))
		if s.BW[0] >= before {
			t.Errorf("rebalancing (strong %v) moved nothing out of block 0 (%d)", strong, before)
		}
		s.Part[0], s.Part[1] = 0, 0 // overloaded again
		j.blockWeights()
	}
	Jet(par.New(2), s, cfg)
	apart("the Jet loop")
	if s.Excess() != 0 {
		t.Errorf("excess %d after the Jet loop, block weights %v, lmax %d", s.Excess(), s.BW, lmax)
	}
	// Room by segment (lmax 10, dead zone from 9): blocks 0-1 weigh 9 and
	// 12, 10 on average, so their sigma is lmax and block 0 has room;
	// 2-3 weigh 3 and 9, sigma 9, room in block 2. The machine's average
	// (8) would leave room in block 2 only.
	if _, room, list := RebalanceTargets([]int64{9, 12, 3, 9}, 10, 2); !slices.Equal(list, []int32{0, 2}) || !room[0] || room[3] {
		t.Errorf("room by segment: %v %v, want blocks 0 and 2", room, list)
	}
	if lo, hi := SegmentRoom([]int32{0, 2, 3}, 3, 2); lo != 1 || hi != 3 {
		t.Errorf("block 3's room in [0 2 3]: [%d, %d), want [1, 3)", lo, hi)
	}
}
