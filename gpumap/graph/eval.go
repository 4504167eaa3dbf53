package graph

import (
	"fmt"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"math"
	"sort"

	"github.com/gpumap/gpumap/topology"
)

// Metrics describes the quality of a mapping.
type Metrics struct {
	J           int64   // sum over undirected edges of w(u,v) * D(pe(u), pe(v))
	Cut         int64   // weight of edges between different PEs
	CutPerLevel []int64 // [i]: weight of edges leaving a level-i group (0: PE, 1: socket, ...)
	MaxBlock    int64   // heaviest PE load
	Lmax        int64   // ceil((1+eps) c(V) / k)
	Imbalance   float64 // MaxBlock / (c(V)/k) - 1
	Feasible    bool    // MaxBlock <= Lmax
}

// Evaluate computes the metrics of mapping part (one PE per vertex) of g
// onto top with imbalance eps. Time and memory are O(n + m) whatever the
// number of PEs (a machine may have far more PEs than g has vertices).
func Evaluate(g *Graph, top *topology.Topology, part []int32, eps float64) (Metrics, error) {
	if len(part) != g.N() {
		return Metrics{}, fmt.Errorf("mapping has %d entries for %d vertices", len(part), g.N())
	}
	k := top.K()
	x := par.New(0)
	// Labels per vertex, from a table per PE when there are few PEs; the
	// first vertex on a PE out of range is reported.
	vl := make([]uint64, len(part))
	var labels []uint64
	if k <= len(part) {
		labels = top.Labels()
	}
	outside := make([]int, x.Chunks(len(part)))
	x.For(len(part), func(c, lo, hi int) {
		outside[c] = -1
		for v := lo; v < hi; v++ {
			p := part[v]
			switch {
			case p < 0 || int(p) >= k:
				outside[c] = v
				return
			case labels != nil:
				vl[v] = labels[p]
			default:
				vl[v] = top.Label(int(p))
			}
		}
	})
	for _, v := range outside {
		if v >= 0 {
			return Metrics{}, fmt.Errorf("vertex %d is mapped to PE %d, outside [0,%d)", v, part[v], k)
		}
	}
	L := top.Levels()
	// Ranges of vertices are summed in parallel; a range whose sum would
	// overflow, or sums that overflow together, send the evaluation to the
	// sequential loop, which names the edge.
	parts := make([]Metrics, x.Chunks(g.N()))
	ok := make([]bool, len(parts))
	x.For(g.N(), func(c, lo, hi int) {
		parts[c] = Metrics{CutPerLevel: make([]int64, L)}
		ok[c] = evalRange(g, top, part, vl, lo, hi, &parts[c]) == nil
	})
	mt := Metrics{CutPerLevel: make([]int64, L)}
	for c := range parts {
		if !ok[c] || parts[c].J > math.MaxInt64-mt.J {
			mt = Metrics{CutPerLevel: make([]int64, L)}
			if err := evalRange(g, top, part, vl, 0, g.N(), &mt); err != nil {
				return Metrics{}, err
			}
			break
		}
		mt.J += parts[c].J
		mt.Cut += parts[c].Cut
		for i := range mt.CutPerLevel {
			mt.CutPerLevel[i] += parts[c].CutPerLevel[i]
		}
	}
	total := g.TotalVertexWeight()
	mt.MaxBlock = maxLoad(x, g, part, k)
	mt.Lmax = Lmax(total, k, eps)
	if total > 0 {
		mt.Imbalance = float64(mt.MaxBlock)/(float64(total)/float64(k)) - 1
	}
	mt.Feasible = mt.MaxBlock <= mt.Lmax
	return mt, nil
}

// maxLoad is the heaviest PE's load: a table per PE when k is not much
// larger than n (one per thread, added up, when the tables together are
// no larger than n), else the vertices sorted by PE.
func maxLoad(x *par.Exec, g *Graph, part []int32, k int) int64 {
	var m int64
	if k <= 4*len(part)+64 {
		chunks := x.Chunks(len(part))
		if chunks*k > len(part) {
			x = par.New(1)
		}
		loads := make([][]int64, x.Chunks(len(part)))
		x.For(len(part), func(c, lo, hi int) {
			load := make([]int64, k)
			for v := lo; v < hi; v++ {
				load[part[v]] += g.VW[v]
			}
			loads[c] = load
		})
		for p := 0; p < k; p++ {
			var l int64
			for _, load := range loads {
				l += load[p]
			}
			m = max(m, l)
		}
		return m
	}
	order := make([]int32, len(part))
	for v := range order {
		order[v] = int32(v)
	}
	sort.Slice(order, func(a, b int) bool { return part[order[a]] < part[order[b]] })
	var cur int64
	for i, v := range order {
		if i > 0 && part[v] != part[order[i-1]] {
			cur = 0
		}
		cur += g.VW[v]
		m = max(m, cur)
	}
	return m
}

// evalRange adds the cost of the edges of vertices [lo,hi) to mt.
func evalRange(g *Graph, top *topology.Topology, part []int32, vl []uint64, lo, hi int, mt *Metrics) error {
	for v := lo; v < hi; v++ {
		pv := part[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			if int(u) < v || part[u] == pv {
				continue
			}
			w := g.W(e)
			d := top.LabelDistance(vl[v], vl[u])
			if w > 0 && d > (math.MaxInt64-mt.J)/w {
				return fmt.Errorf("J overflows int64 at edge (%d,%d)", v, u)
			}
			mt.J += w * d
			mt.Cut += w
			lvl := top.LabelLevel(vl[v], vl[u])
			for i := 0; i < lvl; i++ {
				mt.CutPerLevel[i] += w
			}
		}
	}
	return nil
}
