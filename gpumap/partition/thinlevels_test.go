package partition

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
)

// thinLevels by hand: levels of 900, 800, 700, 600, 500, 250 and 100
// vertices (finest first) under an input of 1000 vertices. FM refines the coarsest
// (100), then on the way up 250 (>= 1.5 x 100), 500 (>= 375), not 600
// or 700 (< 750), 800, not 900 (< 1200), and the input always.
func TestThinLevelsByHand(t *testing.T) {
	empty := func(n int) *graph.Graph {
		g, err := graph.NewBuilder(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var levels []coarsening.Level
	for _, n := range []int{900, 800, 700, 600, 500, 250, 100} {
		levels = append(levels, coarsening.Level{Graph: empty(n)})
	}
	// skip[at]: projecting level at (onto level at-1, or the input) runs no FM.
	want := []bool{false, true, false, true, true, false, false}
	if got := thinLevels(levels, 1000, 1.5, 0); !slices.Equal(got, want) {
		t.Errorf("growth 1.5: FM skipped at %v, want %v", got, want)
	}
	if got := thinLevels(levels, 1000, -1, 0); slices.Contains(got, true) {
		t.Errorf("growth -1 (off): FM skipped at %v", got)
	}
}

// The stall gate by hand. Levels of 500, 250, 125, 120 and 115 vertices
// under 1000 (a mesh that halves and stalls near the stop): mean shrink
// (115/1000)^(1/5) = 0.649, below 0.8, so FM refines every level, though
// growth 1.5 alone would skip the projections of 120 and 115. Levels of
// 900, 810, 729, 656 and 590 (an LP model shrinking 10% a level): mean
// (590/1000)^(1/5) = 0.89985, so a gate up to that thins them as without
// one: FM refines 590, then 900 (>= 885), and the input; a gate of 0.91
// keeps FM on every level.
func TestThinLevelsOnlyWhereCoarseningStalled(t *testing.T) {
	empty := func(n int) *graph.Graph {
		g, err := graph.NewBuilder(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	hier := func(ns ...int) []coarsening.Level {
		var levels []coarsening.Level
		for _, n := range ns {
			levels = append(levels, coarsening.Level{Graph: empty(n)})
		}
		return levels
	}
	mesh := hier(500, 250, 125, 120, 115)
	if got, want := thinLevels(mesh, 1000, 1.5, 0), []bool{false, false, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("mesh, no gate: FM skipped at %v, want %v", got, want)
	}
	if got := thinLevels(mesh, 1000, 1.5, 0.8); slices.Contains(got, true) {
		t.Errorf("mesh, gate 0.8: FM skipped at %v, want none", got)
	}
	lp := hier(900, 810, 729, 656, 590)
	want := []bool{false, false, true, true, true}
	for _, stall := range []float64{0, 0.8, 0.8998} {
		if got := thinLevels(lp, 1000, 1.5, stall); !slices.Equal(got, want) {
			t.Errorf("LP model, gate %g: FM skipped at %v, want %v", stall, got, want)
		}
	}
	if got := thinLevels(lp, 1000, 1.5, 0.91); slices.Contains(got, true) {
		t.Errorf("LP model, gate 0.91: FM skipped at %v, want none", got)
	}
}
