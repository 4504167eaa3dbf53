package cuda

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// Each test here failed before the defect it names was fixed (run through
// the emulator: make cudaemu, GPUMAP_CUDA_LIB=build/cudaemu/libcuda.so.1).

func smallMap(t testing.TB, b *Backend, g *graph.Graph, seed uint64) ([]int32, error) {
	t.Helper()
	top, _ := topology.Parse("2:4:2", "1:10:100")
	pe, _, err := integrated.Map(b, par.New(0), g, top, 0.03, integrated.Config{Seed: seed, CoarsenC: 30, CapDiv: 8})
	if err == nil {
		if m, err := graph.Evaluate(g, top, pe, 0.03); err != nil || !m.Feasible {
			t.Errorf("invalid or infeasible mapping: %v %+v", err, m)
		}
	}
	return pe, err
}

// Defect: Open made the context current on its own OS thread only, so a
// backend used from another goroutine (b.Run's sub-benchmarks, t.Run's
// subtests) failed every call with CUDA_ERROR_INVALID_CONTEXT.
func TestBackendWorksFromAnyGoroutine(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.Grid(60, 60)
	for i := 0; i < 2; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := smallMap(t, b, g, 1); err != nil {
				t.Fatal(err)
			}
		})
	}
	done := make(chan error)
	go func() {
		_, err := smallMap(t, b, g, 1)
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Defect: contract_insert placed each coarse neighbour in the slot whose
// compare-and-swap won, so coarse adjacency order, and with it the
// host's initial mapping, changed from run to run.
func TestCoarseGraphsAreReproducible(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.RandomGeometric(20000, 4)
	var first *graph.Graph
	for run := 0; run < 3; run++ {
		dg, mv := uploadMatch(t, b, g, 4, 7)
		cg, cm, err := b.Contract(dg, mv)
		if err != nil {
			t.Fatal(err)
		}
		h, err := b.DownloadGraph(cg)
		if err != nil {
			t.Fatal(err)
		}
		b.Free(dg, mv, cg, cm)
		if first == nil {
			first = h
			continue
		}
		if !slices.Equal(h.XAdj, first.XAdj) || !slices.Equal(h.Adj, first.Adj) || !slices.Equal(h.EdgeWeights(), first.EdgeWeights()) {
			t.Fatalf("run %d built a different coarse graph than run 0 from the same matching", run)
		}
	}
}

func TestGPUMappingsAreReproducible(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.RandomGeometric(30000, 5)
	first, err := smallMap(t, b, g, 9)
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run < 3; run++ {
		pe, err := smallMap(t, b, g, 9)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pe, first) {
			diff := 0
			for v := range pe {
				if pe[v] != first[v] {
					diff++
				}
			}
			t.Fatalf("run %d: %d of %d vertices mapped differently than in run 0 (same graph, seed, device)", run, diff, len(pe))
		}
	}
}

// Defect: pair_noise read "(u << 32) | v ^ seed" as "(u << 32) | (v ^
// seed)" in C (Go: "((u << 32) | v) ^ seed"), so for seeds of 2^32 and
// more the GPU broke rating ties differently from the CPU. On a unit
// grid every choice is a tie, so the matchings must be identical.
func TestMatchingEqualsCPUForEverySeed(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.Grid(150, 150)
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(dg)
	for _, seed := range []uint64{7, 1<<40 + 7, 0xdeadbeefcafef00d} {
		mv, err := b.Match(dg, 2, seed)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := b.DownloadVector(mv)
		b.Free(mv)
		want := coarsening.TwoHop(par.New(0), g, coarsening.TwoHopConfig{MaxWeight: 2, Seed: seed})
		for v := range want {
			if got[v] != want[v] {
				t.Fatalf("seed %#x: vertex %d matched to %d on the GPU, %d on the CPU", seed, v, got[v], want[v])
			}
		}
	}
}

// Defect: Map freed every coarse graph but not the uploaded input graph.
func TestMapFreesEverything(t *testing.T) {
	b := open(t)
	defer b.Close()
	emulated(t)
	before, _ := driver.Emu()
	if _, err := smallMap(t, b, graph.Grid(80, 80), 3); err != nil {
		t.Fatal(err)
	}
	after, _ := driver.Emu()
	if after.LiveBytes != before.LiveBytes {
		t.Fatalf("%d bytes of device memory left allocated by one mapping", after.LiveBytes-before.LiveBytes)
	}
}

