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
	if got := thinLevels(levels, 1.5); !slices.Equal(got, want) {
		t.Errorf("growth 1.5: FM skipped at %v, want %v", got, want)
	}
	if got := thinLevels(levels, -1); slices.Contains(got, true) {
		t.Errorf("growth -1 (off): FM skipped at %v", got)
	}
}
