package cuda

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

func mapIM(t *testing.T, b *Backend, g *graph.Graph) ([]int32, integrated.Times) {
	t.Helper()
	top, _ := topology.Parse("4:8:6", "1:10:100")
	pe, tm, err := integrated.Map(b, par.New(0), g, top, 0.03, integrated.Config{Seed: 1, CoarsenC: 30, CapDiv: 8})
	if err != nil {
		t.Fatal(err)
	}
	return pe, tm
}

// The backend's own counts (what the model uses on a real device) are the
// emulator's: every launch, memset, copy and synchronisation is counted.
func TestStatsAgreeWithTheEmulator(t *testing.T) {
	b := open(t)
	defer b.Close()
	emulated(t)
	before, _ := driver.Emu()
	mapIM(t, b, graph.RandomGeometric(40000, 13))
	after, _ := driver.Emu()
	s := b.Stats().Total()
	for _, c := range []struct {
		what     string
		own, emu int64
	}{
		{"launches", s.Launches, int64(after.Launches - before.Launches)},
		{"memsets", s.Memsets, int64(after.Memsets - before.Memsets)},
		{"device copies", s.D2D, int64(after.D2D - before.D2D)},
		{"syncs", s.Syncs, int64(after.Syncs - before.Syncs)},
		{"h2d copies", s.H2D, int64(after.H2D - before.H2D)},
		{"h2d bytes", s.H2DBytes, int64(after.H2DBytes - before.H2DBytes)},
		{"h2d pinned bytes", s.H2DPinnedBytes, int64(after.H2DPinnedBytes - before.H2DPinnedBytes)},
		{"d2h copies", s.D2H, int64(after.D2H - before.D2H)},
		{"d2h bytes", s.D2HBytes, int64(after.D2HBytes - before.D2HBytes)},
	} {
		if c.own != c.emu {
			t.Errorf("%s: the backend counted %d, the emulator %d", c.what, c.own, c.emu)
		}
	}
	line := regexp.MustCompile(`^gpu: launches=\d+ syncs=\d+ h2d_bytes=\d+ d2h_bytes=\d+ est_h100_ms=\d+\.\d+ est_total_ms=\d+\.\d+$`)
	if l := b.Stats().Line(); !line.MatchString(l) {
		t.Errorf("machine-readable line %q", l)
	}
}

// A graph generated for this test (2^17 points, a seed used nowhere
// else): after the upload, the whole mapping moves at most 8n + 4 MiB
// from the device to the host (the mapping itself is 4n); refinement reads
// one block of scalars per iteration and rebalancing none; nothing is
// allocated but the input graph, the workspace, the refinement arrays, the
// initial mapping and per level the coarse graph and its map; the upload
// is page-locked; and the mapping is the CPU backend's.
func TestHeldOutGraphTraffic(t *testing.T) {
	b := open(t)
	defer b.Close()
	emulated(t)
	g := graph.RandomGeometric(1<<17, 0x5eed2026)
	n := int64(g.N())
	before, _ := driver.Emu()
	pe, tm := mapIM(t, b, g)
	after, _ := driver.Emu()
	s := b.Stats()
	d2h := int64(after.D2HBytes - before.D2HBytes)
	if limit := 8*n + 4<<20; d2h > limit {
		t.Errorf("%d bytes device-to-host, more than 8n + 4 MiB = %d", d2h, limit)
	}
	if r := s.Phases[PhaseRefine]; r.D2HBytes != r.D2H*8*ctlRead {
		t.Errorf("refinement read %d bytes in %d copies: want one %d-byte block per iteration", r.D2HBytes, r.D2H, 8*ctlRead)
	}
	if r := s.Phases[PhaseRebalance]; r.D2H+r.H2D+r.Syncs != 0 {
		t.Errorf("rebalancing talked to the host: %+v", r)
	}
	if allocs, want := int(after.Allocs-before.Allocs), 4+2*tm.Levels; allocs != want {
		t.Errorf("%d device allocations for %d levels, want %d", allocs, tm.Levels, want)
	}
	if u := s.Phases[PhaseUpload]; u.H2DPinnedBytes != u.H2DBytes {
		t.Errorf("upload: %d of %d bytes from page-locked memory", u.H2DPinnedBytes, u.H2DBytes)
	}
	cp, _, _ := integrated.Map(cpu.New(0), par.New(0), g, mustTop(), 0.03, integrated.Config{Seed: 1, CoarsenC: 30, CapDiv: 8})
	if !slices.Equal(pe, cp) {
		t.Errorf("the GPU's mapping differs from the CPU backend's")
	}
	t.Logf("n=%d: d2h %d bytes (8n + 4 MiB = %d), %d levels\n%s", n, d2h, 8*n+4<<20, tm.Levels, s.Table())
}

