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
		pieces := (len(body) + chunk - 1) / chunk
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
		_, shared := sharedWindows(par.New(2), body, start, h)
		switch {
		case shared == nil && pieces > 1 && trial%2 == 0:
			t.Fatalf("trial %d: exact windows were not used (%d pieces)", trial, pieces)
		case shared != nil && trial%2 == 1 && int64(len(shared)) > 2*h.m:
			moved++
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
