package gpumap

import (
	"math/rand/v2"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// independentJ recomputes J edge by edge from the topology's distances,
// sharing no code with graph.Evaluate's label arithmetic.
func independentJ(g *graph.Graph, top *topology.Topology, pe []int32) int64 {
	var j int64
	for v := 0; v < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			u := int(g.Adj[e])
			if u > v {
				j += g.W(e) * top.Distance(int(pe[v]), int(pe[u]))
			}
		}
	}
	return j
}

func checkResult(t *testing.T, g *graph.Graph, top *topology.Topology, eps float64, res *Result) {
	t.Helper()
	if len(res.PE) != g.N() {
		t.Fatalf("%d PEs for %d vertices", len(res.PE), g.N())
	}
	load := make([]int64, top.K())
	for v, p := range res.PE {
		if p < 0 || int(p) >= top.K() {
			t.Fatalf("vertex %d on PE %d", v, p)
		}
		load[p] += g.VW[v]
	}
	lmax := graph.Lmax(g.TotalVertexWeight(), top.K(), eps)
	for p, l := range load {
		if l > lmax {
			t.Fatalf("PE %d carries %d > Lmax %d", p, l, lmax)
		}
	}
	if j := independentJ(g, top, res.PE); j != res.Metrics.J {
		t.Fatalf("reported J %d, recomputed %d", res.Metrics.J, j)
	}
}

// bruteForce returns the optimal J over every feasible mapping, by
// depth-first enumeration with the partial cost as a bound.
func bruteForce(g *graph.Graph, top *topology.Topology, eps float64) int64 {
	n, k := g.N(), top.K()
	lmax := graph.Lmax(g.TotalVertexWeight(), k, eps)
	pe := make([]int32, n)
	load := make([]int64, k)
	best := int64(-1)
	var rec func(v int, partial int64)
	rec = func(v int, partial int64) {
		if best >= 0 && partial >= best {
			return
		}
		if v == n {
			best = partial
			return
		}
		for p := 0; p < k; p++ {
			if load[p]+g.VW[v] > lmax {
				continue
			}
			add := int64(0)
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if u := int(g.Adj[e]); u < v {
					add += g.W(e) * top.Distance(p, int(pe[u]))
				}
			}
			load[p] += g.VW[v]
			pe[v] = int32(p)
			rec(v+1, partial+add)
			load[p] -= g.VW[v]
		}
	}
	rec(0, 0)
	return best
}

func TestBruteForceTiny(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tops := []struct{ h, d string }{{"2:2", "1:10"}, {"2:2:2", "1:10:100"}, {"4:2", "1:5"}, {"2:3", "2:7"}}
	worse, trials := 0, 0
	for trial := 0; trial < 80; trial++ {
		tp := tops[trial%len(tops)]
		top, _ := topology.Parse(tp.h, tp.d)
		n := 3 + rng.IntN(6) // up to 8 vertices
		eps := []float64{0, 0.3, 1}[rng.IntN(3)]
		if int64(n) > int64(top.K())*graph.Lmax(int64(n), top.K(), eps) {
			continue
		}
		g := graph.Random(n, 3*n, 9, 1, uint64(trial))
		if g.M() == 0 {
			continue
		}
		opt := bruteForce(g, top, eps)
		for _, p := range []Preset{Fast, Default, Strong} {
			opts := DefaultOptions()
			opts.Preset, opts.Eps, opts.Seed = p, eps, uint64(trial)
			res, err := Map(g, top, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, g, top, eps, res)
			trials++
			if res.Metrics.J < opt {
				t.Fatalf("trial %d: J %d below the brute-force optimum %d", trial, res.Metrics.J, opt)
			}
			if res.Metrics.J > opt {
				worse++
				t.Errorf("trial %d %s: J %d, optimum %d (n=%d, %s, eps=%g)", trial, p, res.Metrics.J, opt, n, top, eps)
			}
		}
	}
	// Tiny instances go through the exact solver after the heuristics.
	if worse > 0 {
		t.Errorf("optimum missed on %d of %d tiny instances", worse, trials)
	}
}

