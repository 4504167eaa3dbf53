package distmap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// The distributed Jet loop on 3 ranks against the CPU one on the whole
// graph: on random graphs with vertex weights 1-3 and a few hubs, spread
// unevenly over the ranks (one may own nothing), from random starts
// (most of them above Lmax, so that weak and strong rebalancing run),
// runJet's mapping equals refinement.Jet's (one thread) vertex for
// vertex, and its ghosts hold their owners' PEs.
func TestDistJet(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestDistJet")
		ok := regexp.MustCompile(`(?m)^rank \d: (\d+) trials ok, (\d+) changed, (\d+) from above Lmax$`).FindAllStringSubmatch(out, -1)
		if len(ok) != 3 {
			t.Fatalf("%d of 3 ranks passed:\n%s", len(ok), out)
		}
		if ok[0][2] == "0" || ok[0][3] == "0" {
			t.Fatalf("no trial changed the mapping, or none started above Lmax: the test tests nothing\n%s", out)
		}
		return
	}
	defer rankRecover()
	c, _, rank := rankComm(t)
	tops := []*topology.Topology{}
	for _, h := range [][2]string{{"2:2:2", "1:10:100"}, {"3:4", "1:7"}} {
		top, err := topology.Parse(h[0], h[1])
		if err != nil {
			rankFail("%v", err)
		}
		tops = append(tops, top)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	const trials = 120
	changed, above := 0, 0
	for trial := range trials {
		top := tops[trial%len(tops)]
		k := top.K()
		n := 2 + rng.IntN(60)
		base := randomGraph(rng, n)
		// Hubs: a few vertices joined to a third of the others.
		type edge struct{ a, b int32 }
		ew := map[edge]int64{}
		for v := range n {
			for e := base.XAdj[v]; e < base.XAdj[v+1]; e++ {
				ew[edge{int32(v), base.Adj[e]}] = base.W(e)
			}
		}
		for range rng.IntN(3) {
			h := int32(rng.IntN(n))
			for u := range int32(n) {
				if u != h && rng.IntN(3) == 0 {
					w := int64(1 + rng.IntN(4))
					ew[edge{h, u}], ew[edge{u, h}] = w, w
				}
			}
		}
		keys := make([]edge, 0, len(ew))
		for e := range ew {
			keys = append(keys, e)
		}
		slices.SortFunc(keys, func(x, y edge) int {
			if x.a != y.a {
				return int(x.a - y.a)
			}
			return int(x.b - y.b)
		})
		xadj := make([]int64, n+1)
		adj := make([]int32, 0, len(keys))
		w := make([]int64, 0, len(keys))
		for _, e := range keys {
			xadj[e.a+1]++
			adj, w = append(adj, e.b), append(w, ew[e])
		}
		for v := range n {
			xadj[v+1] += xadj[v]
		}
		vw := make([]int64, n)
		for v := range vw {
			vw[v] = int64(1 + rng.IntN(3))
		}
		whole, err := graph.FromCSR(xadj, adj, vw, w)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		vtxdist := randomVtxdist(rng, n)
		lmax := graph.Lmax(whole.TotalVertexWeight(), k, float64(rng.IntN(4))/8)
		start := make([]int32, n)
		for v := range start {
			start[v] = int32(rng.IntN(k))
		}
		cfg := refinement.JetConfig{Seed: uint64(trial), Iterations: 1 + rng.IntN(12)}

		b := cpu.New(1)
		dg, _ := b.UploadGraph(whole)
		dpe, _ := b.UploadVector(slices.Clone(start))
		if err := b.Refine(dg, dpe, top, lmax, cfg); err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		want, _ := b.DownloadVector(dpe)

		// whole.VW is a copy of vw (graph.FromCSR).
		lo := vtxdist[rank]
		g, err := rankSlice(c, whole, vtxdist, rank, true, whole.W)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		pe := make([]int32, g.N()+len(g.Ghost))
		for v := range g.N() {
			pe[v] = start[lo+int64(v)]
		}
		for i, x := range g.Ghost {
			pe[g.N()+i] = start[x]
		}
		if _, err := runJet(g, top, pe, lmax, cfg, true); err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		got, _, err := mpi.Allgatherv(c, pe[:g.N()], 3)
		if err != nil {
			rankFail("trial %d: %v", trial, err)
		}
		if !slices.Equal(got, want) {
			rankFail("trial %d (n %d, vtxdist %v, lmax %d): distributed Jet %v, CPU Jet %v", trial, n, vtxdist, lmax, got, want)
		}
		for i, x := range g.Ghost {
			if pe[g.N()+i] != got[x] {
				rankFail("trial %d: ghost %d has PE %d, its owner says %d", trial, x, pe[g.N()+i], got[x])
			}
		}
		if !slices.Equal(got, start) {
			changed++
		}
		if m, _ := graph.Evaluate(whole, top, start, 0); m.MaxBlock > lmax {
			above++
		}
	}
	fmt.Printf("rank %d: %d trials ok, %d changed, %d from above Lmax\n", rank, trials, changed, above)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// Skewed degrees, coarsened across 2 ranks, against the one-process
// mapper: an R-MAT graph of 2^13 ids (5,697 vertices, hubs of degree
// ~1,000) contracted to 500 vertices and mapped onto 4:4:2 costs at most
// 1.08x gpumap.Map's J (1,551,307), as issue 24 asks at P=2. Label
// propagation on J alone on the way up left 2,276,868 (1.47x); with the
// Jet loop 1,349,876 (0.87x).
func TestSkewedJ(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestSkewedJ", "J ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	whole := graph.RMAT(13, 8, 3)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	g := spreadEvenly(c, size, rank, whole)
	if cv, _, err := degreeCV(g); err != nil || cv < features.SkewedCV {
		rankFail("R-MAT's degrees are not skewed (%v): the test tests nothing", err)
	}
	var phases bytes.Buffer
	res, err := Map(g, top, Options{Eps: 0.03, Seed: 1, Threads: 1, Coarsest: 500, Phases: NewPhases(c, &phases, time.Now())})
	if err != nil {
		rankFail("%v", err)
	}
	if res.Levels == 0 || !res.Metrics.Feasible {
		rankFail("%d levels, feasible %v: want a coarsened, feasible mapping", res.Levels, res.Metrics.Feasible)
	}
	// -phases names the Jet loop of every level it refines (it had
	// counted the skewed path's Jet into the next level's projection,
	// and level 0's into the time after the levels).
	if rank == 0 && !strings.Contains(phases.String(), "phase level 0 jet ") {
		rankFail("no level 0 jet phase:\n%s", phases.String())
	}
	o := gpumap.DefaultOptions()
	o.Eps, o.Seed, o.Threads = 0.03, 1, 1
	one, err := gpumap.Map(whole, top, o)
	if err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		if 100*res.Metrics.J > 108*one.Metrics.J {
			rankFail("distributed J %d is %.3fx the one-process J %d (at most 1.08x)", res.Metrics.J, float64(res.Metrics.J)/float64(one.Metrics.J), one.Metrics.J)
		}
		fmt.Printf("J ok: %d, one-process %d\n", res.Metrics.J, one.Metrics.J)
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
