package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTopoCache: the mapping cache serves a repeated identical call and
// only that. tests/testdata/topo_cache.c repeats an MPI_Cart_create, then
// changes a volume (GPUMAP_CART_WEIGHTS), the hierarchy (GPUMAP_HIERARCHY)
// and rank 0's binding (the allocation), each set in the process between
// calls; rank 0's GPUMAP_VERBOSE lines, one per call and in call order,
// say which calls were served from the cache. Both stacks, 4 ranks.
func TestTopoCache(t *testing.T) {
	for _, s := range topoStacks {
		need(t, filepath.Join(s.bin, "topo_cache"), filepath.Join(s.lib, "libgpumap_topo.so"))
	}
	steps := []struct {
		name   string
		cached bool
	}{{"first", false}, {"again", true}, {"volume", false}, {"volume2", true},
		{"hierarchy", false}, {"back", true}, {"moved", false}}
	for _, s := range topoStacks {
		out := topoRun(t, s, 4, map[string]string{"GPUMAP_VERBOSE": "1"}, true, "topo_cache")
		o := parseTopo(out)
		if !o.done || len(o.fails) > 0 {
			t.Fatalf("%s: the program failed:\n%s", s.name, out)
		}
		want := steps
		if !strings.Contains(out, "AFFINITY yes") {
			t.Logf("%s: rank 0 could not change its binding; the allocation step is left out", s.name)
			want = want[:len(want)-1]
		}
		if len(o.verbose) != len(steps) {
			t.Fatalf("%s: %d verbose lines for %d calls:\n%s", s.name, len(o.verbose), len(steps), out)
		}
		for i, st := range want {
			if got := strings.Contains(o.verbose[i], "mapping cached"); got != st.cached {
				t.Errorf("%s: call %q: cached %v, want %v: %s", s.name, st.name, got, st.cached, o.verbose[i])
			}
		}
	}
}
