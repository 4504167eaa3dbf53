package graph

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// parallelParsing makes every input take the parallel parser, cut into
// pieces of a few bytes, for the rest of the test.
func parallelParsing(t *testing.T, chunk int) {
	t.Helper()
	oldMin, oldChunk := parallelParseMin, parseChunk
	parallelParseMin, parseChunk = 0, chunk
	t.Cleanup(func() { parallelParseMin, parseChunk = oldMin, oldChunk })
}

// The parallel parser hands every malformed file to the sequential one, so
// the messages (and their line numbers) stay the same.
func TestMalformedParallel(t *testing.T) {
	for _, chunk := range []int{1, 3, 16} {
		parallelParsing(t, chunk)
		TestMalformed(t)
		TestFmtVariants(t)
		TestIsolatedVerticesAndComments(t)
	}
}

// randomMETIS writes a random valid graph with sorted adjacency lists in
// METIS form, with comments, blank (isolated) vertex lines, CRLF line ends
// and trailing blank lines sprinkled in.
func randomMETIS(rng *rand.Rand, n, m int, weighted bool) ([]byte, *Graph) {
	b := NewBuilder(n)
	for i := 0; i < m; i++ {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v {
			w := int64(1)
			if weighted {
				w = 1 + rng.Int64N(1000)
			}
			b.AddEdge(u, v, w)
		}
	}
	if weighted {
		for v := 0; v < n; v++ {
			b.SetVertexWeight(v, rng.Int64N(50))
		}
	}
	g, _ := b.Build()
	var buf bytes.Buffer
	WriteMETIS(&buf, g)
	var out bytes.Buffer
	eol := "\n"
	if rng.IntN(2) == 0 {
		eol = "\r\n"
	}
	for i, ln := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if rng.IntN(10) == 0 {
			fmt.Fprintf(&out, "%% comment %d%s", i, eol)
		}
		if rng.IntN(3) == 0 {
			ln = strings.ReplaceAll(ln, " ", " \t ")
		}
		out.WriteString(ln + eol)
	}
	if rng.IntN(2) == 0 {
		out.WriteString("\n  \n")
	}
	return out.Bytes(), g
}

func TestParallelParseMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 60; trial++ {
		n := 1 + rng.IntN(300)
		text, want := randomMETIS(rng, n, rng.IntN(4*n), trial%2 == 0)
		p := &metisParser{data: text}
		hdr, _ := p.nextLine()
		h, err := parseHeader(hdr, p.line)
		if err != nil {
			t.Fatal(err)
		}
		body := text[p.pos:]
		parallelParseMin = math.MaxInt // the sequential parser
		seq, err := ParseMETIS(text)
		if err != nil {
			t.Fatalf("trial %d: sequential: %v", trial, err)
		}
		parallelParsing(t, 1+rng.IntN(64))
		got := parseParallel(body, h)
		if got == nil {
			t.Fatalf("trial %d: the parallel parser declined a valid file:\n%s", trial, text)
		}
		if !equalGraphs(got, want) || !equalGraphs(seq, want) {
			t.Fatalf("trial %d: parsers disagree", trial)
		}
		w32, w64 := got.Weights()
		u32, _ := want.Weights()
		if (w32 == nil) != (u32 == nil) || w64 != nil {
			t.Fatalf("trial %d: weight form %v %v", trial, w32 == nil, w64 == nil)
		}
	}
}

// Unsorted adjacency lists are legal: the parallel parser declines them and
// the sequential one accepts them.
func TestUnsortedListsParse(t *testing.T) {
	parallelParsing(t, 4)
	g, err := ParseMETIS([]byte("3 3\n3 2\n1 3\n2 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Adj[0] != 2 || g.Adj[1] != 1 {
		t.Fatalf("neighbour order changed: %v", g.Adj)
	}
}

// Validate's parallel check accepts what the exact check accepts and
// leaves every rejection to it.
func TestValidateFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 50; trial++ {
		g := Random(1+rng.IntN(200), rng.IntN(600), 9, 3, rng.Uint64())
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		if len(g.Adj) == 0 {
			continue
		}
		ew := g.EdgeWeights()
		e := rng.IntN(len(ew))
		ew[e]++ // one direction only: asymmetric weight
		g.SetEdgeWeights(ew)
		if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "asymmetric") {
			t.Fatalf("trial %d: got %v", trial, err)
		}
	}
}

// sortedAndSymmetric finds reverses by cursors within a chunk of vertices
// and by binary search across chunks: on sorted lists it must agree with
// the exact check, whatever the thread count, on symmetric graphs and on
// graphs with one entry or weight changed (a missing reverse before, at
// or after the cursor, a weight that differs in one direction).
func TestSortedAndSymmetricMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 80; trial++ {
		n := 2 + rng.IntN(300)
		if trial%4 == 0 {
			n = 9000 + rng.IntN(4000) // two or three chunks of par.MinGrain
		}
		g := Random(n, 3*n, 5, 1, rng.Uint64())
		if trial%3 != 0 && len(g.Adj) > 0 {
			e := rng.Int64N(int64(len(g.Adj)))
			v := ownerOf(g, e)
			lo, hi := int32(-1), int32(n)
			if e > g.XAdj[v] {
				lo = g.Adj[e-1]
			}
			if e+1 < g.XAdj[v+1] {
				hi = g.Adj[e+1]
			}
			if u := lo + 1 + rng.Int32N(hi-lo-1); rng.IntN(2) == 0 && u != v && u != g.Adj[e] {
				g.Adj[e] = u // still sorted: a neighbour replaced
			} else {
				ew := g.EdgeWeights()
				ew[e]++
				g.SetEdgeWeights(ew)
			}
		}
		exact := checkAdjacency(g, func(v int32) string { return fmt.Sprint(v) }, 0) == nil
		for _, threads := range []int{1, 2, 3} {
			if got := sortedAndSymmetric(par.New(threads), g); got != exact {
				t.Fatalf("trial %d (n=%d, %d threads): fast check %v, exact %v", trial, n, threads, got, exact)
			}
		}
	}
}

