package distmap

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// binDirEnv hands the parent's directory of test files to the ranks.
const binDirEnv = "GPUMAP_TEST_BINDIR"

// words writes little-endian uint64 words to dir/name.
func words(t *testing.T, dir, name string, w ...uint64) {
	t.Helper()
	b := make([]byte, 8*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// binCases are hand-written binary graphs and what reading and mapping
// them onto 2:2 (D 1:10, eps 0.03) gives on every rank, at P = 2 and 3.
// Offsets are bytes: n+1 of them after the 3 header words, so the
// neighbours of a graph with n = 3 start at byte 8 (3+4) = 56.
var binCases = []struct {
	name string
	w    []uint64
	want string
}{
	// The path 0-1-2 needs a PE per vertex (Lmax 1): the best costs 1+10.
	{"path", []uint64{3, 3, 4, 56, 64, 80, 88, 1, 0, 2, 1}, "J=11 feasible=true"},
	// The edge 0-1; at P = 3 the middle rank owns no vertex.
	{"edge", []uint64{3, 2, 2, 48, 56, 64, 1, 0}, "J=1 feasible=true"},
	{"version", []uint64{2, 3, 4, 56, 64, 80, 88, 1, 0, 2, 1},
		"binary graph version 2, but gpumap reads version 3 (ParHIP's, as KaHIP's graph2binary writes)"},
	{"truncated", []uint64{3, 3, 4, 56, 64, 80, 88, 1, 0, 2},
		"the file has 80 bytes, shorter than the 88 its header says (n=3, m=4)"},
	{"header", []uint64{3, 3},
		"a binary graph of 16 bytes is shorter than its 24-byte header"},
	{"longer", []uint64{3, 3, 4, 56, 64, 80, 88, 1, 0, 2, 1, 0},
		"the file has 96 bytes, longer than the 88 its header says (n=3, m=4)"},
	{"odd", []uint64{3, 3, 3, 56, 64, 72, 80, 1, 0, 1},
		"bad header: m=3 stored edges is odd (every edge is stored at both ends)"},
	{"range", []uint64{3, 3, 4, 56, 64, 80, 88, 1, 0, 2, 7},
		"vertex 2: neighbour 7 is out of range [0,3)"},
	// The edge 0-1 with a neighbour out of range: at P = 3 the middle
	// rank owns no vertex and still reports the last rank's error.
	{"range2", []uint64{3, 2, 2, 48, 56, 64, 1, 5},
		"vertex 1: neighbour 5 is out of range [0,2)"},
	{"loop", []uint64{3, 3, 4, 56, 64, 80, 88, 1, 0, 1, 1},
		"vertex 1: self loop"},
	// 0-1 and 2-3, and 3 lists 0 and 1 too; vertex 0 is on rank 0, whose
	// message wins.
	{"asym", []uint64{3, 4, 6, 64, 72, 80, 88, 112, 1, 0, 3, 0, 1, 2},
		"asymmetric edge: vertex 3 lists neighbour 0, but vertex 0 does not list 3"},
	{"order", []uint64{3, 3, 4, 56, 64, 56, 88, 1, 0, 2, 1},
		"vertex 2: offset 56 is below vertex 1's (the offsets must not decrease)"},
	{"offset", []uint64{3, 3, 4, 56, 64, 81, 88, 1, 0, 2, 1},
		"vertex 2: offset 81 is not a word of the neighbour section [56, 88]"},
	{"first", []uint64{3, 3, 4, 64, 64, 80, 88, 1, 0, 2, 1},
		"vertex 0: offset 64, but the neighbours start at byte 56"},
}

// The binary reader on 2 and 3 ranks: hand-written files map to the
// hand-computed optimum, a file converted from METIS text is the same
// distributed graph as the text, and each bad file gives every rank the
// same error (never a hang). The METIS reader's edge weights take no
// more memory than they need.
func TestReadBinary(t *testing.T) {
	if !mpitest.Child() {
		dir := t.TempDir()
		t.Setenv(binDirEnv, dir)
		for _, c := range binCases {
			words(t, dir, c.name, c.w...)
		}
		// Ids are 64-bit in METIS text too: a header of 3e9 vertices
		// (only two of their lines follow) was refused as past the
		// one-process reader's 32-bit limit.
		if err := os.WriteFile(filepath.Join(dir, "n3e9.graph"), []byte("3000000000 1\n2\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		g := graph.RandomGeometric(700, 9)
		for _, f := range []struct {
			name  string
			write func(*os.File) error
		}{
			{"g.graph", func(w *os.File) error { return graph.WriteMETIS(w, g) }},
			{"g.bgf", func(w *os.File) error { return graph.WriteBinary(w, g) }},
		} {
			out, err := os.Create(filepath.Join(dir, f.name))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.write(out); err != nil {
				t.Fatal(err)
			}
			out.Close()
		}
		re := regexp.MustCompile(`(?m)^rank (\d) (\w+): (.*)$`)
		for _, np := range []int{2, 3} {
			out := mpitest.Run(t, np, "TestReadBinary")
			got := map[string][]string{}
			for _, m := range re.FindAllStringSubmatch(out, -1) {
				got[m[2]] = append(got[m[2]], strings.ReplaceAll(m[3], dir+"/", ""))
			}
			want := map[string]string{"same": "true", "exact": "true", "unit": "true", "balanced": "true",
				"n3e9": "n3e9.graph: line 3: file ends after 2 of 3000000000 vertex lines"}
			for _, c := range binCases {
				want[c.name] = c.want
				if !strings.HasPrefix(c.want, "J=") {
					want[c.name] = c.name + ": " + c.want
				}
			}
			sameOnEveryRank(t, fmt.Sprintf("np=%d ", np), np, got, want, out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	dir := os.Getenv(binDirEnv)
	top, _ := topology.Parse("2:2", "1:10")
	for _, bc := range binCases {
		// Without the .bgf ending: found by content.
		g, err := ReadGraph(c, filepath.Join(dir, bc.name))
		if err == nil {
			var res *Result
			if res, err = Map(g, top, Options{Eps: 0.03}); err == nil {
				fmt.Printf("rank %d %s: J=%d feasible=%v\n", rank, bc.name, res.Metrics.J, res.Metrics.Feasible)
				continue
			}
		}
		fmt.Printf("rank %d %s: %s\n", rank, bc.name, strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if _, err := ReadGraph(c, filepath.Join(dir, "n3e9.graph")); err != nil {
		fmt.Printf("rank %d n3e9: %v\n", rank, err)
	}
	text, err := ReadGraph(c, filepath.Join(dir, "g.graph"))
	if err != nil {
		rankFail("%v", err)
	}
	bin, err := ReadGraph(c, filepath.Join(dir, "g.bgf"))
	if err != nil {
		rankFail("%v", err)
	}
	// The METIS reader sizes the edge weights exactly: a capacity beyond
	// them was never touched, but counted as live by the garbage
	// collector, which let the heap grow by as much again.
	fmt.Printf("rank %d exact: %v\n", rank, cap(text.ew) == len(text.ew))
	// Both files have unit weights: neither part stores any (8 bytes a
	// stored edge, more than Adj takes).
	fmt.Printf("rank %d unit: %v\n", rank, text.ew == nil && bin.ew == nil)
	// The METIS reader balances lines plus tokens, not bytes: the ranks'
	// vertices plus neighbours differ by at most two lines' worth (a
	// line moves as a whole; the header line is rank 0's).
	var maxDeg int64
	for v := range text.N() {
		maxDeg = max(maxDeg, text.XAdj[v+1]-text.XAdj[v])
	}
	work, err := mpi.Allgather(c, []int64{int64(text.N()) + int64(len(text.Adj)), maxDeg}, size)
	if err != nil {
		rankFail("%v", err)
	}
	lo, hi, deg := work[0], work[0], int64(0)
	for r := range size {
		lo, hi, deg = min(lo, work[2*r]), max(hi, work[2*r]), max(deg, work[2*r+1])
	}
	fmt.Printf("rank %d balanced: %v\n", rank, hi-lo <= 2*(deg+1)+4)
	a, b := gatherEdges(t, text), gatherEdges(t, bin)
	fmt.Printf("rank %d same: %v\n", rank, len(a) > 0 && slices.Equal(a, b))
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// gatherEdges returns the edges of the whole graph as sorted (global id,
// global id, weight) triples, and the vertex weights as (id, -1, weight).
func gatherEdges(t *testing.T, g *Graph) []int64 {
	type tri struct{ a, b, w int64 }
	var mine []tri
	for v := range g.N() {
		mine = append(mine, tri{g.First() + int64(v), -1, g.VW[v]})
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			mine = append(mine, tri{g.First() + int64(v), g.global(g.Adj[e]), g.W(e)})
		}
	}
	flat := make([]int64, 0, 3*len(mine))
	for _, x := range mine {
		flat = append(flat, x.a, x.b, x.w)
	}
	all, _, err := mpi.Allgatherv(g.c, flat, g.size)
	if err != nil {
		t.Fatal(err)
	}
	var out []tri
	for i := 0; i+2 < len(all); i += 3 {
		out = append(out, tri{all[i], all[i+1], all[i+2]})
	}
	slices.SortFunc(out, func(x, y tri) int {
		if x.a != y.a {
			return cmp64(x.a, y.a)
		}
		return cmp64(x.b, y.b)
	})
	flat = flat[:0]
	for _, x := range out {
		flat = append(flat, x.a, x.b, x.w)
	}
	return flat
}

// balanceLines cuts where one pass over the whole file would: rank r's
// range starts at the first line with r/size of the lines plus tokens
// before it (evenSplit), on files of up to 3,000 lines (many marks, and
// cuts on and between them) with comments, blank lines, "\r\n" and a
// last line without "\n", at 3 ranks (each rank reads its own copy).
func TestBalanceLinesBruteForce(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 3, "TestBalanceLinesBruteForce", "balance ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 60 {
		var text []byte
		var offs, work []int64
		for range rng.IntN([]int{5, 200, 3000}[trial%3]) {
			offs = append(offs, int64(len(text)))
			k, words := rng.IntN(7), 0
			if rng.IntN(20) == 0 {
				text = append(text, "% a comment"...)
				words = 3
			}
			for range k {
				text = append(text, " \t"[rng.IntN(2)])
				text = append(text, fmt.Sprint(rng.IntN(1000))...)
			}
			if rng.IntN(5) == 0 {
				text = append(text, '\r')
			}
			text = append(text, '\n')
			work = append(work, int64(1+words+k))
		}
		if rng.IntN(2) == 0 {
			offs = append(offs, int64(len(text)))
			text = append(text, "7 8"...)
			work = append(work, 3)
		}
		var total int64
		for _, w := range work {
			total += w
		}
		want := make([]int64, size+1)
		for r := 1; r <= size; r++ {
			want[r] = int64(len(text))
			if r == size {
				break
			}
			var p int64
			for i, w := range work {
				if p >= evenSplit(total, r, size) {
					want[r] = offs[i]
					break
				}
				p += w
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("t%d", trial))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			rankFail("%v", err)
		}
		f, start, end, err := openRange(path, rank, size)
		if err != nil {
			rankFail("%v", err)
		}
		s, e, _, err := balanceLines(c, f, start, end, make([]byte, 1+rng.IntN(300)))
		f.Close()
		if err != nil {
			rankFail("%v", err)
		}
		if s != want[rank] || e != want[rank+1] {
			rankFail("trial %d (%d lines): rank %d's range [%d, %d), want [%d, %d)", trial, len(work), rank, s, e, want[rank], want[rank+1])
		}
	}
	if rank == 0 {
		fmt.Println("balance ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
