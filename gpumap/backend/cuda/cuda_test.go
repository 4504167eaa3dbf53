package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// TestMain prints the emulator's counters after the tests (make emutest
// shows them): what the kernels did, not only that the tests passed.
func TestMain(m *testing.M) {
	code := m.Run()
	if c, err := driver.Emu(); err == nil {
		fmt.Printf("cudaemu counters: %d launches (%d of kernels with barriers, %d barriers met), %d syncs, "+
			"h2d %d copies %d bytes (%d page-locked), d2h %d copies %d bytes, %d memsets, %d device copies, "+
			"%d allocations, %d bytes live, %d failed calls (most injected)\n",
			c.Launches, c.TeamLaunches, c.Barriers, c.Syncs, c.H2D, c.H2DBytes, c.H2DPinnedBytes, c.D2H, c.D2HBytes,
			c.Memsets, c.D2D, c.Allocs, c.LiveBytes, c.Errors)
	}
	os.Exit(code)
}

// The committed PTX must be generated from the committed source: its first
// line carries the source's SHA-256 (make ptx writes it).
func TestPTXMatchesSource(t *testing.T) {
	src, err := os.ReadFile("kernels/gpumap.cu")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	first := strings.SplitN(ptx, "\n", 2)[0]
	if want := "// gpumap.cu sha256 " + hex.EncodeToString(sum[:]); first != want {
		t.Fatalf("kernels/gpumap.ptx is stale: its header says %q, the source hashes to %q; run make ptx", first, want)
	}
	for _, name := range kernelNames {
		if !strings.Contains(ptx, ".entry "+name+"(") {
			t.Errorf("kernel %s is missing from the PTX", name)
		}
	}
}

// open opens the GPU backend, or skips the test with the reason when there
// is no GPU. Under the emulator (GPUMAP_CUDA_LIB set, as make test does)
// a backend that does not open fails the test instead: those runs must
// never skip.
func open(t testing.TB) *Backend {
	t.Helper()
	b, err := Open()
	if err != nil {
		if lib := os.Getenv("GPUMAP_CUDA_LIB"); lib != "" {
			t.Fatalf("GPUMAP_CUDA_LIB=%s is set but the GPU backend does not open: %v", lib, err)
		}
		t.Skipf("no GPU: %v", err)
	}
	return b
}

// emulated skips checks that need the emulator's counters or failure
// injection when the driver is a real one.
func emulated(t testing.TB) {
	t.Helper()
	if !driver.Emulated() {
		t.Skip("needs the emulated driver (make cudaemu; GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1)")
	}
}

func TestOpenWithoutGPUSaysWhy(t *testing.T) {
	b, err := Open()
	if err == nil {
		b.Close()
		t.Skip("a GPU is present")
	}
	if !strings.Contains(err.Error(), "driver") && !strings.Contains(err.Error(), "device") {
		t.Fatalf("the error does not name the missing driver or device: %v", err)
	}
}

// on runs f with the backend's context current on the calling thread (for
// tests that use the backend's internals).
func on(t testing.TB, b *Backend, f func()) {
	t.Helper()
	done, err := b.bind(b.phase)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	f()
}

func TestScanMatchesCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 1000, 1 << 20, 3<<20 + 7, 777777} {
		a := make([]int64, n+1)
		for i := range a[:n] {
			a[i] = rng.Int64N(1000)
		}
		got := make([]int64, n+1)
		on(t, b, func() {
			size, makeWS := workspaceBytes(n, 0, int64(b.scanB)*threads)
			p, err := alloc(size)
			if err != nil {
				t.Fatal(err)
			}
			defer driver.Free(p)
			ws := makeWS(p)
			if err := b.fill32(ws.ticket, 0, 2); err != nil {
				t.Fatal(err)
			}
			if err := b.copyIn(ws.flags, unsafe.Pointer(&a[0]), 8*int64(n), false); err != nil {
				t.Fatal(err)
			}
			total, err := b.scan(ws, ws.flags, int64(n), true)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.copyOut(unsafe.Pointer(&got[0]), ws.flags, 8*int64(n+1)); err != nil {
				t.Fatal(err)
			}
			if got[n] != total {
				t.Fatalf("n=%d: total %d returned, %d stored", n, total, got[n])
			}
		})
		want := par.ExclusiveScan(par.New(1), a[:n])
		if got[n] != want {
			t.Fatalf("n=%d: total %d, want %d", n, got[n], want)
		}
		for i := range a[:n] {
			if got[i] != a[i] {
				t.Fatalf("n=%d: a[%d] = %d, want %d", n, i, got[i], a[i])
			}
		}
	}
}