func mustTop() *topology.Topology {
	top, _ := topology.Parse("4:8:6", "1:10:100")
	return top
}

// The model by hand: streamed bytes at the memory bandwidth, a gather's
// 32-byte sector from L2 when its array fits half of it and from memory
// otherwise (its element, counted with the streamed bytes, taken out),
// launches and syncs at their fixed costs, serial round trips at the
// latency, atomics into few addresses at their rate, transfers at PCIe
// speed; the total adds the measured host work.
func TestModelByHand(t *testing.T) {
	d := Device{Bandwidth: 1e12, L2Bytes: 64 << 20, L2Bandwidth: 4e12, Launch: 5e-6, Memset: 5e-6, Sync: 20e-6, Latency: 1e-7,
		AtomicRate: 1e9, PCIePinned: 20e9, PCIePageable: 10e9, SectorBytes: 32}
	var c Counts
	c.Launches, c.Memsets, c.Syncs = 10, 2, 3
	c.Chain, c.Atomics = 500, 1e6
	c.DeviceBytes = 1e9
	c.H2DBytes, c.H2DPinnedBytes, c.D2HBytes = 4e8, 2e8, 1e8
	// 1e6 gathers of 4 bytes into a 4 MiB array (L2), 2e6 of 8 bytes into
	// a 64 MiB one (more than half the L2: memory).
	c.Gathers[spanClass(4<<20)] = 1e6
	c.Gathers[spanClass(64<<20)] = 2e6
	c.GatherBytes = 4e6 + 16e6
	// 12 launches: 60 us; 3 syncs: 60 us; memory (1e9 - 2e7 + 6.4e7) /
	// 1e12 = 1044 us; L2 3.2e7 / 4e12 = 8 us; 500 round trips: 50 us;
	// 1e6 atomics: 1 ms; pinned 2e8/20e9 = 10 ms; pageable 3e8/10e9 = 30
	// ms. Total 42.222 ms.
	if got, want := c.EstimateOn(d), 42222*time.Microsecond; got != want {
		t.Errorf("estimate %v, want %v", got, want)
	}
	if spanClass(4<<20) != 22 || spanClass(4<<20+1) != 23 || spanClass(1) != 0 {
		t.Errorf("span classes %d %d %d", spanClass(4<<20), spanClass(4<<20+1), spanClass(1))
	}
	var s Stats
	s.Phases[PhaseRefine] = c
	s.Host[HostInitial], s.Host[HostRefine] = 7*time.Millisecond, 2*time.Millisecond
	if got, want := s.EstimateTotal(d), 51222*time.Microsecond; got != want {
		t.Errorf("total %v, want %v", got, want)
	}
	// Without gathers the H100 figures are those of the byte model: 100
	// launches at 11.3 us and 2.32 GB at 1.16 TB/s, times 1.05 for
	// streams (traffic of no kind is a stream's).
	var b Counts
	b.Launches, b.DeviceBytes = 100, 2.32e9
	if got, want := b.Estimate(), 3230*time.Microsecond; got < want-time.Microsecond || got > want+time.Microsecond {
		t.Errorf("H100 estimate %v, want %v", got, want)
	}
}

// Per kernel kind the traffic's time is scaled by the kind's factor: the
// same bytes and gathers cost 0.51x in a gathering row loop, 3x in a
// per-row sort, 0.08x in a memset, and work of no kind is a stream's.
func TestModelKindsByHand(t *testing.T) {
	d := Device{Bandwidth: 1e12, L2Bytes: 64 << 20, L2Bandwidth: 4e12, SectorBytes: 32, PCIePinned: 1, PCIePageable: 1,
		Kind: [numKinds]float64{KindStream: 1.05, KindGather: 0.51, KindSort: 3, KindMemset: 0.08}}
	var w Work
	w.Bytes, w.GatherBytes = 1e9, 4e6
	w.Gathers[spanClass(4<<20)] = 1e6 // L2: 3.2e7 / 4e12 = 8 us
	// (1e9 - 4e6) / 1e12 = 996 us + 8 us = 1004 us per kind, times its factor.
	for k, want := range []time.Duration{1054200, 512040, 3012000, 80320} {
		var c Counts
		c.DeviceBytes, c.GatherBytes, c.Gathers = w.Bytes, w.GatherBytes, w.Gathers
		c.Kinds[k] = w
		if got := c.EstimateOn(d); got != want {
			t.Errorf("%v of kind %d: %v, want %v", w.Bytes, k, got, want)
		}
	}
	// Half in no kind: a stream's.
	var c Counts
	c.DeviceBytes = 2e9
	c.Kinds[KindSort].Bytes = 1e9
	if got, want := c.EstimateOn(d), 4050*time.Microsecond; got != want {
		t.Errorf("half sort, half unattributed: %v, want %v", got, want)
	}
}

