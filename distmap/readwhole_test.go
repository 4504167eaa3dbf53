package distmap

import (
	"compress/gzip"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// ReadWhole on 2 and 3 ranks: a small file (METIS with narrow or wide
// edge weights, binary) arrives on every rank as graph.ReadFile reads it,
// weights and their width included; a file past Options.Coarsest, a
// compressed one, one without a header and a FIFO (whose open blocked
// every rank before) are left to ReadGraph (nil), which refuses the FIFO;
// a malformed one gives every rank gpumap map's error. Every rank reads the
// file itself (StartReadWhole, before the ranks meet), and the graph is
// rank 0's: where another rank's path names another graph, or no file,
// rank 0's arrives there. MapWhole on the
// broadcast graph writes the mapping that Map writes on the graph read
// in parts, with the same metrics.
func TestReadWhole(t *testing.T) {
	if !mpitest.Child() {
		dir := t.TempDir()
		t.Setenv(binDirEnv, dir)
		narrow := graph.Random(600, 2400, 9, 5, 24)
		wide := graph.Random(300, 1200, 1, 3, 25)
		ew := wide.EdgeWeights()
		for e := range ew {
			ew[e] <<= 33 // symmetric still: every weight scaled alike
		}
		wide.SetEdgeWeights(ew)
		files := map[string]func(io.Writer) error{
			"narrow.graph": func(w io.Writer) error { return graph.WriteMETIS(w, narrow) },
			"wide.graph":   func(w io.Writer) error { return graph.WriteMETIS(w, wide) },
			"narrow.bgf":   func(w io.Writer) error { return graph.WriteBinary(w, graph.RandomGeometric(500, 7)) },
			"gz.graph": func(w io.Writer) error {
				z := gzip.NewWriter(w)
				if err := graph.WriteMETIS(z, narrow); err != nil {
					return err
				}
				return z.Close()
			},
			"comments.graph": func(w io.Writer) error { _, err := io.WriteString(w, "% only\n%comments\n"); return err },
			"asym.graph":     func(w io.Writer) error { _, err := io.WriteString(w, "4 2\n3\n4\n2\n1\n"); return err },
		}
		for name, write := range files {
			if err := graph.WriteFile(filepath.Join(dir, name), write); err != nil {
				t.Fatal(err)
			}
		}
		// No writer ever opens it: every rank's open blocked for good.
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo.graph"), 0o644); err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`(?m)^rank (\d) (\w+): (.*)$`)
		for _, np := range []int{2, 3} {
			out := mpitest.Run(t, np, "TestReadWhole")
			got := map[string][]string{}
			for _, m := range re.FindAllStringSubmatch(out, -1) {
				got[m[2]] = append(got[m[2]], strings.ReplaceAll(m[3], dir+"/", ""))
			}
			want := map[string]string{
				"narrow": "same narrow=true wide=false", "wide": "same narrow=false wide=true",
				"binary": "same narrow=false wide=false", "large": "nil", "gz": "nil", "comments": "nil",
				"asym":   "asym.graph: asymmetric edge: line 5 (vertex 4) lists neighbour 1, but line 2 (vertex 1) does not list 4",
				"mapped": "same mapping and metrics",
				"other":  "same narrow=true wide=false", "missing": "same narrow=true wide=false",
				"fifo": "nil", "fifoparts": "fifo.graph: not a regular file (the ranks read their parts of it at offsets)",
			}
			sameOnEveryRank(t, fmt.Sprintf("np=%d ", np), np, got, want, out)
		}
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	dir := os.Getenv(binDirEnv)
	// read reads file, on ranks other than 0 mine instead where it is
	// set, and compares the graph with file's.
	readAs := func(name, file, mine string, opt Options) *graph.Graph {
		path := filepath.Join(dir, file)
		own := path
		if rank > 0 && mine != "" {
			own = filepath.Join(dir, mine)
		}
		g, err := StartReadWhole(own, opt).Finish(c)
		switch {
		case err != nil:
			fmt.Printf("rank %d %s: %v\n", rank, name, err)
		case g == nil:
			fmt.Printf("rank %d %s: nil\n", rank, name)
		default:
			w, err := graph.ReadFile(path)
			if err != nil {
				rankFail("%v", err)
			}
			w32, w64 := g.Weights()
			same := slices.Equal(g.XAdj, w.XAdj) && slices.Equal(g.Adj, w.Adj) && slices.Equal(g.VW, w.VW) &&
				slices.Equal(g.EdgeWeights(), w.EdgeWeights()) && g.Wide() == w.Wide()
			fmt.Printf("rank %d %s: %s narrow=%v wide=%v\n", rank, name, map[bool]string{true: "same", false: "differs"}[same], w32 != nil, w64 != nil)
		}
		return g
	}
	read := func(name, file string, opt Options) *graph.Graph { return readAs(name, file, "", opt) }
	g := read("narrow", "narrow.graph", Options{})
	readAs("other", "narrow.graph", "wide.graph", Options{})
	readAs("missing", "narrow.graph", "none.graph", Options{})
	read("wide", "wide.graph", Options{})
	read("binary", "narrow.bgf", Options{})
	read("large", "narrow.graph", Options{Coarsest: 599})
	read("gz", "gz.graph", Options{})
	read("comments", "comments.graph", Options{})
	read("asym", "asym.graph", Options{})
	read("fifo", "fifo.graph", Options{})
	if _, err := ReadGraph(c, filepath.Join(dir, "fifo.graph")); err != nil {
		fmt.Printf("rank %d fifoparts: %v\n", rank, err)
	}

	top, _ := topology.Parse("4:8", "1:10")
	opt := Options{Eps: 0.03, Seed: 3, Threads: 1, Preset: gpumap.Default}
	whole, m, err := MapWhole(c, g, top, opt)
	if err != nil {
		rankFail("%v", err)
	}
	dg, err := ReadGraph(c, filepath.Join(dir, "narrow.graph"))
	if err != nil {
		rankFail("%v", err)
	}
	res, err := Map(dg, top, opt)
	if err != nil {
		rankFail("%v", err)
	}
	all, _, err := mpi.Allgatherv(c, res.PE, size)
	if err != nil {
		rankFail("%v", err)
	}
	if slices.Equal(all, whole) && m.J == res.Metrics.J && m.MaxBlock == res.Metrics.MaxBlock && m.Cut == res.Metrics.Cut &&
		slices.Equal(m.CutPerLevel, res.Metrics.CutPerLevel) && m.Feasible == res.Metrics.Feasible {
		fmt.Printf("rank %d mapped: same mapping and metrics\n", rank)
	} else {
		fmt.Printf("rank %d mapped: J %d, Map's %d\n", rank, m.J, res.Metrics.J)
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDigest hashes a graph of finan512's vertex count (74,752; an
// rgg with 791,428 adjacency entries, 4.36 MB hashed, against finan512's
// 522k entries and 3.3 MB) as Finish does on every rank.
func BenchmarkDigest(b *testing.B) {
	g := graph.RandomGeometric(74752, 3)
	w := &WholeRead{n: int64(g.N()), g: g}
	b.SetBytes(int64(4*len(g.Adj) + 8*len(g.XAdj) + 8*len(g.VW)))
	for b.Loop() {
		w.digest(true)
	}
}

// BenchmarkDigestFNV hashes BenchmarkDigest's arrays with 64-bit FNV-1a,
// a byte at a time, as Finish did before its two CRC-32s (digest).
func BenchmarkDigestFNV(b *testing.B) {
	g := graph.RandomGeometric(74752, 3)
	b.SetBytes(int64(4*len(g.Adj) + 8*len(g.XAdj) + 8*len(g.VW)))
	for b.Loop() {
		h := fnv.New64a()
		h.Write(mpi.AsBytes(g.XAdj))
		h.Write(mpi.AsBytes(g.Adj))
		h.Write(mpi.AsBytes(g.VW))
		h.Sum64()
	}
}
