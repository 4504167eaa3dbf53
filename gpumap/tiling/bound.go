package tiling

import (
	"math"
	"slices"
)

// Proving a tiling optimal.
//
// A level-i group of a one-to-one mapping holds s = a1*...*ai cells. Along
// dimension j every grid line meets some parts and is cut at least once
// between each two of them, so the edges between level-i groups weigh
//
//	C_i >= sum over groups S of sum_j w_j |P_j(S)|  -  sum_j w_j n/n_j,
//
// with P_j(S) the projection of S along j (the lines along j that meet S)
// and w_j the weight of the edges along j; a ring (periodic dimension) meeting c >= 2
// parts is cut c times, so its lines are not subtracted, and a group that
// holds a whole ring is priced apart (see LowerBound). A uniform tiling
// meets this with equality,
// so it cuts level i optimally when its box minimises sum_j w_j |P_j| over
// all sets of s cells. Projections do not grow when a set is pushed toward the
// origin along an axis, so that minimum is taken over down-sets of N^r;
// cutting a down-set into its layers along the last axis (nested down-sets
// D_0 ⊇ D_1 ⊇ ... of N^(r-1)) gives
//
//	sum_j w_j |P_j(S)| = w_r |D_0| + sum_t sum_{j<r} w_j |P_j(D_t)|
//	                   >= w_r |D_0| + sum_t mu_{r-1}(|D_t|),
//
// hence mu_r(s) >= min over M of w_r M + min { sum_t mu_{r-1}(m_t) : m_t
// <= M, sum m_t = s }, with mu_1 = w_1 (a knapsack per M); any order of
// the axes gives a bound, and two are tried (lightest and heaviest axis
// last). When every level whose cut J weighs (d_{i+1} > d_i) meets its
// bound and the distances grow with the level, no mapping has a lower J.

// maxBoundCells bounds the group size whose bound is computed (the
// knapsack is cubic in it).
const maxBoundCells = 256

// projectionBound returns mu[x] for x = 0..s: a lower bound on sum_j w[j]
// |P_j(S)| over sets S of x cells of N^len(w), layered along the axes in
// the order of w (the last outermost).
func projectionBound(w []int64, s int) []int64 {
	mu := make([]int64, s+1)
	if len(w) == 0 {
		return mu
	}
	for x := 1; x <= s; x++ {
		mu[x] = w[0]
	}
	k := make([]int64, s+1)
	for _, wd := range w[1:] {
		next := make([]int64, s+1)
		for x := 1; x <= s; x++ {
			next[x] = math.MaxInt64
		}
		for M := 1; M <= s; M++ {
			k[0] = 0
			for x := 1; x <= s; x++ {
				best := int64(math.MaxInt64)
				for m := 1; m <= min(M, x); m++ {
					best = min(best, mu[m]+k[x-m])
				}
				k[x] = best
				next[x] = min(next[x], wd*int64(M)+best)
			}
		}
		mu = next
	}
	return mu
}

// boundOf returns the better of the projection bounds with the axes
// (weights w) ordered lightest last and heaviest last: mu[x] for x <= s.
func boundOf(w []int64, s int) []int64 {
	asc := slices.Clone(w)
	slices.Sort(asc)
	mu := projectionBound(asc, s)
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	if slices.Equal(asc, desc) {
		return mu
	}
	for x, v := range projectionBound(desc, s) {
		mu[x] = max(mu[x], v)
	}
	return mu
}