// twoHopGraphs are graphs on which mutual-preference rounds leave more
// than a quarter of the vertices unmatched, so two-hop matching runs:
// leaves of hubs, twins (a complete bipartite graph) and relatives
// (sparse random graphs), with weights that do not always fit.
func twoHopGraphs() []*graph.Graph {
	star := graph.NewBuilder(3001)
	for v := 1; v <= 3000; v++ {
		star.AddEdge(0, v, 1+int64(v%3))
		star.SetVertexWeight(v, 1+int64(v%4))
	}
	bip := graph.NewBuilder(2040)
	for a := 0; a < 40; a++ {
		for c := 40; c < 2040; c++ {
			if a < 3 || (a+c)%7 == 0 {
				bip.AddEdge(a, c, 1)
			}
		}
	}
	g1, _ := star.Build()
	g2, _ := bip.Build()
	return []*graph.Graph{g1, g2, graph.Random(30000, 20000, 5, 3, 8)}
}

// uploadMatch uploads g and matches it.
func uploadMatch(t testing.TB, b *Backend, g *graph.Graph, maxW int64, seed uint64) (backend.Graph, backend.Vector) {
	t.Helper()
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	mv, err := b.Match(dg, maxW, seed)
	if err != nil {
		t.Fatal(err)
	}
	return dg, mv
}

// twoHopPairs counts matched pairs that are not neighbours.
func twoHopPairs(g *graph.Graph, match []int32) int {
	c := 0
	for v, u := range match {
		if int(u) <= v {
			continue
		}
		if !slices.Contains(g.Adj[g.XAdj[v]:g.XAdj[v+1]], u) {
			c++
		}
	}
	return c
}

// Matching, contraction and projection on the device compute exactly what
// the CPU backend computes: the same matching, the same coarse graph (byte
// for byte) and map.
func TestMatchContractProjectAgainstCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	x := par.New(0)
	// unit, narrow and wide (64-bit) edge weights
	graphs := append([]*graph.Graph{graph.RandomGeometric(200000, 3), graph.Grid(300, 300), graph.Random(50000, 400000, 9, 3, 4),
		graph.Random(20000, 60000, 1<<34, 3, 5)}, twoHopGraphs()...)
	for i, g := range graphs {
		dg, mv := uploadMatch(t, b, g, 4, 7)
		match, _ := b.DownloadVector(mv)
		want := coarsening.TwoHop(x, g, coarsening.TwoHopConfig{MaxWeight: 4, Seed: 7})
		if !slices.Equal(match, want) {
			t.Fatalf("graph %d: the GPU's matching differs from the CPU's", i)
		}
		if i >= 4 && twoHopPairs(g, match) == 0 {
			t.Fatalf("graph %d: no two-hop pair: the test does not reach two-hop matching", i)
		}
		cg, cm, err := b.Contract(dg, mv)
		if err != nil {
			t.Fatal(err)
		}
		gotG, _ := b.DownloadGraph(cg)
		gotMap, _ := b.DownloadVector(cm)
		cmap, leaders := coarsening.CoarseMap(x, match)
		wantG := coarsening.Contract(x, g, match, cmap, leaders)
		if !slices.Equal(gotG.XAdj, wantG.XAdj) || !slices.Equal(gotG.Adj, wantG.Adj) || !slices.Equal(gotG.EdgeWeights(), wantG.EdgeWeights()) ||
			!slices.Equal(gotG.VW, wantG.VW) || !slices.Equal(gotMap, cmap) {
			t.Fatalf("graph %d: the GPU's coarse graph or map differs from the CPU's", i)
		}
		coarse := make([]int32, wantG.N())
		for i := range coarse {
			coarse[i] = int32(i % 7)
		}
		dc, _ := b.UploadVector(coarse)
		fv, _ := b.Project(cm, dc)
		fine, _ := b.DownloadVector(fv)
		for v := range fine {
			if fine[v] != coarse[cmap[v]] {
				t.Fatal("projection differs")
			}
		}
		b.Free(mv, cg, cm, dc, fv, dg)
	}
}

