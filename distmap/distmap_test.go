package distmap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/topology"
)

// The pieces that need no MPI, against brute force on small random
// inputs: the clustering choice, the mapping choice, the merge of coarse
// arcs, and the split of a file into byte ranges.

func TestBestClusterBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r rating
	for trial := 0; trial < 3000; trial++ {
		// Both bestCluster's paths: at most smallDegree neighbours, and more.
		deg := rng.IntN(3 * smallDegree)
		nl := 1 + rng.IntN(5) // labels 0..nl-1
		label := make([]int64, deg+1)
		adj := make([]int32, deg)
		w := make([]int64, deg)
		for i := range adj {
			adj[i] = int32(i)
			label[i] = int64(rng.IntN(nl))
			w[i] = int64(rng.IntN(4))
		}
		cur := int64(rng.IntN(nl))
		vw, limit := int64(1+rng.IntN(3)), int64(2+rng.IntN(6))
		cw := make([]int64, nl)
		for i := range cw {
			cw[i] = int64(rng.IntN(6))
		}
		salt := uint64(rng.IntN(8))
		// Some labels direct (a rank's own range), the others hashed, and
		// all of them hashed every fourth trial.
		if trial%4 == 0 {
			r.setRange(0, 0)
		} else {
			r.setRange(int64(rng.IntN(nl)), rng.IntN(nl))
		}
		got := bestCluster(&r, adj, w, label, cur, vw, limit, salt, func(l int64) int64 { return cw[l] })
		// Brute force: the weight towards each label; cur keeps ties; among
		// the others the lighter cluster, then the smaller label^salt; a
		// full cluster is out.
		towards := func(l int64) (s int64, any bool) {
			for i := range adj {
				if label[i] == l {
					s, any = s+w[i], true
				}
			}
			return
		}
		want, wantW := cur, int64(-1)
		if s, ok := towards(cur); ok {
			wantW = s
		}
		for l := int64(0); l < int64(nl); l++ {
			s, ok := towards(l)
			if !ok || l == cur || cw[l]+vw > limit {
				continue
			}
			if s > wantW || s == wantW && want != cur && (cw[l] < cw[want] || cw[l] == cw[want] && uint64(l)^salt < uint64(want)^salt) {
				want, wantW = l, s
			}
		}
		if got != want {
			t.Fatalf("trial %d: labels %v w %v cur %d vw %d limit %d weights %v: got %d, want %d",
				trial, label[:deg], w, cur, vw, limit, cw, got, want)
		}
	}
}

func TestBestPEBruteForce(t *testing.T) {
	var tops []*topology.Topology
	for _, h := range [][2]string{{"2:3:2", "1:10:100"}, {"4:8:6", "1:10:100"}, {"3:5", "2:7"}} {
		top, err := topology.Parse(h[0], h[1])
		if err != nil {
			t.Fatal(err)
		}
		tops = append(tops, top)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var r rating
	var pr pricer
	for trial := 0; trial < 3000; trial++ {
		// Up to 60 neighbours: more PEs than pricePairwise, priced by
		// per-level sums.
		top := tops[trial%len(tops)]
		k := top.K()
		labels := top.Labels()
		deg := rng.IntN(60)
		adj := make([]int32, deg)
		w := make([]int64, deg)
		pe := make([]int32, deg)
		for i := range adj {
			adj[i], w[i], pe[i] = int32(i), int64(rng.IntN(5)), int32(rng.IntN(k))
		}
		cur := int32(rng.IntN(k))
		closed := rng.Uint64()
		allowed := func(p int32) bool { return closed>>p&1 == 0 }
		if trial%4 < 2 {
			r.setRange(0, k) // as refine: every PE direct
		} else {
			r.setRange(0, 0)
		}
		got, gain := bestPE(&r, &pr, adj, w, pe, cur, labels, top, allowed)
		cost := func(p int32) int64 {
			var s int64
			for i := range adj {
				s += w[i] * top.Distance(int(p), int(pe[i]))
			}
			return s
		}
		want, wantC := cur, cost(cur)
		for p := int32(0); p < int32(k); p++ {
			near := false
			for i := range adj {
				near = near || pe[i] == p
			}
			if !near || p == cur || !allowed(p) {
				continue
			}
			if c := cost(p); c < wantC || c == wantC && want != cur && p < want {
				want, wantC = p, c
			}
		}
		if got != want || gain != cost(cur)-wantC {
			t.Fatalf("trial %d: pe %v w %v cur %d: got %d (gain %d), want %d (gain %d)",
				trial, pe, w, cur, got, gain, want, cost(cur)-wantC)
		}
	}
}

func TestMergeBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 500; trial++ {
		var arcs []arc
		sum := map[[2]int64]int64{}
		for range rng.IntN(30) {
			x := arc{int64(rng.IntN(4)), int64(rng.IntN(5)) - 1, int64(rng.IntN(9))}
			arcs = append(arcs, x)
			sum[[2]int64{x.a, x.b}] += x.w
		}
		got := merge(arcs)
		if len(got) != len(sum) {
			t.Fatalf("trial %d: %d merged arcs, want %d", trial, len(got), len(sum))
		}
		for i, x := range got {
			if sum[[2]int64{x.a, x.b}] != x.w {
				t.Fatalf("trial %d: arc %v, want weight %d", trial, x, sum[[2]int64{x.a, x.b}])
			}
			if i > 0 && (got[i-1].a > x.a || got[i-1].a == x.a && got[i-1].b >= x.b) {
				t.Fatalf("trial %d: not sorted: %v", trial, got)
			}
		}
	}
}