// Every byte and gather that a mapping counts is attributed to the kind
// of the kernel that moved it (counted before its launch, or after it
// from the counts read back, late), so the model's per-kind factors see
// all of it; a profiled mapping counts the same.
func TestEveryByteHasAKind(t *testing.T) {
	b := open(t)
	defer b.Close()
	for _, prof := range []bool{false, true} {
		b.SetProfile(prof)
		mapIM(t, b, graph.RandomGeometric(12000, 0x6b1d))
		for p, c := range b.Stats().Phases {
			var w Work
			for _, k := range c.Kinds {
				w.add(k)
			}
			if w.Bytes != c.DeviceBytes || w.GatherBytes != c.GatherBytes || w.Gathers != c.Gathers {
				t.Errorf("profile %v, phase %v: kinds hold %d bytes and %d gathers of %d and %d", prof, Phase(p),
					w.Bytes, Counts{Gathers: w.Gathers}.GatherCount(), c.DeviceBytes, c.GatherCount())
			}
		}
		if c := b.Stats().Total(); c.Kinds[KindGather].Bytes == 0 || c.Kinds[KindSort].Bytes == 0 || c.Kinds[KindMemset].Bytes == 0 {
			t.Errorf("profile %v: a kind without traffic: %+v", prof, c.Kinds)
		}
	}
	b.SetProfile(false)
}

// Exact counts of steps that wait for nothing they do not need: a
// download synchronises once, before its first copy (the copies after it
// follow no launch); a weak rebalancing round is its candidates, one
// narrowing step per 2^binsLog bins of ids but the last, and the eviction,
// which finds the crossing vertex in the last window itself (50,000
// vertices: 16 id bits, 256 bins per step, one step); label propagation
// is its candidates and the afterburner, which moves the survivors.
func TestWaitsAndLaunchesOfSteps(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.RandomGeometric(50000, 21)
	top, _ := topology.Parse("4:8:6", "1:10:100")
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(dg)
	if _, err := b.DownloadGraph(dg); err != nil {
		t.Fatal(err)
	}
	if c := b.Stats().Phases[PhaseInitial]; c.Syncs != 1 || c.D2H != 3 {
		t.Errorf("the graph's download: %d synchronisations for %d copies, want 1 for 3", c.Syncs, c.D2H)
	}
	part := make([]int32, g.N())
	for v := range part { // a third of the vertices crammed into 5 PEs
		part[v] = int32(v * top.K() / g.N())
		if v < g.N()/3 {
			part[v] = int32(v % 5)
		}
	}
	dp, _ := b.UploadVector(part)
	defer b.Free(dp)
	lmax := graph.Lmax(g.TotalVertexWeight(), top.K(), 0.03)
	on(t, b, func() {
		j, err := b.newJet(dg.(*devGraph), dp.(*devVec), top, lmax, refinement.JetConfig{Seed: 3})
		if err == nil {
			_, err = j.Cost()
		}
		if err != nil {
			t.Fatal(err)
		}
		if j.a.binsLog != 8 {
			t.Fatalf("%d bins per step: not the case this test counts", 1<<j.a.binsLog)
		}
		before := b.Stats().Phases[PhaseRebalance]
		if err := j.Rebalance(false); err != nil {
			t.Fatal(err)
		}
		c := b.Stats().Phases[PhaseRebalance]
		if l, s := c.Launches-before.Launches, c.Syncs-before.Syncs; l != 3 || s != 0 {
			t.Errorf("a weak rebalancing round: %d launches and %d synchronisations, want 3 (reb_cand, reb_hist, reb_evict) and 0", l, s)
		}
		if _, err := j.Cost(); err != nil {
			t.Fatal(err)
		}
		before = b.Stats().Total() // in the caller's phase (Refine's when it runs the loop)
		if err := j.LabelPropagation(); err != nil {
			t.Fatal(err)
		}
		c = b.Stats().Total()
		if l, s := c.Launches-before.Launches, c.Syncs-before.Syncs; l != 2 || s != 0 {
			t.Errorf("label propagation: %d launches and %d synchronisations, want 2 (jet_lp, jet_after) and 0", l, s)
		}
	})
}