// Unweighted text parses into windows of one neighbour array, moved
// together afterwards where blank lines, comments and runs of blanks left
// them room (sharedWindows): the same graph as the sequential parser, with
// exact windows and with moves, in pieces of a few bytes and of a few
// lines.
func TestSharedWindowsParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	moved := 0 // trials whose windows had room (odd ones) and were used
	for trial := 0; trial < 40; trial++ {
		// A ring and random chords, unweighted.
		n := 3 + rng.IntN(300)
		adj := make([]map[int]bool, n)
		for v := range adj {
			adj[v] = map[int]bool{}
		}
		link := func(u, v int) {
			if u != v {
				adj[u][v], adj[v][u] = true, true
			}
		}
		for v := range n {
			link(v, (v+1)%n)
		}
		for i := rng.IntN(3 * n); i > 0; i-- {
			link(rng.IntN(n), rng.IntN(n))
		}
		m := 0
		var lines []string
		for v := range n {
			var nb []string
			for u := range n {
				if adj[v][u] {
					nb = append(nb, fmt.Sprint(u+1))
				}
			}
			m += len(nb)
			ln := strings.Join(nb, " ")
			if trial%2 == 1 && rng.IntN(20) == 0 {
				ln = strings.Replace(ln, " ", " \t ", 1) // a run of blanks
			}
			if trial%2 == 1 && rng.IntN(20) == 0 {
				ln = "% a comment\n" + ln
			}
			lines = append(lines, ln+"\n")
		}
		text := []byte(fmt.Sprintf("%d %d\n%s", n, m/2, strings.Join(lines, "")))
		if trial%2 == 1 {
			text = append(text, '\n') // a blank line after the last vertex
		}
		p := &metisParser{data: text}
		hdr, _ := p.nextLine()
		h, err := parseHeader(hdr, p.line)
		if err != nil {
			t.Fatal(err)
		}
		body := text[p.pos:]
		parallelParseMin = math.MaxInt // the sequential parser
		want, err := ParseMETIS(text)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		chunk := 1 + rng.IntN(40)
		if trial%4 >= 2 {
			chunk = 200 + rng.IntN(200)
		}
		parallelParsing(t, chunk)
		cut := skipComments(body)
		pieces := (len(cut) + chunk - 1) / chunk
		start := pieceStarts(cut, pieces)
		win, shared := sharedWindows(par.New(2), cut, start, h)
		if shared == nil && pieces > 1 && trial%2 == 0 {
			t.Fatalf("trial %d: exact windows were not used (%d pieces)", trial, pieces)
		}
		if shared != nil {
			// A piece's window starting past its neighbours' place (the
			// neighbours of the pieces before it) is a move; the last
			// piece's own room moves nothing.
			place := 0
			for i := 0; i < pieces-1; i++ {
				if win[i] > place {
					moved++
					break
				}
				place += neighbours(cut[start[i]:start[i+1]])
			}
		}
		got := parseParallel(body, h)
		if got == nil {
			t.Fatalf("trial %d: the parallel parser declined a valid file:\n%s", trial, text)
		}
		if !equalGraphs(got, want) {
			t.Fatalf("trial %d: the parallel parser's graph differs", trial)
		}
	}
	if moved < 5 {
		t.Fatalf("only %d trials moved windows", moved)
	}
}

// neighbours counts the neighbours on the vertex lines of unweighted text.
func neighbours(text []byte) int {
	k := 0
	for _, ln := range strings.Split(string(text), "\n") {
		if f := strings.Fields(ln); len(f) > 0 && f[0][0] != '%' {
			k += len(f)
		}
	}
	return k
}

// Comment lines before the first vertex line are cut off before the text
// is cut into pieces: their room in the first window moved every later
// piece, one after another.
func TestLeadingCommentsMoveNothing(t *testing.T) {
	var b strings.Builder
	b.WriteString("% a comment\n  % another\n")
	n := 200
	for v := range n {
		u, w := (v+n-1)%n+1, (v+1)%n+1
		fmt.Fprintf(&b, "%d %d\n", min(u, w), max(u, w))
	}
	body := []byte(b.String())
	h := header{n: int64(n), m: int64(n)}
	cut := skipComments(body)
	if len(cut) != len(body)-len("% a comment\n  % another\n") {
		t.Fatalf("cut %d bytes, want the two comment lines", len(body)-len(cut))
	}
	start := pieceStarts(cut, 8)
	if _, shared := sharedWindows(par.New(2), cut, start, h); shared == nil || len(shared) != 2*n {
		t.Fatalf("the windows have room: %d entries for %d neighbours", len(shared), 2*n)
	}
	parallelParsing(t, 64)
	want, err := ParseMETIS(append([]byte(fmt.Sprintf("%d %d\n", n, n)), body...))
	if err != nil {
		t.Fatal(err)
	}
	if got := parseParallel(body, h); got == nil || !equalGraphs(got, want) {
		t.Fatal("the parallel parser's graph differs after leading comments")
	}
}
