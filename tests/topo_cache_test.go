package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestTopoCache: the mapping cache serves a repeated identical call and
// only that. tests/testdata/topo_cache.c repeats an MPI_Cart_create, then
// changes a volume (GPUMAP_CART_WEIGHTS), the hierarchy (GPUMAP_HIERARCHY)
// and rank 0's binding (the allocation), each set in the process between
// calls; rank 0's GPUMAP_VERBOSE lines, one per call and in call order,
// say which calls were served from the cache. A rejection on one rank,
// on a communicator mapped before (gpumap's agreement carries it, not the
// interposer's), passes the call to MPI on every rank. Both stacks, 4
// ranks.
func TestTopoCache(t *testing.T) {
	for _, s := range topoStacks {
		need(t, filepath.Join(s.bin, "topo_cache"), filepath.Join(s.lib, "libgpumap_topo.so"))
	}
	steps := []struct {
		name   string
		cached bool
	}{{"first", false}, {"again", true}, {"volume", false}, {"volume2", true},
		{"hierarchy", false}, {"back", true}, {"moved", false}, {"rejected", false}, {"after", true}}
	for _, s := range topoStacks {
		out := topoRun(t, s, 4, map[string]string{"GPUMAP_VERBOSE": "1"}, true, "topo_cache")
		o := parseTopo(out)
		if !o.done || len(o.fails) > 0 {
			t.Fatalf("%s: the program failed:\n%s", s.name, out)
		}
		moved := strings.Contains(out, "AFFINITY yes")
		if !moved {
			t.Logf("%s: rank 0 could not change its binding; the allocation step is left out", s.name)
		}
		if len(o.verbose) != len(steps)+40 || !strings.Contains(out, "HANDLES ") {
			t.Fatalf("%s: %d verbose lines for %d calls:\n%s", s.name, len(o.verbose), len(steps)+40, out)
		}
		for i, st := range steps {
			if got := strings.Contains(o.verbose[i], "mapping cached"); got != st.cached && (st.name != "moved" || moved) {
				t.Errorf("%s: call %q: cached %v, want %v: %s", s.name, st.name, got, st.cached, o.verbose[i])
			}
		}
		if l, w := o.verbose[7], "passed to PMPI unchanged: rank 1: GPUMAP_CART_WEIGHTS=1:2:3 has 3 volumes for 2 dimensions"; !strings.Contains(l, w) {
			t.Errorf("%s: call \"rejected\": %s, want %q", s.name, l, w)
		}
		// 20 freed sub-communicators with two calls each, the pattern
		// and place of "moved": the mapping depends on no communicator,
		// every call hits; nothing leaks.
		for i, l := range o.verbose[len(steps):] {
			if !strings.Contains(l, "mapping cached") {
				t.Errorf("%s: sub-communicator call %d: %s", s.name, i, l)
			}
		}
		var before, after int
		if _, err := fmt.Sscanf(out[strings.Index(out, "HANDLES "):], "HANDLES %d %d", &before, &after); err != nil || after > before {
			t.Errorf("%s: the highest of 25 new communicator handles went from %d to %d over 20 freed sub-communicators (%v)", s.name, before, after, err)
		}
	}
}
