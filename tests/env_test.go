package tests

// The one rule for GPUMAP_* switches and levels (cabi/dl/gpumap_env.h),
// as the interposer, libgpumap.so and the recorder apply it in MPI runs.

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvironmentRule: a value the rule does not know is a warning on rank
// 0 (once per process) and the variable's default applies; the words of
// the rule mean the same to every library. Before the rule, GPUMAP_TOPO
// took "maybe" as on and GPUMAP_DISABLE refused it without a warning
// about the other, and the recorder took GPUMAP_VERBOSE=off as on.
func TestEnvironmentRule(t *testing.T) {
	need(t, "build/tests/topo_cart", "build/mpich/tests/topo_cart", "build/lib/libgpumap_topo.so", "build/mpich/lib/libgpumap_topo.so",
		"build/tests/stencil_world", "build/mpich/tests/stencil_world", "build/lib/libgpumap_record.so", "build/mpich/lib/libgpumap_record.so")
	for i, ts := range topoStacks {
		// Three unknown values in one run: each warned about once, each
		// default in force (the interposer maps, gpumap does not disable,
		// and nothing verbose is printed).
		env := map[string]string{"GPUMAP_HIERARCHY": "2:3", "GPUMAP_VERBOSE": "loud", "GPUMAP_TOPO": "maybe", "GPUMAP_DISABLE": " Perhaps"}
		out := topoRun(t, ts, 6, env, true, "topo_cart")
		for _, w := range []string{
			`gpumap topo: warning: GPUMAP_TOPO="maybe" is not a switch (1, true, yes, on; 0, false, no, off): its default, on, applies`,
			`gpumap: warning: GPUMAP_DISABLE=" Perhaps" is not a switch (1, true, yes, on; 0, false, no, off): its default, off, applies`,
			`gpumap topo: warning: GPUMAP_VERBOSE="loud" is not a level (1, true, yes, on; 0, false, no, off; or a number): its default, 0, applies`,
		} {
			if n := strings.Count(out, w); n != 1 {
				t.Errorf("%s: %d times %q, want once:\n%s", ts.name, n, w, out)
			}
		}
		if o := parseTopo(out); o.moved == 0 || strings.Contains(out, "gpumap topo: MPI_Cart_create") {
			t.Errorf("%s: the defaults (map, do not disable, silent) did not apply:\n%s", ts.name, out)
		}
		// (GPUMAP_TOPO=" Off": TestTopoConformance.)

		s := stacks[i]
		for _, c := range []struct {
			verbose   string
			says, not string
		}{
			{" Off", "", "gpumap record"}, // (the words: mpirank's TestEnvRule)
			{"loud", `gpumap record: warning: GPUMAP_VERBOSE="loud" is not a level`, ""},
		} {
			bf := filepath.Join(t.TempDir(), "pattern.graph")
			out := mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf, "GPUMAP_VERBOSE=" + c.verbose},
				s.prog("stencil_world"), "2", "1", "1", "1", "10")
			if !strings.Contains(out, c.says) || c.not != "" && strings.Contains(out, c.not) || len(resultLine.FindAllString(out, -1)) != 2 {
				t.Errorf("%s recorder, GPUMAP_VERBOSE=%q: want %q and not %q:\n%s", s.name, c.verbose, c.says, c.not, out)
			}
			if c.verbose == "loud" && !strings.Contains(out, "gpumap record: wrote ") {
				t.Errorf("%s recorder, GPUMAP_VERBOSE=loud: its default (1) did not apply:\n%s", s.name, out)
			}
		}
	}
}
