package graph

import (
	"bytes"
	"math"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// parallelParseMin is the body size from which METIS text is parsed in
// parallel; smaller inputs take the sequential parser. parseChunk is the
// size of the text pieces parsed by one task. (Variables for the tests.)
var parallelParseMin, parseChunk = 1 << 20, 1 << 20

// parseParallel parses the vertex lines of a METIS file (body follows the
// header h) on all cores: one pass counts lines and tokens per piece of
// text, a prefix sum places every vertex, a second pass parses the numbers
// straight into the CSR arrays. The result is what the sequential parser
// gives. It returns nil whenever anything is unusual (any error, edge
// weights that need 64 bits, adjacency lists that are not sorted): the
// sequential parser then decides, and names the line of the error.
func parseParallel(body []byte, h header) *Graph {
	if len(body) < parallelParseMin {
		return nil
	}
	x := par.New(0)
	n := h.n
	// Piece boundaries at line starts.
	pieces := (len(body) + parseChunk - 1) / parseChunk
	start := make([]int, pieces+1)
	for i := 1; i < pieces; i++ {
		s := max(len(body)*i/pieces, start[i-1])
		if j := bytes.IndexByte(body[s:], '\n'); j >= 0 {
			s += j + 1
		} else {
			s = len(body)
		}
		start[i] = s
	}
	start[pieces] = len(body)
	// Pass 1: tokens on every vertex (non-comment) line of every piece.
	tokens := make([][]int32, pieces)
	bad := make([]bool, pieces)
	x.Each(pieces, func(_, i int) {
		var tk []int32
		forLines(body[start[i]:start[i+1]], func(ln []byte) {
			if isComment(ln) {
				return
			}
			c := 0
			for j := 0; j < len(ln); {
				for j < len(ln) && (ln[j] == ' ' || ln[j] == '\t') {
					j++
				}
				if j == len(ln) {
					break
				}
				c++
				for j < len(ln) && ln[j] != ' ' && ln[j] != '\t' {
					j++
				}
			}
			tk = append(tk, int32(c))
		})
		tokens[i] = tk
	})
	first := make([]int64, pieces+1) // index of each piece's first vertex line
	for i := range tokens {
		first[i+1] = first[i] + int64(len(tokens[i]))
	}
	if first[pieces] < n {
		return nil // too few vertex lines
	}
	fixed := int32(0)
	if h.hasSize {
		fixed++
	}
	if h.hasVW {
		fixed++
	}
	per := int32(1)
	if h.hasEW {
		per = 2
	}
	g := &Graph{XAdj: make([]int64, n+1), VW: make([]int64, n)}
	x.Each(pieces, func(_, i int) {
		for j, c := range tokens[i] {
			v := first[i] + int64(j)
			switch {
			case v >= n:
				if c != 0 { // only blank lines may follow the last vertex
					bad[i] = true
				}
			case c < fixed || (c-fixed)%per != 0:
				bad[i] = true
			default:
				g.XAdj[v] = int64((c - fixed) / per)
			}
		}
	})
	tokens = nil
	if anyTrue(bad) {
		return nil
	}
	g.XAdj[n] = par.ExclusiveScan(x, g.XAdj[:n])
	if g.XAdj[n] != 2*h.m {
		return nil
	}
	// Pass 2: the numbers.
	g.Adj = make([]int32, 2*h.m)
	var ew []int32
	if h.hasEW {
		ew = make([]int32, 2*h.m)
	}
	vwSum := make([]int64, pieces)
	ewSum := make([]int64, pieces)
	unit := make([]bool, pieces)
	x.Each(pieces, func(_, i int) {
		v := first[i]
		var vs, es int64
		ones := true
		forLines(body[start[i]:start[i+1]], func(ln []byte) {
			if bad[i] || v >= n || isComment(ln) {
				return
			}
			j := 0
			num := func() int64 {
				for j < len(ln) && (ln[j] == ' ' || ln[j] == '\t') {
					j++
				}
				k := j
				var a int64
				for j < len(ln) && ln[j] >= '0' && ln[j] <= '9' {
					a = a*10 + int64(ln[j]-'0')
					j++
				}
				// Signs, other characters and more than 18 digits go to
				// the sequential parser.
				if j == k || j-k > 18 || j < len(ln) && ln[j] != ' ' && ln[j] != '\t' {
					bad[i] = true
					return -1
				}
				return a
			}
			if h.hasSize {
				num()
			}
			w := int64(1)
			if h.hasVW {
				w = num()
			}
			if w > MaxTotalVertexWeight-vs {
				bad[i] = true
			}
			g.VW[v], vs = w, vs+w
			for e := g.XAdj[v]; e < g.XAdj[v+1] && !bad[i]; e++ {
				u := num()
				if u < 1 || u > n || u == v+1 {
					bad[i] = true
					break
				}
				g.Adj[e] = int32(u - 1)
				if h.hasEW {
					w := num()
					if w < 0 || w > math.MaxInt32 {
						bad[i] = true
						break
					}
					ew[e] = int32(w)
					es += w
					ones = ones && w == 1
				}
			}
			v++
		})
		vwSum[i], ewSum[i], unit[i] = vs, es, ones
	})
	if anyTrue(bad) {
		return nil
	}
	var vs, es int64
	for i := range vwSum {
		if vs > MaxTotalVertexWeight-vwSum[i] || es > 2*MaxNarrowTotal-ewSum[i] {
			return nil // sums too large for the fast path
		}
		vs, es = vs+vwSum[i], es+ewSum[i]
	}
	if h.hasEW && !allTrue(unit) {
		g.SetNarrowWeights(ew)
	}
	if !sortedAndSymmetric(x, g) {
		return nil
	}
	return g
}

// forLines calls f for every line of text (without the newline and a
// trailing carriage return), the last one only when it is not empty.
func forLines(text []byte, f func(ln []byte)) {
	for len(text) > 0 {
		var ln []byte
		if j := bytes.IndexByte(text, '\n'); j >= 0 {
			ln, text = text[:j], text[j+1:]
		} else {
			ln, text = text, nil
		}
		if len(ln) > 0 && ln[len(ln)-1] == '\r' {
			ln = ln[:len(ln)-1]
		}
		f(ln)
	}
}

func anyTrue(a []bool) bool {
	for _, b := range a {
		if b {
			return true
		}
	}
	return false
}

func allTrue(a []bool) bool {
	for _, b := range a {
		if !b {
			return false
		}
	}
	return true
}

// sortedAndSymmetric checks, in parallel and without extra memory, that
// every adjacency list is strictly increasing (hence free of duplicates)
// and free of self loops, that neighbours are in range, weights are
// non-negative, and that every edge has its reverse with the same weight.
// False means "not shown": unsorted lists are legal, and the exact check
// (checkAdjacency) must decide.
func sortedAndSymmetric(x *par.Exec, g *Graph) bool {
	n := g.N()
	bad := make([]bool, x.Chunks(n))
	up := make([]int64, x.Chunks(n))
	x.For(n, func(c, lo, hi int) {
		var ups int64
		for v := lo; v < hi && !bad[c]; v++ {
			prev := int32(-1)
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				u := g.Adj[e]
				if u <= prev || u >= int32(n) || int(u) == v || g.W(e) < 0 {
					bad[c] = true
					break
				}
				prev = u
				if int(u) < v {
					continue
				}
				ups++
				// u must list v with the same weight.
				lo, hi := g.XAdj[u], g.XAdj[u+1]
				for lo < hi {
					mid := (lo + hi) / 2
					if g.Adj[mid] < int32(v) {
						lo = mid + 1
					} else {
						hi = mid
					}
				}
				if lo == g.XAdj[u+1] || g.Adj[lo] != int32(v) || g.W(lo) != g.W(e) {
					bad[c] = true
					break
				}
			}
		}
		up[c] = ups
	})
	if anyTrue(bad) {
		return false
	}
	// Every upward edge has its reverse, and reverses are distinct (lists
	// have no duplicates): as many downward edges as upward ones means
	// there is no other downward edge.
	var ups int64
	for _, u := range up {
		ups += u
	}
	return 2*ups == int64(len(g.Adj))
}
