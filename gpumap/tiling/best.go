package tiling

import "math"

// Tiling is a hierarchical tiling of a grid onto a regular machine: Q[i][j]
// is the number of slabs along dimension j of the level-i groups (Q[0] the
// grid's extents, one cell per PE; Q[L] all ones, the whole machine).
type Tiling struct {
	Q [][]int
	J int64 // from the closed form
}

// Work limits of Best: the states of one level, and the state pairs of the
// whole search. Beyond them Best gives up (no tiling), which only happens
// for grids of very many dimensions.
const (
	maxStates = 1 << 12
	maxPairs  = 1 << 22
)

// Best returns the uniform hierarchical tiling of least J of grid gr onto
// the machine arity (a1 innermost) with distances dist, or false when none
// exists (the grid has not k = a1*...*aL cells, or no level's arity can be
// cut out of the boxes above it) or the search is too large. Ties go to
// the first tiling in a fixed enumeration order.
func Best(gr Grid, arity []int, dist []int64) (Tiling, bool) {
	L := len(arity)
	n := 1
	for _, d := range gr.Dims {
		n *= d
	}
	groups := make([]int, L+1) // groups[i]: number of level-i groups
	groups[0] = n
	for i, a := range arity {
		if a <= 0 || groups[i]%a != 0 {
			return Tiling{}, false
		}
		groups[i+1] = groups[i] / a
	}
	if groups[L] != 1 || len(dist) != L {
		return Tiling{}, false
	}
	// coef[i]: the factor of C_i in J (i = 1..L-1); C_0's is d1.
	coef := make([]int64, L)
	var total, absCoef int64
	for j := range gr.Dims {
		c := gr.W[j] * int64(gr.edges(j))
		if gr.W[j] < 0 || gr.W[j] > 0 && c/gr.W[j] != int64(gr.edges(j)) {
			return Tiling{}, false
		}
		total += c
	}
	absCoef = abs(dist[0])
	for i := 1; i < L; i++ {
		coef[i] = dist[i] - dist[i-1]
		absCoef += abs(coef[i])
	}
	if total < 0 || absCoef > 0 && total > math.MaxInt64/4/absCoef {
		return Tiling{}, false // J's terms could overflow
	}
	cut := func(q []int) int64 {
		var c int64
		for j, x := range q {
			c += gr.W[j] * int64(gr.cutPlanes(j, x)) * int64(n/gr.Dims[j])
		}
		return c
	}
	divisors := make([][]int, len(gr.Dims))
	for j, d := range gr.Dims {
		for t := 1; t <= d; t++ {
			if d%t == 0 {
				divisors[j] = append(divisors[j], t)
			}
		}
	}
	// states[i]: every vector q with q_j | n_j and product groups[i].
	states := make([][][]int, L+1)
	states[0] = [][]int{append([]int(nil), gr.Dims...)}
	ones := make([]int, len(gr.Dims))
	for j := range ones {
		ones[j] = 1
	}
	states[L] = [][]int{ones}
	for i := 1; i < L; i++ {
		var out [][]int
		q := make([]int, len(gr.Dims))
		ok := true
		var gen func(j, rem int)
		gen = func(j, rem int) {
			if !ok {
				return
			}
			if j == len(q) {
				if rem == 1 {
					if len(out) == maxStates {
						ok = false
						return
					}
					out = append(out, append([]int(nil), q...))
				}
				return
			}
			for _, t := range divisors[j] {
				if rem%t == 0 {
					q[j] = t
					gen(j+1, rem/t)
				}
			}
		}
		gen(0, groups[i])
		if !ok || len(out) == 0 {
			return Tiling{}, false
		}
		states[i] = out
	}
	pairs := 0
	for i := 0; i < L; i++ {
		pairs += len(states[i]) * len(states[i+1])
	}
	if pairs > maxPairs {
		return Tiling{}, false
	}
	// best[i][s]: least cost of levels i..L-1 with level i in state s;
	// from[i][s]: the level-(i+1) state it continues with.
	best := make([][]int64, L+1)
	from := make([][]int, L+1)
	best[L] = []int64{0}
	for i := L - 1; i >= 0; i-- {
		best[i] = make([]int64, len(states[i]))
		from[i] = make([]int, len(states[i]))
		for s, q := range states[i] {
			c := int64(0)
			if i > 0 {
				c = coef[i] * cut(q)
			}
			bi := -1
			for t, up := range states[i+1] {
				if best[i+1][t] == math.MaxInt64 || !divides(up, q) {
					continue
				}
				if bi < 0 || best[i+1][t] < best[i+1][bi] {
					bi = t
				}
			}
			if bi < 0 {
				best[i][s] = math.MaxInt64
				continue
			}
			best[i][s], from[i][s] = c+best[i+1][bi], bi
		}
	}
	if best[0][0] == math.MaxInt64 {
		return Tiling{}, false
	}
	t := Tiling{Q: make([][]int, L+1), J: dist[0]*total + best[0][0]}
	s := 0
	for i := 0; i <= L; i++ {
		t.Q[i] = states[i][s]
		if i < L {
			s = from[i][s]
		}
	}
	return t, true
}

