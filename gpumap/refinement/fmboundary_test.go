package refinement

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// The sequential FM's boundary after a round, taken from the last round's
// boundary and its kept moves, is the list a scan of every vertex gives
// (the searches' order, and so the mapping, depends on it).
func TestFMBoundaryAfterEqualsScan(t *testing.T) {
	for name, g := range map[string]*graph.Graph{
		"rgg 2": graph.RandomGeometric(30000, 5),
		"rgg":   graph.RandomGeometric(20000, 4),
	} {
		const k = 8
		part, maxW := stripes(g, k)
		s := NewState(g, k, part, maxW, Cut())
		f := NewFM(s, FMConfig{Rounds: 1, Alpha: 30, Seed: 3})
		tested := 0
		for r := 0; r < 6; r++ {
			if f.Run(s.Cost()) == 0 || len(f.kept) == 0 {
				t.Fatalf("%s: round %d kept no move: nothing to test", name, r)
			}
			// The next round's view: Run's first round scans, later ones
			// take boundaryAfter.
			f.firstRound = f.round
			f.round++
			got := f.boundaryAfter(g, func(v int32) bool { return !f.ct.Frozen(v) && s.IsBoundary(v) })
			f.round--
			var want []int32
			for v := int32(0); v < int32(g.N()); v++ {
				if !f.ct.Frozen(v) && s.IsBoundary(v) {
					want = append(want, v)
				}
			}
			if got == nil { // too many candidates: the scan itself
				continue
			}
			tested++
			if !slices.Equal(got, want) {
				t.Fatalf("%s: round %d: boundary after the round has %d vertices, the scan %d", name, r, len(got), len(want))
			}
		}
		if tested == 0 {
			t.Fatalf("%s: every round had too many candidates: nothing tested", name)
		}
	}
}
