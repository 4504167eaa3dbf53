package gpumap

import (
	"math"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// D7, D9 (issue 8): sums that would overflow are input errors that name
// what overflowed, for graphs built without validation too.
func TestMapRejectsOverflow(t *testing.T) {
	top, _ := topology.Parse("2:2", "1:1099511627776")
	huge := &graph.Graph{XAdj: []int64{0, 0, 0, 0, 0}, VW: []int64{math.MaxInt64, math.MaxInt64, 1, 1}}
	if _, err := Map(huge, top, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "vertex weights sum to more than") {
		t.Errorf("INT64_MAX vertex weights: %v", err)
	}
	g, _ := graph.FromCSR([]int64{0, 1, 2}, []int32{1, 0}, nil, []int64{1 << 30, 1 << 30})
	_, err := Map(g, top, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "the largest distance is 1099511627776") || strings.Contains(err.Error(), "internal") {
		t.Errorf("J bound: %v", err)
	}
	small, _ := topology.Parse("2:2", "1:10")
	if res, err := Map(g, small, DefaultOptions()); err != nil || res.Metrics.J != 1<<30 {
		t.Errorf("the same graph on small distances: %v", err)
	}
}

// D8 (issue 8): tiny graphs on huge machines are solved exactly, in time
// and memory that do not depend on the number of PEs.
func TestTinyOnHugeMachines(t *testing.T) {
	// The path a-b-c-d with weights 5, 1, 5.
	g, _ := graph.FromCSR([]int64{0, 1, 3, 5, 6}, []int32{1, 0, 2, 1, 3, 2}, nil, []int64{5, 5, 1, 1, 5, 5})
	cases := []struct {
		h, d string
		eps  float64
		want int64
	}{
		{"10000", "1", 0.03, 11},
		{"2147483647", "3", 0.03, 33},
		{"10000", "3", 1e6, 0},
		{"2:1073741823", "1:10", 0.03, 20},
	}
	for _, c := range cases {
		top, _ := topology.Parse(c.h, c.d)
		for _, p := range []Preset{Fast, Default, Strong} {
			opt := DefaultOptions()
			opt.Eps, opt.Preset = c.eps, p
			res, err := Map(g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Metrics.J != c.want || !res.Metrics.Feasible {
				t.Errorf("%s / %s eps %g %s: J %d (feasible %v), want %d", c.h, c.d, c.eps, p, res.Metrics.J, res.Metrics.Feasible, c.want)
			}
		}
	}
}

// Graphs larger than the exact solver's on machines with many more PEs
// than vertices map onto a prefix of the machine: valid, feasible, and
// never spread over the top level when one group holds everything; the
// metrics are the whole machine's, also where several pipelines competed
// (default's two algorithms, strong's portfolio).
func TestSparseMachine(t *testing.T) {
	g := graph.Grid(10, 10)
	for _, c := range []struct{ h, d string }{{"2147483647", "1"}, {"4:8:67108863", "1:10:100"}, {"8:8:8:8", "1:10:100:1000"}} {
		top, err := topology.Parse(c.h, c.d)
		if err != nil {
			t.Fatal(err)
		}
		for _, preset := range []Preset{Default, Strong} {
			opt := DefaultOptions()
			opt.Preset = preset
			res, err := Map(g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Metrics.CutPerLevel) != len(top.Distances()) {
				t.Fatalf("%s %s: cut of %d levels reported", c.h, preset, len(res.Metrics.CutPerLevel))
			}
			if !res.Metrics.Feasible || res.Metrics.Lmax != 1 {
				t.Fatalf("%s: %+v", c.h, res.Metrics)
			}
			if c.h == "8:8:8:8" && res.Metrics.CutPerLevel[3] != 0 {
				t.Errorf("%s: %d edge weight cut at the top level", c.h, res.Metrics.CutPerLevel[3])
			}
			if j := independentJ(g, top, res.PE); j != res.Metrics.J {
				t.Fatalf("%s: reported J %d, recomputed %d", c.h, res.Metrics.J, j)
			}
		}
	}
	top, _ := topology.Parse("4:8:67108863", "1:10:100")
	r, eps, ok := sparseMachine(top, 100, 100, 0.03)
	if !ok || r.String() != "4:8:4 / 1:10:100" || graph.Lmax(100, r.K(), eps) != 1 {
		t.Fatalf("prefix of 4:8:67108863 for 100 vertices: %v %g %v", r, eps, ok)
	}
	weighted := graph.Lmax(1000, top.K(), 0.03)
	if r, eps, ok := sparseMachine(top, 100, 1000, 0.03); !ok || graph.Lmax(1000, r.K(), eps) != weighted {
		t.Fatalf("weighted: %v %g %v", r, eps, ok)
	}
	if _, _, ok := sparseMachine(top, 1<<30, 1<<30, 0.03); ok {
		t.Fatal("a machine with fewer than 4 PEs per vertex is not sparse")
	}
}

// The Must-show bound of issue 8: a 4-vertex graph on -h 10000 answers in
// well under 0.1 s (and on -h 2147483647 too).
func BenchmarkTinyWideFlat(b *testing.B) {
	g, _ := graph.FromCSR([]int64{0, 1, 3, 5, 6}, []int32{1, 0, 2, 1, 3, 2}, nil, nil)
	for _, h := range []string{"10000", "2147483647"} {
		top, _ := topology.Parse(h, "1")
		b.Run("h="+h, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Map(g, top, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
