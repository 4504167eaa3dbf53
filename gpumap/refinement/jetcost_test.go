package refinement

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// checkedJet is the CPU Jet whose every cost is checked against a sum
// over all edges.
type checkedJet struct {
	*jet
	t          *testing.T
	calls      int
	rebalances int
}

func (c *checkedJet) Rebalance(strong bool) error {
	c.rebalances++
	return c.jet.Rebalance(strong)
}

func (c *checkedJet) Cost() (int64, error) {
	got, _ := c.jet.Cost()
	if want := c.s.Cost(); got != want {
		c.t.Fatalf("cost %d after %d calls, the edges sum to %d", got, c.calls, want)
	}
	c.calls++
	return got, nil
}

// Jet's cost after label propagation is the last cost plus what the moves
// changed: it must be the cost summed over every edge, whatever moved
// (neighbours moving together included), after label propagation and
// after rebalancing, on the cut and on a mapping.
func TestJetCostFollowsMoves(t *testing.T) {
	top, _ := topology.Parse("4:3:2", "1:10:100")
	g := graph.Random(6000, 30000, 20, 3, 7)
	for _, obj := range []Objective{Cut(), Mapping(top)} {
		k := top.K()
		part, maxW := stripes(g, k)
		s := NewState(g, k, part, maxW, obj)
		for v := range s.Part { // scattered: many moves, many between neighbours
			s.Part[v] = int32(v*7919) % int32(k)
			if v%4 == 0 { // and block 0 overloaded: rebalancing first
				s.Part[v] = 0
			}
		}
		s = NewState(g, k, s.Part, maxW, obj)
		c := &checkedJet{jet: newJet(par.New(2), s, JetConfig{Seed: 1}), t: t}
		if _, err := RunJet(c, JetConfig{Seed: 1}); err != nil {
			t.Fatal(err)
		}
		if c.calls < 4 || c.rebalances == 0 {
			t.Fatalf("only %d costs checked, %d after rebalancing", c.calls, c.rebalances)
		}
	}
}
