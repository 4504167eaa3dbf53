package mpirank

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/mpirank/env"
)

// D11 (issue 8): options agree exactly, in canonical form: no hash that two
// seeds can share, and one hierarchy however it is spelled.
func TestCanonicalOptions(t *testing.T) {
	enc := func(c call, o Options) []byte {
		t.Helper()
		cn, e := canonical(c, o)
		if e != nil {
			t.Fatal(e)
		}
		return cn.encode()
	}
	four := enc(callReorder, Options{Hierarchy: "4"})
	for _, h := range []string{" 4 ", "+4", "04"} {
		if !bytes.Equal(enc(callReorder, Options{Hierarchy: h}), four) {
			t.Errorf("hierarchy %q differs from \"4\"", h)
		}
	}
	a, b := enc(callReorder, Options{Seed: 188904}), enc(callReorder, Options{Seed: 558220})
	if bytes.Equal(a, b) {
		t.Fatal("seeds 188904 and 558220 agree")
	}
	cn, _ := canonical(callReorder, Options{Seed: 558220})
	if msg := differs(3, cn, a); msg != "rank 3: seed 558220 differs from rank 0's 188904" {
		t.Errorf("seed message %q", msg)
	}
	// D4: the call is part of the agreement.
	cost, _ := canonical(callCost, Options{})
	if msg := differs(2, cost, enc(callReorder, Options{})); !strings.Contains(msg, "rank 2 calls gpumap_cost but rank 0 calls gpumap_reorder") {
		t.Errorf("call message %q", msg)
	}
	cn, _ = canonical(callReorder, Options{Hierarchy: "2:2", Distance: "1:5"})
	if msg := differs(1, cn, four); msg != "rank 1: hierarchy 2:2 (options.hierarchy) differs from rank 0's 4" {
		t.Errorf("hierarchy message %q", msg)
	}
	if len(four) != canonSize || len(enc(callReorder, Options{Hierarchy: strings.Repeat("1:", 63) + "1", Distance: strings.Repeat("9:", 63) + "9"})) != canonSize {
		t.Fatal("encodings differ in size")
	}
}

// Options that cannot act are rejected, naming the option.
func TestCanonicalRejects(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Algorithm: gpumap.Integrated}, "algorithm im (integrated) cannot map one task per process"},
		{Options{Algorithm: 7}, "unknown algorithm 7"},
		{Options{Imbalance: 0.03}, "imbalance 0.03: a reordering places exactly one task per process"},
		{Options{Preset: 9}, "unknown preset 9"},
		{Options{Hierarchy: "4:x"}, `options.hierarchy: hierarchy "4:x": field 2 ("x") is not an integer`},
		{Options{Hierarchy: strings.Repeat("1:", 500000) + "4"}, "at most 64 are supported"},
		{Options{Threads: -1}, "negative thread count"},
		{Options{Hierarchy: "2:2", Distance: "1:2:3"}, "distance 1:2:3 (options.distance) has 3 levels but hierarchy 2:2 (options.hierarchy) has 2"},
		{Options{Threads: 1 << 30}, "thread count 1073741824 exceeds 4096"},
	}
	for _, c := range cases {
		if _, e := canonical(callReorder, c.o); e == nil || e.Code != ErrOptions || !strings.Contains(e.Msg, c.want) || len(e.Msg) > 300 {
			t.Errorf("%+v: %v, want %q", c.o.Algorithm, e, c.want)
		}
	}
	if _, e := canonical(callReorder, Options{Algorithm: gpumap.Multisection}); e != nil {
		t.Errorf("hm: %v", e)
	}
}