// Every line goes to exactly one rank, whole, in order, for any rank
// count: the ranges concatenate to the file.
func TestReadRangeSplitsAtLines(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 60; trial++ {
		var text []byte
		for range rng.IntN(12) {
			text = append(text, bytes.Repeat([]byte{'x'}, rng.IntN(5))...)
			text = append(text, '\n')
		}
		if rng.IntN(2) == 0 {
			text = append(text, "tail"...)
		}
		path := filepath.Join(dir, "g")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		for size := 1; size <= 7; size++ {
			var all []byte
			for rank := range size {
				f, start, end, err := openRange(path, rank, size)
				if err != nil {
					t.Fatal(err)
				}
				part := make([]byte, end-start)
				_, err = f.ReadAt(part, start)
				f.Close()
				if err != nil && len(part) > 0 {
					t.Fatal(err)
				}
				if len(all) > 0 && len(part) > 0 && all[len(all)-1] != '\n' {
					t.Fatalf("%q, %d ranks: rank %d starts inside a line", text, size, rank)
				}
				all = append(all, part...)
			}
			if !bytes.Equal(all, text) {
				t.Fatalf("%q, %d ranks: the parts make %q", text, size, all)
			}
		}
	}
}

// The reader's blocks give the lines of a range whatever the block size,
// a line longer than the block included: every line once, in order,
// without its "\n" or "\r\n", a last line without "\n" too.
func TestEachLineAtBlocks(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		var text []byte
		for range rng.IntN(10) {
			text = append(text, bytes.Repeat([]byte{'a' + byte(rng.IntN(3))}, rng.IntN(20))...)
			if rng.IntN(4) == 0 {
				text = append(text, '\r')
			}
			text = append(text, '\n')
		}
		if rng.IntN(2) == 0 {
			text = append(text, "tail"...)
		}
		path := filepath.Join(dir, "t")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		// The range: whole lines from a random line start on.
		lines := strings.SplitAfter(string(text), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		skip := rng.IntN(len(lines) + 1)
		start := int64(len(strings.Join(lines[:skip], "")))
		var want []string
		for _, ln := range lines[skip:] {
			want = append(want, strings.TrimSuffix(strings.TrimSuffix(ln, "\n"), "\r"))
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		_, err = eachLineAt(f, start, int64(len(text)), make([]byte, 1+rng.IntN(8)), func(i int64, ln []byte) {
			if i != int64(len(got)) {
				t.Fatalf("line %d has index %d", len(got), i)
			}
			got = append(got, string(ln))
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q from byte %d: got %q, want %q", text, start, got, want)
		}
	}
}

// A graph keeps weights without spare capacity (the collector counts it
// as live) and none at all when every weight is 1.
func TestUnitOrNil(t *testing.T) {
	w := append(make([]int64, 0, 10), 2, 1, 5)
	got := unitOrNil(w)
	if !slices.Equal(got, w) || cap(got) != len(got) {
		t.Errorf("unitOrNil(%v) = %v with cap %d, want the same weights and cap %d", w, got, cap(got), len(w))
	}
	if got := unitOrNil([]int64{1, 1, 1}); got != nil {
		t.Errorf("unit weights: got %v, want nil", got)
	}
}

// BenchmarkPrices prices a vertex at every PE next to it on 4:8:6, pair
// by pair and by per-level sums, for rows of 20 to 500 edges to random
// PEs (a hub of R-MAT sees most of the 192).
func BenchmarkPrices(b *testing.B) {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	for _, deg := range []int{20, 40, 80, 500} {
		rng := rand.New(rand.NewPCG(1, 2))
		var r rating
		r.setRange(0, top.K())
		r.reset(deg)
		for range deg {
			r.add(int64(rng.IntN(top.K())), 1)
		}
		var pr pricer
		pr.use(top, top.Labels())
		b.Run(fmt.Sprintf("pairwise/%d", deg), func(b *testing.B) {
			for range b.N {
				for _, q := range r.keys {
					pr.at(&r, int32(q))
				}
			}
		})
		b.Run(fmt.Sprintf("prices/%d", deg), func(b *testing.B) {
			for range b.N {
				pr.prices(&r)
			}
		})
	}
}

// denseGhosts (a bitmap) and hashedGhosts (a hash table and a sort) give
// the same ghosts in ascending order and each its index there, whatever
// the ids and pieces; sortShort orders a short list and its weights by
// global id as a sort of the pairs does.
func TestGhostsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		total := int64(1 + rng.IntN(500))
		lo := rng.Int64N(total)
		hi := lo + rng.Int64N(total-lo+1)
		var adj [][]int64
		for range rng.IntN(4) {
			p := make([]int64, rng.IntN(40))
			for i := range p {
				p[i] = rng.Int64N(total)
			}
			adj = append(adj, p)
		}
		dg, di := denseGhosts(adj, lo, hi, total)
		hg, hi2 := hashedGhosts(adj, lo, hi)
		if !slices.Equal(dg, hg) {
			t.Fatalf("trial %d: dense %v, hashed %v", trial, dg, hg)
		}
		var want []int64
		for _, p := range adj {
			for _, x := range p {
				if x < lo || x >= hi {
					want = append(want, x)
				}
			}
		}
		slices.Sort(want)
		if want = slices.Compact(want); !slices.Equal(dg, want) {
			t.Fatalf("trial %d: ghosts %v, want %v", trial, dg, want)
		}
		for i, x := range dg {
			if di(x) != int64(i) || hi2(x) != int64(i) {
				t.Fatalf("trial %d: ghost %d at %d: dense %d, hashed %d", trial, x, i, di(x), hi2(x))
			}
		}
	}
	for trial := range 300 {
		// One vertex's list on a rank of 5 local vertices, ghosts after.
		ghost := []int64{0, 1, 2, 5, 9, 15, 16, 20, 30, 31, 33, 40, 41, 44, 49}
		g := &Graph{VtxDist: []int64{0, 10, 15, 50}, rank: 1, VW: make([]int64, 5), Ghost: ghost}
		d := rng.IntN(shortList + 1)
		type pair struct {
			key int64
			u   int32
			w   int64
		}
		var want []pair
		perm := rng.Perm(20)[:d]
		for _, u := range perm {
			w := int64(1 + rng.IntN(9))
			g.Adj = append(g.Adj, int32(u))
			g.ew = append(g.ew, w)
			want = append(want, pair{g.global(int32(u)), int32(u), w})
		}
		g.XAdj = []int64{0, int64(d), int64(d), int64(d), int64(d), int64(d)}
		sortShort(g, 0, int64(d))
		slices.SortFunc(want, func(a, b pair) int { return cmp64(a.key, b.key) })
		for i, x := range want {
			if g.Adj[i] != x.u || g.ew[i] != x.w {
				t.Fatalf("trial %d: sorted %v %v, want %v", trial, g.Adj, g.ew, want)
			}
		}
	}
}
