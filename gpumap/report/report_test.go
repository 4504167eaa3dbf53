package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

func TestAggregateAndCostsByHand(t *testing.T) {
	// Path 0-1-2-3 with volumes 1, 2, 3 on 2 nodes of 2 PEs (1:10).
	tr := Traffic{N: 4, U: []int32{0, 1, 2}, V: []int32{1, 2, 3}, W: []float64{1, 2, 3}}
	top, _ := topology.Parse("2:2", "1:10")
	pe := []int32{0, 1, 2, 3}
	c, err := Evaluate(tr, top, pe)
	if err != nil || c.J != 1+20+3 || c.CutPerLevel[0] != 6 || c.CutPerLevel[1] != 2 || c.Total != 6 {
		t.Fatalf("%+v %v", c, err)
	}
	m, err := Aggregate(tr, top, pe, 1)
	if err != nil || m.N() != 2 || m.At(0, 0) != 1 || m.At(1, 1) != 3 || m.At(0, 1) != 2 || m.At(1, 0) != 2 {
		t.Fatalf("%+v %v", m, err)
	}
	// Swapping tasks 1 and 2 splits the heavy edge across the nodes.
	m, _ = Aggregate(tr, top, []int32{0, 2, 1, 3}, 1)
	if m.At(0, 0) != 0 || m.At(1, 1) != 0 || m.At(0, 1) != 6 {
		t.Fatalf("%+v", m)
	}
	if _, err := Aggregate(tr, top, []int32{0, 1, 2, 4}, 1); err == nil || !strings.Contains(err.Error(), "PE 4") {
		t.Fatalf("PE out of range: %v", err)
	}
	if _, err := Aggregate(tr, top, pe, 2); err == nil {
		t.Fatal("the whole machine is not a level one can draw")
	}
}

func TestLevels(t *testing.T) {
	for _, c := range []struct {
		h, want string
		def     int
	}{
		{"8", "PE machine", 0},
		{"8:4", "PE node machine", 1},
		{"4:8:6", "PE socket node machine", 2},
		{"4:2:8:2", "PE socket node switch machine", 2},
		{"2:2:2:2:2", "PE socket node switch level_4 machine", 2},
	} {
		top, err := topology.Parse(c.h, strings.Repeat("1:", strings.Count(c.h, ":"))+"1")
		if err != nil {
			t.Fatal(err)
		}
		names := LevelNames(top)
		got := strings.ReplaceAll(strings.Join(names, ","), " ", "_")
		if got != strings.ReplaceAll(c.want, " ", ",") || DefaultLevel(names) != c.def {
			t.Errorf("%s: %s (default %d), want %s (%d)", c.h, got, DefaultLevel(names), c.want, c.def)
		}
	}
	top, _ := topology.Parse("4:8:6", "1:10:100")
	names := LevelNames(top)
	for s, want := range map[string]int{"pe": 0, "Socket": 1, "node": 2, "0": 0, "2": 2} {
		if l, err := ParseLevel(s, names); err != nil || l != want {
			t.Errorf("%q: %d %v", s, l, err)
		}
	}
	for _, s := range []string{"machine", "3", "-1", "rack"} {
		if _, err := ParseLevel(s, names); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// The cells of every panel add up to the per-level cut graph.Evaluate
// computes, at every level, and the panel's J is Evaluate's J.
func TestSVGCellsEqualEvaluate(t *testing.T) {
	g := graph.Random(200, 900, 50, 1, 7)
	top, _ := topology.Parse("4:2:4", "1:10:100")
	rng := rand.New(rand.NewPCG(1, 2))
	before, after := make([]int32, g.N()), make([]int32, g.N())
	for v := range before {
		before[v], after[v] = int32(rng.IntN(top.K())), int32(v*top.K()/g.N())
	}
	for level := 0; level < top.Levels(); level++ {
		p := &Picture{Title: "random <graph> & \"quotes\"", Traffic: FromGraph(g), Top: top, Level: level,
			Panels: []Panel{{"before", before}, {"after", after}}}
		var buf bytes.Buffer
		if err := p.WriteSVG(&buf); err != nil {
			t.Fatal(err)
		}
		drawn, err := Parse(&buf)
		if err != nil || len(drawn) != 2 {
			t.Fatalf("level %d: %d panels, %v", level, len(drawn), err)
		}
		for i, pe := range [][]int32{before, after} {
			m, err := graph.Evaluate(g, top, pe, 1)
			if err != nil {
				t.Fatal(err)
			}
			d := drawn[i]
			if d.Cut() != float64(m.CutPerLevel[level]) || d.J != float64(m.J) || d.Level != level {
				t.Errorf("level %d %s: cells add up to %g, J %g; Evaluate: cut %d, J %d", level, d.Title, d.Cut(), d.J, m.CutPerLevel[level], m.J)
			}
			for l, c := range m.CutPerLevel {
				if d.CutPerLevel[l] != float64(c) {
					t.Errorf("level %d %s: caption cut %v, Evaluate %v", level, d.Title, d.CutPerLevel, m.CutPerLevel)
				}
			}
			n := len(Groups(top, level))
			if len(d.Cells) != n*n { // small matrices draw every cell
				t.Errorf("level %d: %d cells for %d groups", level, len(d.Cells), n)
			}
		}
	}
}

func TestTooManyGroups(t *testing.T) {
	top, _ := topology.Parse("300", "1")
	pe := make([]int32, 300)
	for i := range pe {
		pe[i] = int32(i)
	}
	p := &Picture{Traffic: Traffic{N: 300}, Top: top, Panels: []Panel{{"x", pe}}}
	if err := p.WriteSVG(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "coarser level") {
		t.Fatalf("300 PEs drawn: %v", err)
	}
}

func TestAmounts(t *testing.T) {
	p := &Picture{Bytes: true}
	for v, want := range map[float64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 3 << 20: "3 MiB", 1.5 * (1 << 30): "1.5 GiB"} {
		if got := p.amount(v); got != want {
			t.Errorf("%g: %q, want %q", v, got, want)
		}
	}
	p.Bytes = false
	if got := p.amount(12345); got != "12345" {
		t.Errorf("%q", got)
	}
}