// Defect: error paths returned without freeing what they had allocated.
// Every call of each kind fails once in turn (a sample of them for the
// frequent kinds); the mapping must report the error and leave the
// device memory as it found it.
func TestFailedCallsLeakNothing(t *testing.T) {
	b := open(t)
	defer b.Close()
	emulated(t)
	g := graph.Grid(50, 50)
	c0, _ := driver.Emu()
	if _, err := smallMap(t, b, g, 3); err != nil {
		t.Fatal(err)
	}
	c1, _ := driver.Emu()
	kinds := []struct {
		call  string
		calls uint64
		code  int
	}{
		{"cuMemAlloc_v2", c1.Allocs - c0.Allocs, driver.ErrCodeOutOfMemory},
		{"cuLaunchKernel", c1.Launches - c0.Launches, driver.ErrCodeLaunch},
		{"cuMemcpyHtoD_v2", c1.H2D - c1.H2DAsync - (c0.H2D - c0.H2DAsync), driver.ErrCodeLaunch},
		{"cuMemcpyHtoDAsync_v2", c1.H2DAsync - c0.H2DAsync, driver.ErrCodeLaunch}, // staged uploads
		{"cuMemcpyDtoH_v2", c1.D2H - c0.D2H, driver.ErrCodeLaunch},
		{"cuMemcpyDtoD_v2", c1.D2D - c0.D2D, driver.ErrCodeLaunch},
		{"cuMemsetD32_v2", c1.Memsets - c0.Memsets, driver.ErrCodeLaunch},
		{"cuStreamSynchronize", c1.Syncs - c0.Syncs, driver.ErrCodeLaunch},
	}
	for _, k := range kinds {
		step := max(k.calls/12, 1)
		for nth := uint64(1); nth <= k.calls; nth += step {
			before, _ := driver.Emu()
			driver.EmuFail(k.call, int(nth), k.code)
			_, err := smallMap(t, b, g, 3)
			driver.EmuClearFailures()
			after, _ := driver.Emu()
			if err == nil {
				t.Errorf("%s #%d failed, the mapping did not say so", k.call, nth)
			}
			if after.LiveBytes != before.LiveBytes {
				t.Errorf("%s #%d failed: %d bytes leaked (%v)", k.call, nth, after.LiveBytes-before.LiveBytes, err)
			}
		}
	}
}

// Defect: a failed Open released the OS-thread lock twice, taking the
// caller's own runtime.LockOSThread with it (MPI callers rely on it).
func TestFailedOpenKeepsTheCallersThreadLock(t *testing.T) {
	b := open(t)
	b.Close()
	emulated(t)
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := syscall.Gettid()
		driver.EmuFail("cuModuleGetFunction", 3, 500)
		if b, err := Open(); err == nil {
			b.Close()
			done <- fmt.Errorf("Open did not fail")
			return
		}
		driver.EmuClearFailures()
		stop := make(chan struct{})
		defer close(stop)
		for i := 0; i < 4; i++ {
			go func() {
				for {
					select {
					case <-stop:
						return
					default:
						runtime.Gosched()
					}
				}
			}()
		}
		for i := 0; i < 300; i++ {
			time.Sleep(50 * time.Microsecond)
			runtime.Gosched()
			if syscall.Gettid() != tid {
				done <- fmt.Errorf("after a failed Open the caller's goroutine moved to another thread (after %d sleeps): its LockOSThread was released", i)
				return
			}
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Defect: hop_pair scanned the matchmaker's whole neighbourhood for every
// vertex it served: quadratic in the matchmaker's degree. A star with
// 2^18 leaves took minutes; linear work takes well under a second. (The
// limit is generous: this checks the complexity, not the speed.)
func TestTwoHopMatchingIsLinearInTheDegree(t *testing.T) {
	b := open(t)
	defer b.Close()
	const leaves = 1 << 18
	bld := graph.NewBuilder(leaves + 1)
	for v := 1; v <= leaves; v++ {
		bld.AddEdge(0, v, 1)
	}
	g, _ := bld.Build()
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(dg)
	type result struct {
		match []int32
		err   error
	}
	done := make(chan result, 1)
	go func() {
		mv, err := b.Match(dg, 2, 1)
		if err != nil {
			done <- result{nil, err}
			return
		}
		m, err := b.DownloadVector(mv)
		b.Free(mv)
		done <- result{m, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("two-hop matching of a star with 2^18 leaves did not finish in 90 s: quadratic in the degree")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	paired := 0
	for v, u := range r.match {
		if r.match[u] != int32(v) {
			t.Fatalf("invalid matching at %d", v)
		}
		if u != int32(v) {
			paired++
		}
	}
	if paired < leaves-2 {
		t.Fatalf("%d of %d vertices paired; two-hop matching should pair the leaves", paired, leaves+1)
	}
}
