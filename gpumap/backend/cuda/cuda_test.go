package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

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

func open(t *testing.T) *Backend {
	t.Helper()
	b, err := Open()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	return b
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

func TestScanMatchesCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 1000, 1 << 20, 3<<20 + 7} {
		a := make([]int64, n)
		for i := range a {
			a[i] = rng.Int64N(1000)
		}
		p, _ := alloc(8 * int64(n))
		driver.CopyIn(p, unsafe.Pointer(&a[0]), uint64(8*n))
		total, err := b.scan(p, int64(n))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, n)
		driver.CopyOut(unsafe.Pointer(&got[0]), p, uint64(8*n))
		driver.Free(p)
		want := par.ExclusiveScan(par.New(1), a)
		if total != want {
			t.Fatalf("n=%d: total %d, want %d", n, total, want)
		}
		for i := range a {
			if got[i] != a[i] {
				t.Fatalf("n=%d: a[%d] = %d, want %d", n, i, got[i], a[i])
			}
		}
	}
}

func TestMatchContractProjectAgainstCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	x := par.New(0)
	for _, g := range []*graph.Graph{graph.RandomGeometric(200000, 3), graph.Grid(300, 300), graph.Random(50000, 400000, 9, 3, 4)} {
		dg, err := b.UploadGraph(g)
		if err != nil {
			t.Fatal(err)
		}
		mv, err := b.Match(dg, 4, 7)
		if err != nil {
			t.Fatal(err)
		}
		match, _ := b.DownloadVector(mv)
		pairs := 0
		for v, u := range match {
			if match[u] != int32(v) || u != int32(v) && g.VW[u]+g.VW[v] > 4 {
				t.Fatalf("invalid matching at %d", v)
			}
			if u != int32(v) {
				pairs++
			}
		}
		cpuPairs := 0
		for v, u := range coarsening.TwoHop(x, g, coarsening.TwoHopConfig{MaxWeight: 4, Seed: 7}) {
			if u != int32(v) {
				cpuPairs++
			}
		}
		if math.Abs(float64(pairs-cpuPairs)) > 0.05*float64(cpuPairs) {
			t.Errorf("GPU matched %d vertices, CPU %d", pairs, cpuPairs)
		}
		// Contract the GPU's matching on both backends and compare.
		cg, cm, err := b.Contract(dg, mv)
		if err != nil {
			t.Fatal(err)
		}
		gotG, _ := b.DownloadGraph(cg)
		gotMap, _ := b.DownloadVector(cm)
		cmap, leaders := coarsening.CoarseMap(x, match)
		want := coarsening.Contract(x, g, match, cmap, leaders)
		if err := gotG.Validate(); err != nil {
			t.Fatalf("GPU coarse graph: %v", err)
		}
		if !sameGraph(gotG, want) {
			t.Fatal("GPU and CPU coarse graphs differ")
		}
		for v := range cmap {
			if gotMap[v] != cmap[v] {
				t.Fatal("coarse maps differ")
			}
		}
		coarse := make([]int32, want.N())
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
		b.Free(dg, mv, cg, cm, dc, fv)
	}
}

// sameGraph compares adjacency sets with weights (order may differ).
func sameGraph(a, b *graph.Graph) bool {
	if a.N() != b.N() || len(a.Adj) != len(b.Adj) {
		return false
	}
	for v := 0; v < a.N(); v++ {
		if a.VW[v] != b.VW[v] || a.Degree(int32(v)) != b.Degree(int32(v)) {
			return false
		}
		type e struct {
			u int32
			w int64
		}
		var x, y []e
		for i := a.XAdj[v]; i < a.XAdj[v+1]; i++ {
			x = append(x, e{a.Adj[i], a.W(int64(i))})
		}
		for i := b.XAdj[v]; i < b.XAdj[v+1]; i++ {
			y = append(y, e{b.Adj[i], b.W(int64(i))})
		}
		sort.Slice(x, func(i, j int) bool { return x[i].u < x[j].u })
		sort.Slice(y, func(i, j int) bool { return y[i].u < y[j].u })
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
	}
	return true
}

func TestJetAgainstCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	g := graph.RandomGeometric(100000, 5)
	lmax := graph.Lmax(g.TotalVertexWeight(), top.K(), 0.03)
	part := make([]int32, g.N())
	for v := range part {
		part[v] = int32(v * top.K() / g.N()) // contiguous stripes: feasible, poor
	}
	obj := refinement.Mapping(top)
	dg, _ := b.UploadGraph(g)
	dp, _ := b.UploadVector(part)
	j, err := b.newJet(dg.(*devGraph), dp.(*devVec), top, lmax, refinement.JetConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := j.Cost()
	if want := obj.Cost(g, part); c != want {
		t.Fatalf("cost kernel %d, CPU %d", c, want)
	}
	j.free()
	if err := b.Refine(dg, dp, top, lmax, refinement.JetConfig{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	gpuPart, _ := b.DownloadVector(dp)
	cpuBackend := cpu.New(0)
	hg, _ := cpuBackend.UploadGraph(g)
	hp, _ := cpuBackend.UploadVector(part)
	cpuBackend.Refine(hg, hp, top, lmax, refinement.JetConfig{Seed: 1})
	cpuPart, _ := cpuBackend.DownloadVector(hp)
	mg, _ := graph.Evaluate(g, top, gpuPart, 0.03)
	mc, _ := graph.Evaluate(g, top, cpuPart, 0.03)
	if !mg.Feasible || float64(mg.J) > 1.03*float64(mc.J) {
		t.Fatalf("GPU Jet: J %d feasible %v; CPU Jet: J %d", mg.J, mg.Feasible, mc.J)
	}
	t.Logf("Jet on stripes: GPU J %d, CPU J %d", mg.J, mc.J)
}

func TestWholeMappingWithinThreePercentOfCPU(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	for _, g := range []*graph.Graph{graph.RandomGeometric(1<<18, 9), graph.Grid(512, 512)} {
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
		t.Logf("n=%d: GPU J %d, CPU J %d (%.4f)", g.N(), mg.J, mc.J, float64(mg.J)/float64(mc.J))
	}
}
