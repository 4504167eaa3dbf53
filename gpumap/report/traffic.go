package report

import (
	"fmt"
	"math"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Traffic is a communication pattern among N tasks: undirected edges
// {U[i], V[i]} carrying volume W[i], each edge listed once.
type Traffic struct {
	N    int
	U, V []int32
	W    []float64
}

// FromGraph lists the edges of g once each, with their weights.
func FromGraph(g *graph.Graph) Traffic {
	t := Traffic{N: g.N()}
	for v := 0; v < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; int(u) > v {
				t.U, t.V, t.W = append(t.U, int32(v)), append(t.V, u), append(t.W, float64(g.W(e)))
			}
		}
	}
	return t
}

// Costs are J and the cut per level of one placement, as graph.Evaluate
// defines them, in the traffic's units.
type Costs struct {
	J           float64   // sum over edges of W x distance
	CutPerLevel []float64 // [i]: volume leaving level-i groups (0: PEs, 1: sockets, ...)
	Total       float64   // volume of all edges
}

// Evaluate computes the costs of running task t on PE pe[t].
func Evaluate(tr Traffic, top *topology.Topology, pe []int32) (Costs, error) {
	if err := check(tr, top, pe); err != nil {
		return Costs{}, err
	}
	c := Costs{CutPerLevel: make([]float64, top.Levels())}
	for i := range tr.U {
		w := tr.W[i]
		c.Total += w
		p, q := int(pe[tr.U[i]]), int(pe[tr.V[i]])
		if p == q {
			continue
		}
		c.J += w * float64(top.Distance(p, q))
		for l := 0; l < top.CommonLevel(p, q); l++ {
			c.CutPerLevel[l] += w
		}
	}
	return c, nil
}

func check(tr Traffic, top *topology.Topology, pe []int32) error {
	if len(pe) != tr.N {
		return fmt.Errorf("placement has %d entries for %d tasks", len(pe), tr.N)
	}
	if len(tr.V) != len(tr.U) || len(tr.W) != len(tr.U) {
		return fmt.Errorf("traffic has %d sources, %d targets and %d volumes", len(tr.U), len(tr.V), len(tr.W))
	}
	for t, p := range pe {
		if p < 0 || int(p) >= top.K() {
			return fmt.Errorf("task %d is placed on PE %d, outside [0,%d)", t, p, top.K())
		}
	}
	for i := range tr.U {
		if tr.U[i] < 0 || int(tr.U[i]) >= tr.N || tr.V[i] < 0 || int(tr.V[i]) >= tr.N {
			return fmt.Errorf("edge %d (%d,%d) names a task outside [0,%d)", i, tr.U[i], tr.V[i], tr.N)
		}
		if w := tr.W[i]; w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("edge %d (%d,%d) has volume %g", i, tr.U[i], tr.V[i], w)
		}
	}
	return nil
}

// MaxGroups bounds the groups of a drawn level (a 256 x 256 matrix).
const MaxGroups = 256

// Matrix is traffic aggregated on the groups of one level.
type Matrix struct {
	Level  int
	Groups []topology.Group // the level's groups in PE order
	// Vol[a*n+b], a != b: volume between groups a and b (symmetric);
	// Vol[a*n+a]: volume between tasks inside group a.
	Vol []float64
}

// N is the number of groups.
func (m *Matrix) N() int { return len(m.Groups) }

// At is the volume between groups a and b (inside a when a == b).
func (m *Matrix) At(a, b int) float64 { return m.Vol[a*len(m.Groups)+b] }

// Groups lists the groups of a level in PE order.
func Groups(top *topology.Topology, level int) []topology.Group {
	var gs []topology.Group
	for p := 0; p < top.K(); {
		g := top.GroupOf(level, p)
		gs = append(gs, g)
		p = g.Hi
	}
	return gs
}

// Aggregate sums the traffic of placement pe over the groups of level
// (0: PEs, 1: sockets, ..., Levels()-1: the groups just below the whole
// machine).
func Aggregate(tr Traffic, top *topology.Topology, pe []int32, level int) (*Matrix, error) {
	if level < 0 || level >= top.Levels() {
		return nil, fmt.Errorf("level %d is outside [0,%d]", level, top.Levels()-1)
	}
	if err := check(tr, top, pe); err != nil {
		return nil, err
	}
	gs := Groups(top, level)
	n := len(gs)
	if n > MaxGroups {
		return nil, fmt.Errorf("level %d has %d groups, more than the %d a picture can show: pick a coarser level", level, n, MaxGroups)
	}
	of := make([]int32, top.K())
	for i, g := range gs {
		for p := g.Lo; p < g.Hi; p++ {
			of[p] = int32(i)
		}
	}
	m := &Matrix{Level: level, Groups: gs, Vol: make([]float64, n*n)}
	for i := range tr.U {
		a, b := int(of[pe[tr.U[i]]]), int(of[pe[tr.V[i]]])
		m.Vol[a*n+b] += tr.W[i]
		if a != b {
			m.Vol[b*n+a] += tr.W[i]
		}
	}
	return m, nil
}