// tilingJ builds the hand-made hierarchical block tiling of a grid: every
// level splits its box into a_i equal boxes, cutting the longest extents
// first, and returns its J.
func tilingJ(t *testing.T, dims []int, top *topology.Topology) int64 {
	arity, _ := top.Arity()
	g := graph.Grid(dims...)
	pe := make([]int32, g.N())
	stride := make([]int, len(dims))
	s := 1
	for i := len(dims) - 1; i >= 0; i-- {
		stride[i] = s
		s *= dims[i]
	}
	var split func(lo, hi []int, level int, base int)
	split = func(lo, hi []int, level int, base int) {
		if level < 0 {
			// a single cell
			v := 0
			for i := range lo {
				v += lo[i] * stride[i]
			}
			pe[v] = int32(base)
			return
		}
		a := arity[level]
		// factor a over the dimensions, halving the longest extent by the
		// smallest prime factor each time.
		parts := make([]int, len(dims))
		for i := range parts {
			parts[i] = 1
		}
		rem := a
		for rem > 1 {
			f := 2
			for rem%f != 0 {
				f++
			}
			best := -1
			for i := range dims {
				ext := (hi[i] - lo[i]) / parts[i]
				if ext%f == 0 && (best < 0 || ext > (hi[best]-lo[best])/parts[best]) {
					best = i
				}
			}
			if best < 0 {
				t.Fatalf("cannot tile %v with %v", dims, arity)
			}
			parts[best] *= f
			rem /= f
		}
		span := 1
		for _, x := range arity[:level] {
			span *= x
		}
		idx := make([]int, len(dims))
		for c := 0; c < a; c++ {
			nlo, nhi := make([]int, len(dims)), make([]int, len(dims))
			for i := range dims {
				ext := (hi[i] - lo[i]) / parts[i]
				nlo[i] = lo[i] + idx[i]*ext
				nhi[i] = nlo[i] + ext
			}
			split(nlo, nhi, level-1, base+c*span)
			for i := len(dims) - 1; i >= 0; i-- {
				idx[i]++
				if idx[i] < parts[i] {
					break
				}
				idx[i] = 0
			}
		}
	}
	// The innermost level is single cells: treat the whole remaining box as
	// split down to cells by the recursion over all levels.
	lo := make([]int, len(dims))
	split(lo, dims, len(arity)-1, 0)
	return independentJ(g, top, pe)
}

func TestOneToOneStencilsMatchTiling(t *testing.T) {
	cases := []struct {
		dims []int
		h    string
	}{
		{[]int{16, 16}, "4:8:8"},
		{[]int{8, 8, 8}, "4:2:64"},
		{[]int{32, 32, 32}, "16:2:1024"},
		{[]int{256, 128}, "16:2:1024"},
		{[]int{30, 30, 36}, "12:3:900"}, // not proven optimal, 2.6% above the bound
	}
	for _, c := range cases {
		if testing.Short() && c.dims[0] == 30 {
			continue
		}
		top, _ := topology.Parse(c.h, "1:10:100")
		g := graph.Grid(c.dims...)
		tiling := tilingJ(t, c.dims, top)
		for _, preset := range []Preset{Fast, Default, Strong} {
			opts := DefaultOptions()
			opts.Eps, opts.Preset = 0, preset
			res, err := Map(g, top, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, g, top, 0, res)
			if !res.OneToOne {
				t.Fatalf("%v on %s not detected as one-to-one", c.dims, c.h)
			}
			if res.Metrics.J > tiling {
				t.Errorf("%v on %s, %s: J %d above the tiling's %d", c.dims, c.h, preset, res.Metrics.J, tiling)
			}
			t.Logf("%v on %s, %s: J %d, tiling %d (%.4f)", c.dims, c.h, preset, res.Metrics.J, tiling, float64(res.Metrics.J)/float64(tiling))
		}
	}
}