// D3 (issue 8): the environment is read when the call is made (through C
// getenv), not when the library was loaded.
func TestEnvironmentAtCallTime(t *testing.T) {
	t.Setenv(envDisable, "1")
	t.Setenv(envHierarchy, "2:2")
	t.Setenv(envDistance, "1:7")
	cn, e := canonical(callReorder, Options{})
	if e != nil || !cn.disabled || len(cn.hierarchy) != 2 || cn.distance[1] != 7 || cn.hierarchyFrom != envHierarchy {
		t.Fatalf("%+v %v", cn, e)
	}
	cn, _ = canonical(callReorder, Options{Hierarchy: "4"})
	if len(cn.hierarchy) != 1 {
		t.Fatal("the options' hierarchy must win over the environment")
	}
	for v, want := range map[string]bool{"0": false, "": false, "off": false, "YES": true, "true": true} {
		t.Setenv(envDisable, v)
		if cn, e := canonical(callReorder, Options{}); e != nil || cn.disabled != want {
			t.Errorf("%s=%q: %v %v", envDisable, v, cn.disabled, e)
		}
	}
	t.Setenv(envDisable, "maybe")
	if cn, e := canonical(callReorder, Options{}); e != nil || cn.disabled || len(cn.warnings) != 1 ||
		cn.warnings[0] != `GPUMAP_DISABLE="maybe" is not a switch (1, true, yes, on; 0, false, no, off): its default, off, applies` {
		t.Errorf("GPUMAP_DISABLE=maybe: %+v %v: want the default (off) and a warning", cn, e)
	}
	t.Setenv(envDisable, "")
	t.Setenv(envHierarchy, "3:x")
	if _, e := canonical(callReorder, Options{}); e == nil || !strings.Contains(e.Msg, "GPUMAP_HIERARCHY: hierarchy") {
		t.Errorf("GPUMAP_HIERARCHY=3:x: %v", e)
	}
}

// TestEnvRule: the one rule for GPUMAP_* switches and levels
// (cabi/dl/gpumap_env.h), which the interposer and the recorder compile
// and this package calls. Before it, GPUMAP_TOPO took "maybe" as on,
// GPUMAP_DISABLE refused it, the recorder's GPUMAP_VERBOSE took "off" as
// on and the interposer's took "yes" as 0.
func TestEnvRule(t *testing.T) {
	const unset, unknown = -1, -2
	for _, c := range []struct {
		value        string
		swtch, level int
	}{
		{"", unset, unset}, {" \t", unset, unset},
		{"0", 0, 0}, {"1", 1, 1}, {" 1 ", 1, 1}, {"01", 1, 1}, {"2", unknown, 2}, {"12", unknown, 12},
		{"99999999999999999999", unknown, 1000000},
		{"off", 0, 0}, {"OFF", 0, 0}, {" No", 0, 0}, {"false", 0, 0}, {"FaLsE\n", 0, 0},
		{"on", 1, 1}, {"Yes", 1, 1}, {"TRUE", 1, 1}, {"\ttrue ", 1, 1},
		{"maybe", unknown, unknown}, {"onn", unknown, unknown}, {"o", unknown, unknown}, {"y", unknown, unknown},
		{"-1", unknown, unknown}, {"+1", unknown, unknown}, {"1.0", unknown, unknown}, {"1 1", unknown, unknown},
		{"yes please", unknown, unknown}, {"tru", unknown, unknown}, {"truee", unknown, unknown},
	} {
		if got := env.Parse(c.value, 1); got != c.swtch {
			t.Errorf("switch %q: %d, want %d", c.value, got, c.swtch)
		}
		if got := env.Parse(c.value, 1000000); got != c.level {
			t.Errorf("level %q: %d, want %d", c.value, got, c.level)
		}
	}
	t.Setenv(envDisable, "on")
	if v, w := env.Switch(envDisable, false); !v || w != "" {
		t.Errorf("GPUMAP_DISABLE=on: %v %q", v, w)
	}
	t.Setenv(envDisable, "maybe")
	if v, w := env.Switch(envDisable, true); !v || !strings.Contains(w, "its default, on, applies") {
		t.Errorf("GPUMAP_DISABLE=maybe, default on: %v %q", v, w)
	}
}
