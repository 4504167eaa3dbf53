package graph

import (
	"fmt"
	"math"

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

// Lmax is the block weight limit ceil((1+eps) * total / k). A relative
// tolerance of 1e-12 keeps exact quotients (eps = 0, total = k) from being
// rounded up by floating-point noise.
func Lmax(total int64, k int, eps float64) int64 {
	x := (1 + eps) * float64(total) / float64(k)
	return int64(math.Ceil(x * (1 - 1e-12)))
}

// Evaluate computes the metrics of mapping part (one PE per vertex) of g
// onto top with imbalance eps.
func Evaluate(g *Graph, top *topology.Topology, part []int32, eps float64) (Metrics, error) {
	if len(part) != g.N() {
		return Metrics{}, fmt.Errorf("mapping has %d entries for %d vertices", len(part), g.N())
	}
	k := top.K()
	load := make([]int64, k)
	for v, p := range part {
		if p < 0 || int(p) >= k {
			return Metrics{}, fmt.Errorf("vertex %d is mapped to PE %d, outside [0,%d)", v, p, k)
		}
		load[p] += g.VW[v]
	}
	labels := top.Labels()
	L := top.Levels()
	mt := Metrics{CutPerLevel: make([]int64, L)}
	for v := 0; v < g.N(); v++ {
		pv := part[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := g.Adj[e]
			if int(u) < v || part[u] == pv {
				continue
			}
			w := g.W(e)
			d := top.LabelDistance(labels[pv], labels[part[u]])
			if w > 0 && d > (math.MaxInt64-mt.J)/w {
				return Metrics{}, fmt.Errorf("J overflows int64 at edge (%d,%d)", v, u)
			}
			mt.J += w * d
			mt.Cut += w
			lvl := top.CommonLevel(int(pv), int(part[u]))
			for i := 0; i < lvl; i++ {
				mt.CutPerLevel[i] += w
			}
		}
	}
	total := g.TotalVertexWeight()
	for _, l := range load {
		mt.MaxBlock = max(mt.MaxBlock, l)
	}
	mt.Lmax = Lmax(total, k, eps)
	if total > 0 {
		mt.Imbalance = float64(mt.MaxBlock)/(float64(total)/float64(k)) - 1
	}
	mt.Feasible = mt.MaxBlock <= mt.Lmax
	return mt, nil
}
