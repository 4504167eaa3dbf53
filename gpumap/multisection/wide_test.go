package multisection

import (
	"slices"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/topology"
)

func TestWideAppliesByHand(t *testing.T) {
	w := WideConfig{PerPE: 4, MinK: 4096}
	for _, c := range []struct {
		n, k int
		want bool
	}{
		{16383, 4096, true},   // 3.99 per PE
		{16384, 4096, false},  // 4 per PE
		{1000, 4095, false},   // too few PEs
		{121192, 98304, true}, // the instance
	} {
		if got := w.Applies(c.n, c.k); got != c.want {
			t.Errorf("n=%d k=%d: wide %v, want %v", c.n, c.k, got, c.want)
		}
	}
	if (WideConfig{}).Applies(10, 1<<20) {
		t.Errorf("the zero WideConfig applies")
	}
}

// A wide mapping (k = 4096, 1.5 vertices per PE) with its extra tries
// below the top and its cheap low splits: feasible, and the same for any
// number of workers (the second-level splits run their tries side by
// side on small graphs).
func TestWideSameMappingForAnyWorkerCount(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 11)
	if underRace {
		g = graph.RandomGeometric(4500, 11)
	}
	cfg := Config{Eps: 0.03, Seed: 3, TopTries: 2,
		Wide: WideConfig{PerPE: 4, MinK: 4096, SecondTries: 3,
			FinePerChild: 16, Fine: partition.Config{Tries: 1, LPRounds: 4, FMRounds: -1},
			MidPerChild: 64, Mid: partition.Config{Tries: 2, LPRounds: 2, FMRounds: 1}}}
	var ref []int32
	for _, threads := range []int{1, 2, 3} {
		pe := Map(par.New(threads), g, top, cfg)
		check(t, g, top, 0.03, pe)
		if ref == nil {
			ref = pe
		} else if !slices.Equal(pe, ref) {
			t.Fatalf("threads=%d: another mapping than threads=1", threads)
		}
	}
}