// LowerBound returns a lower bound on J over all one-to-one mappings of
// grid gr onto the machine (arity, dist): the least cut of every level by
// the projection bound (exact up to 256 cells per group in 2D, the
// Loomis-Whitney bound r (prod w_j)^(1/r) s^((r-1)/r) beyond 256). ok is
// false when no bound is known: distances that decrease with the level.
// A tiling whose J equals the bound is optimal.
func LowerBound(gr Grid, arity []int, dist []int64) (lb int64, ok bool) {
	L, r := len(arity), len(gr.Dims)
	if len(dist) != L || dist[0] < 0 {
		return 0, false
	}
	for i := 1; i < L; i++ {
		if dist[i] < dist[i-1] {
			return 0, false
		}
	}
	n := 1
	for _, d := range gr.Dims {
		n *= d
	}
	for j := range gr.Dims {
		lb += dist[0] * gr.W[j] * int64(gr.edges(j))
	}
	sizes := make([]int, L) // sizes[i]: cells of a level-i group
	sizes[0] = 1
	most := 0
	for i := 1; i < L; i++ {
		sizes[i] = sizes[i-1] * arity[i-1]
		if dist[i] != dist[i-1] {
			most = max(most, sizes[i])
		}
	}
	most = min(most, maxBoundCells)
	mu := boundOf(gr.W, most)
	muLayer := make([][]int64, r) // without axis j, for groups holding a ring along j
	for i := 1; i < L; i++ {
		s := sizes[i]
		if dist[i] == dist[i-1] {
			continue
		}
		var proj int64
		if s < len(mu) {
			proj = mu[s]
		} else {
			geo := 1.0
			for _, w := range gr.W {
				geo *= math.Pow(float64(w), 1/float64(r))
			}
			proj = int64(float64(r) * geo * math.Pow(float64(s), float64(r-1)/float64(r)) * (1 - 1e-9))
		}
		// A line meeting c parts is cut c-1 times, a ring c times unless
		// one part holds all of it: rings count in full, and a group
		// that holds a ring along j is priced by ringBound.
		var lines int64
		for j, d := range gr.Dims {
			if !gr.Periodic[j] {
				lines += gr.W[j] * int64(n/d)
			} else if d <= s {
				if muLayer[j] == nil {
					muLayer[j] = boundOf(slices.Delete(slices.Clone(gr.W), j, j+1), most)
				}
				proj = min(proj, gr.ringBound(j, s, muLayer[j]))
			}
		}
		if cut := int64(n/s)*proj - lines; cut > 0 {
			lb += (dist[i] - dist[i-1]) * cut
		}
	}
	return lb, true
}

// Optimal reports whether tiling t of grid gr onto the machine (arity,
// dist) is proven to have the least J of all one-to-one mappings: its J
// meets LowerBound (distances that do not decrease with the level, at
// every level whose cut counts in J a box whose weighted projections meet
// the bound).
func Optimal(gr Grid, arity []int, dist []int64, t Tiling) bool {
	lb, ok := LowerBound(gr, arity, dist)
	return ok && t.J == lb
}

// ringBound is a lower bound on sum_k w_k (|P_k(S)| - rings of S along k)
// for a set S of s cells that holds a whole ring along periodic dimension
// j: its n_j layers across j are non-empty, and the lines along every
// other dimension k lie in one layer each, so they weigh at least the
// least sum of muLayer over n_j positive layer sizes adding up to s; S
// holds at most (s - n_j) / (n_k - 1) rings along another periodic k
// (they are disjoint and meet the ring along j in one cell at most), and
// the lines along j it meets are at least the rings it holds. muLayer too
// short: 0.
func (gr Grid) ringBound(j, s int, muLayer []int64) int64 {
	nj := gr.Dims[j]
	if s >= len(muLayer) {
		return 0
	}
	// least[x]: least sum of muLayer over t positive parts adding up to x
	least := make([]int64, s+1)
	for x := range least {
		least[x] = math.MaxInt64 / 2
	}
	least[0] = 0
	for t := 0; t < nj; t++ {
		next := make([]int64, s+1)
		for x := range next {
			next[x] = math.MaxInt64 / 2
			for m := 1; m <= x; m++ {
				next[x] = min(next[x], least[x-m]+muLayer[m])
			}
		}
		least = next
	}
	b := least[s]
	for k, e := range gr.Dims {
		if k != j && gr.Periodic[k] {
			b -= gr.W[k] * int64((s-nj)/(e-1))
		}
	}
	return max(b, 0)
}
