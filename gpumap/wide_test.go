package gpumap

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/topology"
)

// A wide mapping (k = 4096 PEs, 1.5 vertices per PE): the default preset
// skips the final J refinement; integrated mapping with the fast preset
// coarsens the graph
// (onto the machine truncated below groups of 32 PEs, 48 vertices each:
// before, it coarsened to 30 k vertices, that is not at all, and the host
// mapped the whole graph) and gives the same mapping on the CPU and, when
// the emulated driver is there, on the GPU (which never runs the host's J
// pass), whose "gpu:" line adds the measured host work to the device
// model.
func TestWideMapping(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 17)
	var log bytes.Buffer
	res, err := Map(g, top, Options{Preset: Default, Eps: 0.03, Seed: 1, Threads: 1, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Metrics.Feasible || !strings.Contains(log.String(), "refine-J: skipped") {
		t.Errorf("feasible %v, log:\n%s", res.Metrics.Feasible, log.String())
	}
	// Below bothMaxEdges default maps with HM and IM, and IM coarsens
	// nothing on a wide machine: its multisection (one top try) is HM's
	// mapping where HM's first top try won, and IM starts from HM's
	// mapping there instead of computing it again (wideShares). Default's
	// mapping is the better of -a hm's and -a im's. On this instance
	// seed 6's first top try wins (so IM starts from HM's mapping), seed
	// 1's does not (IM maps on its own; seed 2's won until the
	// partitioner got flows).
	for _, seed := range []uint64{1, 6} {
		log.Reset()
		res, err := Map(g, top, Options{Preset: Default, Eps: 0.03, Seed: seed, Threads: 1, Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		var alone [2]*Result
		for i, alg := range []Algorithm{Multisection, Integrated} {
			if alone[i], err = Map(g, top, Options{Preset: Default, Algorithm: alg, Eps: 0.03, Seed: seed, Threads: 1}); err != nil {
				t.Fatal(err)
			}
		}
		want := alone[0]
		if alone[1].Metrics.J < want.Metrics.J {
			want = alone[1]
		}
		shared := strings.Contains(log.String(), "im refines hm's multisection")
		if !slices.Equal(res.PE, want.PE) || shared != (seed == 6) {
			t.Errorf("seed %d: default J %d, -a hm %d, -a im %d; IM from HM's mapping %v, log:\n%s",
				seed, res.Metrics.J, alone[0].Metrics.J, alone[1].Metrics.J, shared, log.String())
		}
	}
	log.Reset()
	cpu, err := Map(g, top, Options{Preset: Fast, Eps: 0.03, Seed: 1, Backend: CPU, Algorithm: Integrated, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !cpu.Metrics.Feasible {
		t.Fatalf("IM on the CPU: infeasible")
	}
	if l := regexp.MustCompile(`integrated on [^\n]*: ([0-9]+) levels`).FindStringSubmatch(log.String()); l == nil || l[1] == "0" {
		t.Errorf("IM did not coarsen the graph:\n%s", log.String())
	}
	if testing.Short() {
		return
	}
	needEmulator(t)
	log.Reset()
	gpu, err := Map(g, top, Options{Preset: Fast, Eps: 0.03, Seed: 1, Backend: GPU, Algorithm: Integrated, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gpu.PE, cpu.PE) {
		t.Errorf("the GPU's mapping differs from the CPU's")
	}
	f := regexp.MustCompile(`est_h100_ms=([0-9.]+) est_total_ms=([0-9.]+)`).FindStringSubmatch(log.String())
	if f == nil {
		t.Fatalf("no gpu: line in\n%s", log.String())
	}
	dev, _ := strconv.ParseFloat(f[1], 64)
	total, _ := strconv.ParseFloat(f[2], 64)
	if !(total > dev) || !strings.Contains(log.String(), "host initial") ||
		!strings.Contains(log.String(), "refine-J: skipped after IM") {
		t.Errorf("est_total_ms %v not above the device's %v, or no host initial mapping:\n%s", total, dev, log.String())
	}
}

// Default on a wide machine above ParallelFMMin (the top tries paused and
// finished, HM's mapping shared with IM or not): the same mapping at -t 1
// and -t 2 (review of issue 26's wide round: TestWideMapping runs one
// thread below ParallelFMMin only).
func TestWideDefaultThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("70k vertices onto a wide machine twice")
	}
	top, _ := topology.Parse("4:8:16:8:6", "1:10:100:1000:10000")
	g := graph.RandomGeometric(70000, 3)
	var pes [][]int32
	for _, th := range []int{2, 1} {
		res, err := Map(g, top, Options{Preset: Default, Eps: 0.03, Seed: 0, Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		pes = append(pes, res.PE)
	}
	if !slices.Equal(pes[0], pes[1]) {
		t.Error("default on a wide machine: -t 2 maps otherwise than -t 1")
	}
}

// A level of arity 1 splits nothing: the mapping onto a machine with one
// (at the top, in the middle, on a tree) is the one onto the machine
// without it, at the same J (no two PEs differ only there, so its distance
// never counts). Before, a trailing one changed wide mappings (grid
// 46x46x47 onto 4:8:64:8:6:1: J +3.6%): the wide paths tell the top's
// children by their level.
func TestTrailingUnitLevel(t *testing.T) {
	type machine struct{ h, d string }
	wide := graph.RandomGeometric(6144, 17)
	small := graph.Grid(24, 24)
	nodes := func(sockets [][]int) *topology.Topology {
		top, err := topology.NewNodes(sockets, []int64{1, 10, 100})
		if err != nil {
			t.Fatal(err)
		}
		return top
	}
	type instance struct {
		name   string
		g      *graph.Graph
		want   machine
		same   []machine
		opt    Options
		gpuToo bool
	}
	cases := []instance{
		{"wide", wide, machine{"4:8:16:8", "1:10:100:1000"},
			[]machine{{"4:8:16:8:1", "1:10:100:1000:100000"}, {"4:1:8:16:8", "1:5:10:100:1000"}, {"1:4:8:16:1:8:1", "7:1:10:100:7:1000:7"}},
			Options{Preset: Default, Eps: 0.03, Seed: 1, Threads: 1}, false},
		{"wide-fast-im", wide, machine{"4:8:16:8", "1:10:100:1000"},
			[]machine{{"4:8:16:8:1", "1:10:100:1000:100000"}, {"4:8:1:16:8", "1:10:50:100:1000"}},
			Options{Preset: Fast, Algorithm: Integrated, Backend: CPU, Eps: 0.03, Seed: 1}, true},
	}
	// Not wide: every preset and algorithm (strong's portfolio alone).
	for _, pr := range []Preset{Fast, Default, Strong} {
		for _, alg := range []Algorithm{AutoAlgorithm, Integrated, Multisection} {
			if pr == Strong && alg != AutoAlgorithm {
				continue
			}
			cases = append(cases, instance{fmt.Sprintf("small %s %s", pr, alg), small, machine{"4:8", "1:10"},
				[]machine{{"4:1:8", "1:3:10"}, {"4:8:1", "1:10:100"}},
				Options{Preset: pr, Algorithm: alg, Eps: 0.03, Seed: 2, Threads: 1}, false})
		}
	}
	for _, c := range cases {
		want, _ := topology.Parse(c.want.h, c.want.d)
		ref, err := Map(c.g, want, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.same {
			top, _ := topology.Parse(m.h, m.d)
			res, err := Map(c.g, top, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.PE, ref.PE) || res.Metrics.J != ref.Metrics.J {
				t.Errorf("%s onto %s / %s: J %d, onto %s / %s: J %d, mappings equal %v",
					c.name, m.h, m.d, res.Metrics.J, c.want.h, c.want.d, ref.Metrics.J, slices.Equal(res.PE, ref.PE))
			}
		}
	}
	// A tree whose nodes hold one socket each is the machine of sockets.
	tree := nodes([][]int{{8}, {8}, {8}, {8}})
	flat, _ := topology.Parse("8:4", "1:100")
	opt := Options{Preset: Default, Eps: 0.03, Seed: 3, Threads: 1}
	a, errA := Map(small, tree, opt)
	b, errB := Map(small, flat, opt)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !slices.Equal(a.PE, b.PE) || a.Metrics.J != b.Metrics.J {
		t.Errorf("nodes of one socket: J %d, the sockets alone: J %d", a.Metrics.J, b.Metrics.J)
	}
	if testing.Short() {
		return
	}
	needEmulator(t)
	for _, c := range cases {
		if !c.gpuToo {
			continue
		}
		want, _ := topology.Parse(c.want.h, c.want.d)
		o := c.opt
		o.Backend = GPU
		ref, err := Map(c.g, want, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.same {
			top, _ := topology.Parse(m.h, m.d)
			res, err := Map(c.g, top, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.PE, ref.PE) {
				t.Errorf("GPU, %s onto %s: J %d, onto %s: J %d", c.name, m.h, res.Metrics.J, c.want.h, ref.Metrics.J)
			}
		}
	}
}

// Integrated mapping with the fast preset on a wide machine of five
// levels (rgg 12,000 onto 4:8:16:8:2, 8,192 PEs): the coarse levels
// refine on groups of 4,096 PEs, then of 512, split on a coarse level by
// the partitioner a group at a time (WideConfig.Split). The mapping is
// feasible, the same at 1 and 2 threads and on the emulated GPU, and its
// J lower than with greedy growing there (FillGroups, the split before);
// the Jet loop on the whole machine, left out (SkipPEJet), would not have
// changed it.
func TestWideCoarseSplit(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8:2", "1:10:100:1000:10000")
	g := graph.RandomGeometric(12000, 5)
	fastIM := func(b Backend, threads int) *Result {
		t.Helper()
		res, err := Map(g, top, Options{Preset: Fast, Algorithm: Integrated, Backend: b, Eps: 0.03, Seed: 3, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Metrics.Feasible {
			t.Fatalf("%v, %d threads: infeasible", b, threads)
		}
		return res
	}
	one := fastIM(CPU, 1)
	if two := fastIM(CPU, 2); !slices.Equal(two.PE, one.PE) {
		t.Errorf("the mapping at 2 threads differs from the one at 1")
	}
	split := presets[Fast].wide.Split
	presets[Fast].wide.Split = partition.Config{}
	grown := fastIM(CPU, 1)
	presets[Fast].wide.Split = split
	// The whole machine's Jet loop, left out where the split into PEs
	// keeps them within lmax (SkipPEJet), moves nothing here either.
	presets[Fast].wide.SkipPEJet = false
	jet := fastIM(CPU, 1)
	presets[Fast].wide.SkipPEJet = true
	if !slices.Equal(jet.PE, one.PE) {
		t.Errorf("the Jet loop on the whole machine changed the mapping: J %d, without it %d", jet.Metrics.J, one.Metrics.J)
	}
	t.Logf("J %d, greedy growing %d", one.Metrics.J, grown.Metrics.J)
	if one.Metrics.J >= grown.Metrics.J {
		t.Errorf("J %d with the partitioner's splits, %d with greedy growing: want less", one.Metrics.J, grown.Metrics.J)
	}
	if testing.Short() {
		return
	}
	needEmulator(t)
	if gpu := fastIM(GPU, 2); !slices.Equal(gpu.PE, one.PE) {
		t.Errorf("the GPU's mapping differs from the CPU's")
	}
}
