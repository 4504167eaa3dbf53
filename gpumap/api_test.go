package gpumap

import (
	"math"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

func TestEveryAlgorithmAndPresetIsFeasibleAndDeterministic(t *testing.T) {
	top, _ := topology.Parse("4:8:3", "1:10:100")
	graphs := map[string]*graph.Graph{
		"rgg":    graph.RandomGeometric(6000, 3),
		"random": graph.Random(3000, 12000, 50, 4, 9),
		"grid3d": graph.Grid(12, 12, 12),
	}
	for name, g := range graphs {
		for _, alg := range []Algorithm{Multisection, Integrated} {
			for _, p := range []Preset{Fast, Default, Strong} {
				opt := DefaultOptions()
				opt.Preset, opt.Algorithm, opt.Seed, opt.Threads = p, alg, 5, 2
				a, err := Map(g, top, opt)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, g, top, opt.Eps, a)
				if !a.Metrics.Feasible {
					t.Fatalf("%s %s %s: infeasible", name, alg, p)
				}
				b, _ := Map(g, top, opt)
				for v := range a.PE {
					if a.PE[v] != b.PE[v] {
						t.Fatalf("%s %s %s: same seed and threads, different mappings", name, alg, p)
					}
				}
			}
		}
	}
}

func TestIrregularMachine(t *testing.T) {
	// Nodes with 16, 16 and 8 slots; the last one's sockets hold 6 and 2.
	top, err := topology.NewNodes([][]int{{8, 8}, {8, 8}, {6, 2}}, []int64{1, 10, 100})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.Grid(40) // a ring-free path of 40 ranks: one per slot
	res, err := Map(g, top, Options{Preset: Default, Eps: 0})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, g, top, 0, res)
	// The best placement walks the path through the slots in order: it
	// crosses the 2 node boundaries (100 each) and the 3 socket boundaries
	// inside nodes (10 each); the other 34 edges stay in a socket (1 each):
	// J = 2*100 + 3*10 + 34*1 = 264.
	if res.Metrics.J != 264 {
		t.Errorf("path on the irregular machine: J %d, want 264", res.Metrics.J)
	}
}

func TestInvalidArguments(t *testing.T) {
	top, _ := topology.Parse("2:2", "1:10")
	g := graph.Grid(4, 4)
	cases := []struct {
		g    *graph.Graph
		top  *topology.Topology
		opt  Options
		want string
	}{
		{nil, top, DefaultOptions(), "no vertices"},
		{g, nil, DefaultOptions(), "no topology"},
		{g, top, Options{Eps: math.NaN()}, "finite number"},
		{g, top, Options{Eps: -0.1}, "finite number"},
		{g, top, Options{Eps: math.Inf(1)}, "finite number"},
		{g, top, Options{Preset: 7}, "unknown preset"},
		{g, top, Options{Algorithm: 9}, "unknown algorithm"},
		{g, top, Options{Backend: 9}, "unknown backend"},
		{g, top, Options{Threads: -2}, "negative"},
	}
	for _, c := range cases {
		_, err := Map(c.g, c.top, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want error containing %q", err, c.want)
		}
	}
}

func TestParseNames(t *testing.T) {
	for _, s := range []string{"fast", "Default", "STRONG"} {
		if _, err := ParsePreset(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParsePreset("eco"); err == nil {
		t.Error("eco accepted")
	}
	if a, _ := ParseAlgorithm("im"); a != Integrated {
		t.Error("im")
	}
	if b, _ := ParseBackend("gpu"); b != GPU {
		t.Error("gpu")
	}
}

func TestEnumNames(t *testing.T) {
	for _, name := range presetNames {
		if p, err := ParsePreset(strings.ToUpper(name)); err != nil || p.String() != name {
			t.Errorf("preset %q: %v, %v", name, p, err)
		}
	}
	for _, name := range algorithmNames {
		if a, err := ParseAlgorithm(name); err != nil || a.String() != name {
			t.Errorf("algorithm %q: %v, %v", name, a, err)
		}
	}
	for _, name := range backendNames {
		if b, err := ParseBackend(name); err != nil || b.String() != name {
			t.Errorf("backend %q: %v, %v", name, b, err)
		}
	}
	if _, err := ParseBackend("tpu"); err == nil || err.Error() != `unknown backend "tpu" (want auto, cpu or gpu)` {
		t.Errorf("ParseBackend(tpu) = %v", err)
	}
	if s := Preset(7).String(); s != "Preset(7)" {
		t.Errorf("Preset(7).String() = %q", s)
	}
}
