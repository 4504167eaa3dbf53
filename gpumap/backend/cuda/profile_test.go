package cuda

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// A profiled mapping's kernels add up to the mapping's counts (every
// launch, memset, device copy and gather is attributed to one kernel),
// and profiling does not change the mapping.
func TestProfileAddsUp(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.RandomGeometric(20000, 17)
	plain, _ := mapIM(t, b, g)
	b.SetProfile(true)
	profiled, _ := mapIM(t, b, g)
	b.SetProfile(false)
	if fmt.Sprint(plain) != fmt.Sprint(profiled) {
		t.Fatal("profiling changed the mapping")
	}
	var sum Counts
	for _, k := range b.Profile() {
		if k.Wall <= 0 {
			t.Errorf("%s/%s: no time measured", k.Phase, k.Name)
		}
		sum.add(k.Counts)
	}
	tot := b.Stats().Total()
	for _, c := range []struct {
		what      string
		sum, want int64
	}{
		{"launches", sum.Launches, tot.Launches},
		{"memsets", sum.Memsets, tot.Memsets},
		{"device copies", sum.D2D, tot.D2D},
		{"device bytes", sum.DeviceBytes, tot.DeviceBytes},
		{"gathers", sum.GatherCount(), tot.GatherCount()},
		{"gather bytes", sum.GatherBytes, tot.GatherBytes},
	} {
		if c.sum != c.want || c.want == 0 {
			t.Errorf("%s: the kernels add up to %d, the mapping counted %d", c.what, c.sum, c.want)
		}
	}
	// The driver calls that no kernel row shows: the upload's page-locking
	// (or the filling of the staging buffers) and copies (every byte of the
	// upload phase), and the frees.
	var up *KernelProfile
	names := map[string]bool{}
	for _, k := range b.Profile() {
		names[k.Name] = true
		if k.Name == "copy_h2d" && k.Phase == PhaseUpload {
			up = &k
		}
	}
	if want := b.Stats().Phases[PhaseUpload].H2DBytes; up == nil || up.H2DBytes != want || want == 0 {
		t.Errorf("upload: the copy_h2d row %+v, the phase copied %d bytes", up, want)
	}
	rows := map[uploadWay][]string{uploadPinned: {"host_register", "host_unregister"}, uploadStaged: {"stage_fill"}}[uploadMethod]
	for _, n := range append(rows, "free") {
		if !names[n] {
			t.Errorf("no %s row in the profile", n)
		}
	}
	if tab := b.ProfileTable(H100); !strings.Contains(tab, "match_prefer") || !strings.Contains(tab, "total") {
		t.Errorf("profile table:\n%s", tab)
	}
}

// BenchmarkProfile maps with every kernel timed (synchronised after each
// launch) and prints the measured time of each kernel beside the model's,
// on a real GPU the check of the model (on the emulator it times the
// emulator): integrated mapping of rgg 2^20 and 2^22 and a 3D grid of
// 2^21 vertices onto 4:8:6, GPU-HM of rgg 2^22, and integrated mapping of
// the wide instance (rgg of 121,192 vertices onto 4:8:64:8:6).
//
//	go test -run xxx -bench Profile -benchtime 1x ./gpumap/backend/cuda
func BenchmarkProfile(b *testing.B) {
	gpu, err := Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	d := H100
	if strings.Contains(gpu.dev.Name, "H200") {
		d = H200
	}
	top, _ := topology.Parse("4:8:6", "1:10:100")
	wide, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	for _, in := range []struct {
		name string
		hm   bool
		gen  func() *graph.Graph
		top  *topology.Topology // 4:8:6 when nil
	}{
		{"im/rgg2d_2^20", false, func() *graph.Graph { return graph.RandomGeometric(1<<20, 1) }, nil},
		{"im/rgg2d_2^22", false, func() *graph.Graph { return graph.RandomGeometric(1<<22, 1) }, nil},
		{"im/grid3d_2^21", false, func() *graph.Graph { return graph.Grid(128, 128, 128) }, nil},
		{"hm/rgg2d_2^22", true, func() *graph.Graph { return graph.RandomGeometric(1<<22, 1) }, nil},
		// k close to n: the per-PE kernels over 98,304 PEs
		{"im/wide_rgg2d_121192", false, func() *graph.Graph { return graph.RandomGeometric(121192, 1) }, wide},
	} {
		b.Run(in.name, func(b *testing.B) {
			g, tp := in.gen(), in.top
			if tp == nil {
				tp = top
			}
			for i := 0; i < b.N; i++ {
				gpu.SetProfile(true)
				var err error
				if in.hm {
					_, _, err = devhm.Map(gpu, par.New(0), g, tp, 0.03, devhm.Default)
				} else {
					_, _, err = integrated.Map(gpu, par.New(0), g, tp, 0.03, integrated.Config{Seed: 1, CoarsenC: 30, CapDiv: 8})
				}
				gpu.SetProfile(false)
				if err != nil {
					b.Fatal(err)
				}
			}
			fmt.Fprintf(os.Stderr, "%s on %s, model %s:\n%s", in.name, gpu.Name(), d.Name, gpu.ProfileTable(d))
		})
	}
}
