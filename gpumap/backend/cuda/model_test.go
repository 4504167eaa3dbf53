package cuda

import (
	"regexp"
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
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
	line := regexp.MustCompile(`^gpu: launches=\d+ syncs=\d+ h2d_bytes=\d+ d2h_bytes=\d+ est_h100_ms=\d+\.\d+$`)
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