// The GPU's Jet (label propagation, afterburner, weak and strong
// rebalancing, best-mapping bookkeeping) must produce exactly the CPU
// backend's mapping: same start, same seed, byte-identical result.
func TestJetEqualsCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	stripes := func(g *graph.Graph) []int32 { // feasible, poor
		p := make([]int32, g.N())
		for v := range p {
			p[v] = int32(v * top.K() / g.N())
		}
		return p
	}
	lopsided := func(g *graph.Graph) []int32 { // a third of the vertices crammed into few blocks
		p := stripes(g)
		for v := range p[:len(p)/3] {
			p[v] = int32(v % 5)
		}
		return p
	}
	cases := []struct {
		name  string
		g     *graph.Graph
		start func(*graph.Graph) []int32
	}{
		{"rgg stripes", graph.RandomGeometric(50000, 5), stripes},
		{"rgg lopsided", graph.RandomGeometric(30000, 6), lopsided},
		{"weighted lopsided", graph.Random(20000, 100000, 9, 5, 7), lopsided},
		{"wide weights", graph.Random(10000, 40000, 1<<33, 3, 8), lopsided},
	}
	obj := refinement.Mapping(top)
	for _, c := range cases {
		part := c.start(c.g)
		lmax := graph.Lmax(c.g.TotalVertexWeight(), top.K(), 0.03)
		cfg := refinement.JetConfig{Seed: 11}
		dg, err := b.UploadGraph(c.g)
		if err != nil {
			t.Fatal(err)
		}
		dp, _ := b.UploadVector(part)
		on(t, b, func() {
			j, err := b.newJet(dg.(*devGraph), dp.(*devVec), top, lmax, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cost, err := j.Cost()
			if want := obj.Cost(c.g, part); err != nil || cost != want {
				t.Fatalf("%s: J on the device %d (%v), on the host %d", c.name, cost, err, want)
			}
		})
		if err := b.Refine(dg, dp, top, lmax, cfg); err != nil {
			t.Fatal(err)
		}
		gpuPart, _ := b.DownloadVector(dp)
		// Again, in the same workspace (nothing may leak from one Refine
		// into the next), with the single-block kernels at 256 threads as on
		// a real GPU (the emulator's device gets 64).
		team := b.team
		b.team = 256
		dp2, _ := b.UploadVector(part)
		if err := b.Refine(dg, dp2, top, lmax, cfg); err != nil {
			t.Fatal(err)
		}
		b.team = team
		again, _ := b.DownloadVector(dp2)
		if !slices.Equal(again, gpuPart) {
			t.Errorf("%s: a second Refine from the same start in the same workspace, with 256-thread single blocks, gave another mapping", c.name)
		}
		b.Free(dp, dp2, dg)
		cb := cpu.New(0)
		hg, _ := cb.UploadGraph(c.g)
		hp, _ := cb.UploadVector(part)
		cb.Refine(hg, hp, top, lmax, cfg)
		cpuPart, _ := cb.DownloadVector(hp)
		diff := 0
		for v := range cpuPart {
			if gpuPart[v] != cpuPart[v] {
				diff++
			}
		}
		mg, _ := graph.Evaluate(c.g, top, gpuPart, 0.03)
		mc, _ := graph.Evaluate(c.g, top, cpuPart, 0.03)
		if diff > 0 {
			t.Errorf("%s: %d vertices mapped differently; GPU J %d (feasible %v), CPU J %d (feasible %v)", c.name, diff, mg.J, mg.Feasible, mc.J, mc.Feasible)
		}
		t.Logf("%s: J %d -> %d, feasible %v", c.name, obj.Cost(c.g, part), mc.J, mc.Feasible)
	}
}

// The whole GPU pipeline (coarsening, the host's initial mapping of the
// coarsest graph, projection and Jet on every level) must give J within 3%
// of the CPU backend's IM; since every phase computes what the CPU's does,
// the mappings are in fact identical, and the test says so when not.
func TestWholeMappingWithinThreePercentOfCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	for _, g := range []*graph.Graph{graph.RandomGeometric(1<<18, 9), graph.Grid(512, 512), graph.Random(1<<16, 1<<16, 5, 3, 21)} {
		cfg := integrated.Config{Seed: 3, CoarsenC: 30, CapDiv: 8}
		x := par.New(0)
		gp, _, err := integrated.Map(b, x, g, top, 0.03, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cp, _, _ := integrated.Map(cpu.New(0), x, g, top, 0.03, cfg)
		mg, _ := graph.Evaluate(g, top, gp, 0.03)
		mc, _ := graph.Evaluate(g, top, cp, 0.03)
		if !mg.Feasible || float64(mg.J) > 1.03*float64(mc.J) {
			t.Errorf("n=%d: GPU J %d (feasible %v), CPU J %d", g.N(), mg.J, mg.Feasible, mc.J)
		}
		if !slices.Equal(gp, cp) {
			t.Errorf("n=%d: the GPU's mapping differs from the CPU backend's (J %d vs %d): a phase no longer computes what the CPU's does", g.N(), mg.J, mc.J)
		}
		t.Logf("n=%d: GPU J %d, CPU J %d (%.4f)", g.N(), mg.J, mc.J, float64(mg.J)/float64(mc.J))
	}
}
