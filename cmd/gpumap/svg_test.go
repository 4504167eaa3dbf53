package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/report"
)

// eval --svg: the picture, parsed as XML, has cells that add up to the
// per-level cut eval prints, at every level, and eval's J.
func TestEvalSVGMatchesEval(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.graph")
	m := filepath.Join(dir, "g.map")
	runCLI("gen", "-t", "grid", "-dims", "8x8", "-o", g)
	if code, _, e := runCLI("map", "-q", "-g", g, "-h", "4:2:8", "-d", "1:10:100", "-e", "0", "-c", "fast", "-m", m); code != exitOK {
		t.Fatalf("map: %s", e)
	}
	for _, level := range []string{"", "pe", "socket", "node", "0", "1", "2"} {
		svg := filepath.Join(dir, "g"+level+".svg")
		args := []string{"eval", "-g", g, "-h", "4:2:8", "-d", "1:10:100", "-e", "0", "-m", m, "--svg", svg}
		if level != "" {
			args = append(args, "--svg-level", level)
		}
		code, out, errs := runCLI(args...)
		if code != exitOK {
			t.Fatalf("eval %s: %d %s", level, code, errs)
		}
		var cuts []float64
		for _, f := range strings.Split(strings.TrimPrefix(line(out, "cut_per_level="), "cut_per_level="), ":") {
			v, _ := strconv.ParseFloat(f, 64)
			cuts = append(cuts, v)
		}
		j, _ := strconv.ParseFloat(strings.TrimPrefix(line(out, "J="), "J="), 64)
		f, err := os.Open(svg)
		if err != nil {
			t.Fatal(err)
		}
		drawn, err := report.Parse(f)
		f.Close()
		if err != nil || len(drawn) != 1 {
			t.Fatalf("%s: %d panels, %v", svg, len(drawn), err)
		}
		d := drawn[0]
		want := map[string]int{"": 2, "pe": 0, "socket": 1, "node": 2, "0": 0, "1": 1, "2": 2}[level]
		if d.Level != want || d.Cut() != cuts[want] || d.J != j {
			t.Errorf("--svg-level %q: level %d, cells add up to %g, J %g; eval: level %d cut %g (%v), J %g",
				level, d.Level, d.Cut(), d.J, want, cuts[want], cuts, j)
		}
	}
	// A bad level is a usage error, reported before any work.
	code, _, errs := runCLI("eval", "-g", g, "-h", "4:2:8", "-d", "1:10:100", "-m", m, "--svg", filepath.Join(dir, "x.svg"), "--svg-level", "rack")
	if code != exitUsage || !strings.Contains(errs, `unknown level "rack"`) {
		t.Errorf("--svg-level rack: exit %d, %q", code, errs)
	}
	// One level only: the default draws the PEs.
	m1 := filepath.Join(dir, "one.map")
	runCLI("map", "-q", "-g", g, "-h", "64", "-d", "1", "-e", "0", "-m", m1)
	if code, _, errs := runCLI("eval", "-g", g, "-h", "64", "-d", "1", "-m", m1, "--svg", filepath.Join(dir, "one.svg")); code != exitOK {
		t.Errorf("flat machine: exit %d %s", code, errs)
	}
}