// cutPlanes is the number of planes across dimension j that q slabs cut:
// q-1, or q on a ring (none for a single slab).
func (gr Grid) cutPlanes(j, q int) int {
	if gr.Periodic[j] && q > 1 {
		return q
	}
	return q - 1
}

// edges is the number of edges along dimension j.
func (gr Grid) edges(j int) int {
	n := 1
	for _, d := range gr.Dims {
		n *= d
	}
	return n / gr.Dims[j] * gr.cutPlanes(j, gr.Dims[j])
}

func divides(a, b []int) bool {
	for j := range a {
		if b[j]%a[j] != 0 {
			return false
		}
	}
	return true
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Map returns the PE of every vertex of grid gr under tiling t, for the
// machine arity (a1 innermost): the PE's level-i digit is the index of the
// cell's level-(i-1) box inside its level-i box.
func Map(gr Grid, arity []int, t Tiling) []int32 {
	n := 1
	for _, d := range gr.Dims {
		n *= d
	}
	L := len(arity)
	r := len(gr.Dims)
	// For level i: the box extent below it and the slabs per box along j.
	box := make([][]int, L+1)
	parts := make([][]int, L+1)
	span := 1
	spans := make([]int, L+1)
	for i := 1; i <= L; i++ {
		box[i], parts[i] = make([]int, r), make([]int, r)
		for j := 0; j < r; j++ {
			box[i][j] = gr.Dims[j] / t.Q[i-1][j]
			parts[i][j] = t.Q[i-1][j] / t.Q[i][j]
		}
		spans[i] = span
		span *= arity[i-1]
	}
	pe := make([]int32, n)
	coord := make([]int, r)
	for v := 0; v < n; v++ {
		p := 0
		for i := 1; i <= L; i++ {
			c := 0
			for j := r - 1; j >= 0; j-- {
				c = c*parts[i][j] + coord[j]/box[i][j]%parts[i][j]
			}
			p += c * spans[i]
		}
		pe[v] = int32(p)
		for j := 0; j < r; j++ {
			if coord[j]++; coord[j] < gr.Dims[j] {
				break
			}
			coord[j] = 0
		}
	}
	return pe
}

// Boxes returns, for tiling t and a level (1..L), every vertex's index
// inside its level-`level` box (row-major, fastest dimension first) and
// whether it lies in the first box; ext are the box's extents. All boxes
// of a level are translates of the first.
func (gr Grid) Boxes(t Tiling, level int) (index []int32, first []bool, ext []int) {
	r := len(gr.Dims)
	ext = make([]int, r)
	n := 1
	for j, d := range gr.Dims {
		ext[j] = d / t.Q[level][j]
		n *= d
	}
	index, first = make([]int32, n), make([]bool, n)
	coord := make([]int, r)
	for v := 0; v < n; v++ {
		local, span, in := 0, 1, true
		for j := 0; j < r; j++ {
			local += coord[j] % ext[j] * span
			span *= ext[j]
			in = in && coord[j] < ext[j]
		}
		index[v], first[v] = int32(local), in
		for j := 0; j < r; j++ {
			if coord[j]++; coord[j] < gr.Dims[j] {
				break
			}
			coord[j] = 0
		}
	}
	return index, first, ext
}
