package main

import (
	"strings"
	"testing"
)

// TestDgpartSummary checks dgpart's summary rows on runs worked out by
// hand: the median is the lower median's run, the lowest run counts
// whether feasible or not, and the ratios are gpumap-mpi's J over the
// median, the lowest and the lowest feasible J.
func TestDgpartSummary(t *testing.T) {
	runs := []scaleRun{
		{j: 300, feasible: true},
		{j: 100, feasible: false}, // the lowest, over Lmax
		{j: 400, feasible: true},
		{j: 200, feasible: true},
	}
	got := dgpartSummary("g", 2, runs, len(runs), 100, 160)
	for _, want := range []string{
		"dgpart P=2 med          200  2.000  3/4",
		"dgpart P=2 min          100  1.000  !no",
		"# g P=2: mpi J / dgpart's median 0.800, / its lowest 1.600, / its lowest feasible 0.800 (4 of 4 runs finished)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	none := dgpartSummary("g", 1, []scaleRun{{j: 50}}, 1, 100, 40)
	if !strings.Contains(none, "dgpart P=1 med           50  0.500  0/1") || !strings.Contains(none, "lowest feasible none feasible") {
		t.Errorf("one infeasible run:\n%s", none)
	}
	// A run that failed or passed the limit counts as not feasible.
	if got := dgpartSummary("g", 2, runs[:3], 4, 100, 160); !strings.Contains(got, "(3 of 4 runs finished)") {
		t.Errorf("a run that did not finish: %q", got)
	}
	if strings.Contains(dgpartSummary("g", 4, runs, len(runs), 100, 0), "#") {
		t.Errorf("a ratio line without gpumap-mpi's J")
	}
}
