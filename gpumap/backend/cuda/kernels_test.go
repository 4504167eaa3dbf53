package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// block_weights takes one of three paths by the number of PEs k (a table
// in registers up to 8, shared memory up to 1024, runs of ids beyond) and
// splits the vertices into contiguous ranges per block: every path, with
// the emulator's block count and with more blocks than vertices per
// block, must give the host's sums exactly. The mappings mix runs of ids
// on one PE (what the ranges aggregate) with scattered PEs.
func TestBlockWeightsEveryPath(t *testing.T) {
	b := open(t)
	defer b.Close()
	g := graph.Random(30011, 60000, 1, 1000, 3)
	rng := rand.New(rand.NewPCG(5, 6))
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(dg)
	for _, k := range []int{2, 8, 9, 192, 1024, 1025, 5000} {
		top, err := topology.Parse(fmt.Sprint(k), "1")
		if err != nil {
			t.Fatal(err)
		}
		part := make([]int32, g.N())
		for v := range part {
			if v%3 == 0 {
				part[v] = int32(rng.IntN(k))
			} else {
				part[v] = int32(v * k / g.N())
			}
		}
		want := make([]int64, k)
		for v, p := range part {
			want[p] += g.VW[v]
		}
		for _, grid := range []uint32{b.teamGrid, 700} {
			dp, err := b.UploadVector(part)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int64, k)
			teamGrid := b.teamGrid
			b.teamGrid = grid
			on(t, b, func() {
				j, err := b.newJet(dg.(*devGraph), dp.(*devVec), top, 1<<40, refinement.JetConfig{Seed: 1})
				if err == nil {
					err = b.copyOut(unsafe.Pointer(&got[0]), j.a.bw, 8*int64(k))
				}
				if err != nil {
					t.Fatal(err)
				}
			})
			b.teamGrid = teamGrid
			b.Free(dp)
			if !slices.Equal(got, want) {
				t.Fatalf("k=%d, %d blocks: the device's block weights differ from the host's", k, grid)
			}
		}
	}
}

// With k close to n (4:8:64:8:6, 98,304 PEs) rebalancing narrows the
// crossing vertex down with 16 bins per step, fewer than reb_refine loads
// per batch: the Jet loop must still give the CPU backend's mapping.
func TestJetEqualsCPUWithFewBins(t *testing.T) {
	b := open(t)
	defer b.Close()
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	g := graph.RandomGeometric(120000, 3)
	part := make([]int32, g.N())
	for v := range part { // stripes, a fifth of them crammed into few PEs
		part[v] = int32(v * top.K() / g.N())
		if v%5 == 0 {
			part[v] = int32(v % 7)
		}
	}
	lmax := graph.Lmax(g.TotalVertexWeight(), top.K(), 0.03)
	cfg := refinement.JetConfig{Seed: 4}
	dg, err := b.UploadGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	dp, _ := b.UploadVector(part)
	on(t, b, func() {
		j, err := b.newJet(dg.(*devGraph), dp.(*devVec), top, lmax, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if j.a.binsLog >= 5 {
			t.Fatalf("%d bins per step: the test does not reach reb_refine's partial batch", 1<<j.a.binsLog)
		}
	})
	if err := b.Refine(dg, dp, top, lmax, cfg); err != nil {
		t.Fatal(err)
	}
	gpuPart, _ := b.DownloadVector(dp)
	b.Free(dp, dg)
	cb := cpu.New(0)
	hg, _ := cb.UploadGraph(g)
	hp, _ := cb.UploadVector(part)
	if err := cb.Refine(hg, hp, top, lmax, cfg); err != nil {
		t.Fatal(err)
	}
	cpuPart, _ := cb.DownloadVector(hp)
	if !slices.Equal(gpuPart, cpuPart) {
		t.Errorf("the GPU's Jet mapping differs from the CPU backend's")
	}
}
