package graph

import (
	"fmt"
	"math"
)

// Limits on the numbers in a graph (stated in README.md and gpumap.h).
// They keep every sum the mapper forms (block loads, Lmax times k, gains,
// J) at least a factor of two away from int64 overflow.
const (
	// MaxTotalVertexWeight bounds c(V), the sum of the vertex weights.
	MaxTotalVertexWeight = 1 << 61
	// MaxTotalEdgeWeight bounds the sum of the edge weights (each
	// undirected edge counted once).
	MaxTotalEdgeWeight = 1 << 61
	// MaxCost bounds the total edge weight times the largest distance of
	// the machine, the largest J any mapping can have.
	MaxCost = 1 << 62
)

// CheckWeights verifies that the vertex weights and the edge weights each
// sum to at most their limit, naming the vertex at which a sum first
// passes it. Weights must already be known to be non-negative.
func CheckWeights(g *Graph, where func(v int32) string) error {
	var sv, se int64
	for v := range g.VW {
		if g.VW[v] > MaxTotalVertexWeight-sv {
			return fmt.Errorf("%s: the vertex weights sum to more than %d (2^61), the limit of c(V)", where(int32(v)), int64(MaxTotalVertexWeight))
		}
		sv += g.VW[v]
	}
	if w32, w64 := g.Weights(); w64 == nil && (w32 == nil || int64(len(g.Adj)) <= 1<<31) {
		// Unit weights sum to 2m; at most 2^31 weights below 2^31 each
		// sum to less than 2^62: neither can pass the limit.
		return nil
	}
	for v := 0; v+1 < len(g.XAdj); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			// Directed sum: twice the undirected one.
			w := g.W(e)
			if w > 2*MaxTotalEdgeWeight-se {
				return fmt.Errorf("%s: the edge weights sum to more than %d (2^61), the limit of the total edge weight", where(int32(v)), int64(MaxTotalEdgeWeight))
			}
			se += w
		}
	}
	return nil
}

// CheckCost verifies that no mapping of g onto a machine whose largest
// distance is maxDist can have a cost J above MaxCost. g must satisfy
// CheckWeights.
func CheckCost(g *Graph, maxDist int64) error {
	w := g.TotalEdgeWeight()
	if maxDist > 0 && w > MaxCost/maxDist {
		return fmt.Errorf("the edge weights sum to %d and the largest distance is %d: J could reach their product, more than %d (2^62); scale the edge weights or the distances down", w, maxDist, int64(MaxCost))
	}
	return nil
}

// Lmax is the block weight limit ceil((1+eps) * total / k). A relative
// tolerance of 1e-12 keeps exact quotients (total = k, eps = 0.1 and
// total = 10) from being rounded up by floating-point noise. The limit is
// never below ceil(total/k) (exact for eps = 0, whatever the magnitude)
// and never above 2^62/k, so that k * Lmax cannot overflow.
func Lmax(total int64, k int, eps float64) int64 {
	if k <= 0 {
		return total
	}
	exact := total / int64(k)
	if total%int64(k) != 0 {
		exact++
	}
	if !(eps > 0) {
		return exact
	}
	x := math.Ceil((1 + eps) * float64(total) / float64(k) * (1 - 1e-12))
	if ceiling := float64(MaxCost / int64(k)); !(x < ceiling) {
		return max(MaxCost/int64(k), exact)
	}
	return max(int64(x), exact)
}

// EpsFor is the imbalance that gives total on k blocks the limit lmax:
// Lmax's formula solved for eps, then moved by relative steps where its
// rounding (Lmax's 1e-12 tolerance, float64's) missed lmax: down while
// the limit is above lmax (steps of 1e-9, until eps is 0), up at most 8
// steps of 1e-12 while it is below. Lmax(total, k, EpsFor(total, k,
// lmax)) is lmax where lmax >= ceil(total/k), the callers check it (a
// negative eps: lmax below the average). gpumap's sparse machines (the
// same Lmax on a prefix of the machine) and top-down groups (a group's
// PEs at the whole machine's Lmax) both use it.
func EpsFor(total int64, k int, lmax int64) float64 {
	if total <= 0 || k <= 0 {
		return -1
	}
	eps := float64(lmax)*float64(k)/float64(total) - 1
	for eps > 0 && Lmax(total, k, eps) > lmax {
		eps = max(0, eps-1e-9*(1+eps))
	}
	for try := 0; try < 8 && eps >= 0 && Lmax(total, k, eps) < lmax; try++ {
		eps += 1e-12 * (1 + eps)
	}
	return eps
}
