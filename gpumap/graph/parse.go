package graph

import (
	"bytes"
	"math"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// parallelParseMin is the body size from which METIS text is parsed by
// parseParallel (0: every size; a test sets it to reach the sequential
// parser, which also states every error). parseChunk is
// the size of the text pieces parsed by one task. (Variables for the
// tests.) Every size takes parseParallel: a text below parseChunk is one
// piece, parsed on one thread, and that way (no callback per neighbour,
// narrow edge weights, the check of sorted symmetric lists instead of
// checkAdjacency's transpose) is 1.5-3x faster than the sequential
// parser, which still decides, and names the line of, every error.
var parallelParseMin, parseChunk = 0, 1 << 20

// parseParallel parses the vertex lines of a METIS file (body follows the
// header h) on all cores in one pass over the text: every piece of text
// parses its lines into arrays of its own (neighbour counts, weights) and
// its neighbours into a window of one array (unweighted text, sharedWindows)
// or into an array of its own, a prefix sum over the pieces' line counts
// places every vertex, and the windows are moved together in place (the
// arrays of their own copied into the CSR arrays). The result is what the
// sequential parser gives. It returns nil whenever anything is unusual
// (any error, edge weights that need 64 bits, adjacency lists that are not
// sorted): the sequential parser then decides, and names the line of the
// error.
func parseParallel(body []byte, h header) *Graph {
	if len(body) < parallelParseMin {
		return nil
	}
	x := par.New(0)
	n := h.n
	body = skipComments(body)
	pieces := (len(body) + parseChunk - 1) / parseChunk
	start := pieceStarts(body, pieces)
	// Neighbours and vertex lines per byte of text, to size each piece's
	// arrays once (append grows them if the guess is short).
	adjPerByte := float64(2*h.m) / float64(len(body))
	linesPerByte := float64(n) / float64(len(body))
	win, shared := sharedWindows(x, body, start, h)
	var g *Graph
	if shared != nil {
		g = &Graph{XAdj: make([]int64, n+1), VW: make([]int64, n)}
	}
	ps := make([]textPiece, pieces)
	x.Each(pieces, func(_, i int) {
		l := float64(start[i+1] - start[i])
		if shared != nil {
			ps[i].adj = shared[win[i]:win[i]:win[i+1]]
		}
		ps[i].parse(body[start[i]:start[i+1]], h, int(1.05*linesPerByte*l)+16, int(1.05*adjPerByte*l)+64)
	})
	first := make([]int64, pieces+1) // index of each piece's first vertex line
	for i := range ps {
		if ps[i].bad {
			return nil
		}
		first[i+1] = first[i] + int64(len(ps[i].deg))
	}
	if first[pieces] < n {
		return nil // too few vertex lines
	}
	withFixed := h.hasSize || h.hasVW // a vertex line cannot be empty
	if g == nil {
		g = &Graph{XAdj: make([]int64, n+1), VW: make([]int64, n)}
	}
	x.Each(pieces, func(_, i int) {
		p := &ps[i]
		for j, d := range p.deg {
			v := first[i] + int64(j)
			switch {
			case v >= n:
				if d >= 0 { // only blank lines may follow the last vertex
					p.bad = true
				}
			case d < 0 && withFixed:
				p.bad = true
			default:
				g.XAdj[v] = int64(max(d, 0))
				if h.hasVW {
					g.VW[v] = p.vw[j]
				} else {
					g.VW[v] = 1
				}
			}
		}
	})
	for i := range ps {
		if ps[i].bad {
			return nil
		}
	}
	g.XAdj[n] = par.ExclusiveScan(x, g.XAdj[:n])
	if g.XAdj[n] != 2*h.m {
		return nil
	}
	for i := range ps {
		if shared != nil && cap(ps[i].adj) != win[i+1]-win[i] {
			shared = nil // a window was short (it cannot be): copy as below
		}
	}
	var ew []int32
	if shared != nil {
		// Each piece's neighbours move to their place, in order: a
		// piece's place starts no later than its window (the earlier
		// windows hold at least their pieces' neighbours) and ends before
		// the next window, so no move overwrites neighbours not moved yet.
		// Where the windows are exact (no blank lines, comments or runs of
		// blanks) nothing moves. The moves run one after another on one
		// thread, and room in a piece moves every later one: comments
		// before the first vertex line are cut off (skipComments), room
		// further on still costs a serial copy of the rest.
		for i := range ps {
			if off := g.XAdj[min(first[i], n)]; off != int64(win[i]) {
				copy(shared[off:], ps[i].adj)
			}
			ps[i].adj, ps[i].deg = nil, nil
		}
		g.Adj = shared[: 2*h.m : 2*h.m]
	} else if pieces == 1 {
		// One piece (every text below parseChunk): its arrays are the
		// CSR's. A copy was new memory to fault in, and in a fresh
		// process the page faults were as much of the reader's CPU as
		// the parsing (sys time, CA-HepPh).
		g.Adj = ps[0].adj[: 2*h.m : 2*h.m]
		if h.hasEW {
			ew = ps[0].ew[: 2*h.m : 2*h.m]
		}
	} else {
		g.Adj = make([]int32, 2*h.m)
		if h.hasEW {
			ew = make([]int32, 2*h.m)
		}
		x.Each(pieces, func(_, i int) {
			off := g.XAdj[min(first[i], n)]
			copy(g.Adj[off:], ps[i].adj)
			if ew != nil {
				copy(ew[off:], ps[i].ew)
			}
			ps[i].adj, ps[i].ew, ps[i].deg, ps[i].vw = nil, nil, nil, nil
		})
	}
	var vs, es int64
	ones := true
	for i := range ps {
		if vs > MaxTotalVertexWeight-ps[i].vs || es > 2*MaxNarrowTotal-ps[i].es {
			return nil // sums too large for the fast path
		}
		vs, es = vs+ps[i].vs, es+ps[i].es
		ones = ones && ps[i].ones
	}
	if h.hasEW && !ones {
		g.SetNarrowWeights(ew)
	}
	if !sortedAndSymmetric(x, g) {
		return nil
	}
	return g
}

// pieceStarts cuts body into pieces of about len(body)/pieces bytes at
// line starts: piece i is body[start[i]:start[i+1]] (an empty piece where a
// line is longer than a piece).
func pieceStarts(body []byte, pieces int) []int {
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
	return start
}

// skipComments returns body after its leading comment lines, which give
// no vertex. A comment's blanks and line end are room in the first piece's
// window (sharedWindows) that moved every later piece, one after another
// on one thread: one % line after the header of a 2^20-vertex rgg moved 91
// of its 92 pieces, 2.2-6.9 ms of moves where the rgg's own blank lines
// (isolated vertices) moved 10 pieces in 0.2-0.4 ms (5 reads in one
// process, bench/results-threads-2core.txt).
func skipComments(body []byte) []byte {
	for len(body) > 0 {
		ln, rest := nextLine(body)
		if i := skipBlanks(ln, 0); i == len(ln) || ln[i] != '%' {
			break
		}
		body = rest
	}
	return body
}

// sharedWindows returns, for text of several pieces without vertex sizes,
// vertex weights and edge weights, one array for the neighbours of every
// piece and each piece's window in it (piece i's from win[i] to
// win[i+1]); nil when the windows would waste more than 2m/windowSlack
// entries. A piece parses into
// its window, and parseParallel moves the windows together in place and
// makes the CSR's other arrays before the parse too. Before, each piece
// parsed into an array of its own, copied afterwards into the CSR's
// neighbour array, made after the parse: on memory the collector had
// freed, the make zeroed 25 MB on one thread (a 2^20-vertex 3D grid at
// -t 2: 100-200 ms of its read with the other core idle, in some runs'
// execution traces), and the copy faulted in fresh pages (the reader
// alone on a 2^20-vertex rgg, 55 MB: 58.8k -> 43.9k page faults with the
// windows). Made first, the arrays
// are fresh memory, which needs no zeroing. A window is sized by its
// piece's blanks and line ends: every neighbour ends at one of them or at
// the end of the text (pieces start at line starts, so only the last may
// end without a line end).
func sharedWindows(x *par.Exec, body []byte, start []int, h header) ([]int, []int32) {
	pieces := len(start) - 1
	if pieces == 1 || h.hasSize || h.hasVW || h.hasEW {
		return nil, nil
	}
	win := make([]int, pieces+1)
	x.Each(pieces, func(_, i int) {
		t := body[start[i]:start[i+1]]
		win[i+1] = bytes.Count(t, blank) + bytes.Count(t, tab) + bytes.Count(t, lineEnd)
		if len(t) > 0 && t[len(t)-1] != '\n' {
			win[i+1]++ // the text's last line, without a line end
		}
	})
	for i := range pieces {
		win[i+1] += win[i]
	}
	if int64(win[pieces]) > 2*h.m+2*h.m/windowSlack {
		return nil, nil
	}
	return win, make([]int32, win[pieces])
}

var blank, tab, lineEnd = []byte{' '}, []byte{'\t'}, []byte{'\n'}

// windowSlack bounds the room sharedWindows may leave past the 2m
// neighbours to 2m/windowSlack entries: the graph keeps the whole array
// (its Adj is the array cut to 2m), so an eighth is the most memory it
// may hold for nothing, still below the second array of 2m that the
// per-piece arrays and their copy hold at once. Not fit: every file of
// the corpus has exact windows (no room in any of the 49), so it only
// decides on text with runs of blanks, trailing blanks or comments.
const windowSlack = 8

// textPiece is what parseParallel reads from one piece of text.
type textPiece struct {
	deg    []int32 // per vertex line: its neighbours, -1 for a line without a token
	vw     []int64 // per vertex line, with vertex weights (0 for an empty line)
	adj    []int32 // neighbours, numbered from 0
	ew     []int32 // their weights, with edge weights
	vs, es int64   // sums of the vertex and the edge weights
	ones   bool    // every edge weight is 1
	bad    bool    // anything unusual: the sequential parser decides
}

// parse reads the lines of text. Neighbours are checked to be in [1,n]
// only; self loops and the order are sortedAndSymmetric's business. The
// neighbours go to p.adj where it is set (a window of a shared array).
func (p *textPiece) parse(text []byte, h header, lineCap, adjCap int) {
	p.deg = make([]int32, 0, lineCap)
	if p.adj == nil {
		p.adj = make([]int32, 0, adjCap)
	}
	if h.hasVW {
		p.vw = make([]int64, 0, lineCap)
	}
	if h.hasEW {
		p.ew = make([]int32, 0, adjCap)
	}
	p.ones = true
	for len(text) > 0 {
		var ln []byte
		ln, text = nextLine(text)
		i := skipBlanks(ln, 0)
		if i == len(ln) {
			p.deg = append(p.deg, -1)
			if h.hasVW {
				p.vw = append(p.vw, 0)
			}
			continue
		}
		if ln[i] == '%' {
			continue // a comment
		}
		var a int64
		ok := true
		if h.hasSize {
			if _, i, ok = fastNumber(ln, i); !ok {
				p.bad = true
				return
			}
		}
		if h.hasVW {
			if a, i, ok = fastNumber(ln, i); !ok || a > MaxTotalVertexWeight-p.vs {
				p.bad = true
				return
			}
			p.vs += a
			p.vw = append(p.vw, a)
		}
		before := len(p.adj)
		for {
			if i = skipBlanks(ln, i); i == len(ln) {
				break
			}
			if a, i, ok = fastNumber(ln, i); !ok || a < 1 || a > h.n {
				p.bad = true
				return
			}
			p.adj = append(p.adj, int32(a-1))
			if h.hasEW {
				if a, i, ok = fastNumber(ln, i); !ok || a > math.MaxInt32 {
					p.bad = true
					return
				}
				p.ew = append(p.ew, int32(a))
				p.es += a
				p.ones = p.ones && a == 1
			}
		}
		p.deg = append(p.deg, int32(len(p.adj)-before))
	}
}

func skipBlanks(ln []byte, i int) int {
	for i < len(ln) && (ln[i] == ' ' || ln[i] == '\t') {
		i++
	}
	return i
}

// fastNumber reads the unsigned integer after the blanks at ln[i:]. Signs,
// other characters and more than 18 digits are not ok (the sequential
// parser handles them).
func fastNumber(ln []byte, i int) (int64, int, bool) {
	i = skipBlanks(ln, i)
	k := i
	var a int64
	for i < len(ln) && ln[i]-'0' <= 9 {
		a = a*10 + int64(ln[i]-'0')
		i++
	}
	if i == k || i-k > 18 || i < len(ln) && ln[i] != ' ' && ln[i] != '\t' {
		return 0, i, false
	}
	return a, i, true
}

// nextLine splits the first line off text (without the newline and a
// trailing carriage return).
func nextLine(text []byte) (ln, rest []byte) {
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		ln, rest = text[:j], text[j+1:]
	} else {
		ln = text
	}
	if len(ln) > 0 && ln[len(ln)-1] == '\r' {
		ln = ln[:len(ln)-1]
	}
	return ln, rest
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

// sortedAndSymmetric checks, in parallel, that every adjacency list is
// strictly increasing (hence free of duplicates) and free of self loops,
// that neighbours are in range, weights are non-negative, and that every
// edge has its reverse with the same weight. False means "not shown":
// unsorted lists are legal, and the exact check (checkAdjacency) must
// decide.
//
// Every chunk of vertices finds the reverse of an edge {v,u}, v < u, by a
// cursor into u's list where u is in the chunk too: in sorted lists the
// neighbours of u below it come in increasing order, the order in which
// the chunk meets them, so the reverse of each is the entry after the
// last one found (the first found by binary search from the chunk's
// start). Only edges between chunks take a binary search each: those
// searches, with their mispredicted branches, were half of the parser's
// time on corpus graphs (CA-HepPh, 1.2 MB, one thread).
func sortedAndSymmetric(x *par.Exec, g *Graph) bool {
	n := g.N()
	chunks := x.Chunks(n)
	bad := make([]bool, chunks)
	up := make([]int64, chunks)
	// next[u]-1 is the offset in u's list of the reverse of the next edge
	// from u's chunk into u; 0 while none has been looked for.
	next := par.Zeroed[int32](n)
	w32, w64 := g.Weights()
	weighted := w32 != nil || w64 != nil
	x.For(n, func(c, clo, chi int) {
		var ups int64
		for v := clo; v < chi; v++ {
			prev := int32(-1)
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				u := g.Adj[e]
				if u <= prev || u >= int32(n) || int(u) == v || weighted && g.W(e) < 0 {
					bad[c] = true
					return
				}
				prev = u
				if int(u) < v {
					continue
				}
				ups++
				// u must list v with the same weight.
				var at int64
				if int(u) < chi {
					if next[u] == 0 {
						at = lowerBound(g, u, int32(clo))
					} else {
						at = g.XAdj[u] + int64(next[u]-1)
					}
					next[u] = int32(at-g.XAdj[u]) + 2
				} else {
					at = lowerBound(g, u, int32(v))
				}
				if at >= g.XAdj[u+1] || g.Adj[at] != int32(v) || weighted && g.W(at) != g.W(e) {
					bad[c] = true
					return
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

// lowerBound is the position of the first entry of u's list that is not
// below v (the list's end if there is none).
func lowerBound(g *Graph, u, v int32) int64 {
	lo, hi := g.XAdj[u], g.XAdj[u+1]
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		if g.Adj[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
