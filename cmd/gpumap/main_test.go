package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExitCodesAndMessages(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "grid.graph")
	if code, _, e := runCLI("gen", "-t", "grid", "-dims", "12x12", "-o", good); code != 0 {
		t.Fatalf("gen: %d %s", code, e)
	}
	bad := writeFile(t, dir, "bad.graph", "3 2\n2\n1 4\n2\n")
	m := filepath.Join(dir, "out.map")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "usage"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"map", "-h", "4:4", "-d", "1:10", "-m", m}, exitUsage, "missing -g"},
		{[]string{"map", "-g", good, "-d", "1:10", "-m", m}, exitUsage, "missing -h"},
		{[]string{"map", "-g", good, "-h", "4:0", "-d", "1:10", "-m", m}, exitUsage, "field 2 is zero"},
		{[]string{"map", "-g", good, "-h", "4:4", "-d", "1", "-m", m}, exitUsage, "length mismatch"},
		{[]string{"map", "-g", good, "-h", "4:4", "-d", "1:10", "-m", m, "-c", "eco"}, exitUsage, `unknown preset "eco"`},
		{[]string{"map", "-g", good, "-h", "4:4", "-d", "1:10", "-m", m, "-t", "-1"}, exitUsage, "thread count"},
		{[]string{"map", "-g", bad, "-h", "2", "-d", "1", "-m", m}, exitFailure, "line 3 (vertex 2): neighbour 4 is out of range [1,3]"},
		{[]string{"map", "-g", filepath.Join(dir, "missing.graph"), "-h", "2", "-d", "1", "-m", m}, exitFailure, "no such file"},
		{[]string{"map", "-q", "-g", good, "-h", "4:4", "-d", "1:10", "-e", "0.03", "-m", m}, exitOK, "feasible=true"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("gpumap %s: exit %d, want %d; output %q does not contain %q",
				strings.Join(c.args, " "), code, c.code, out+errs, c.want)
		}
	}
}

func TestMapThenEval(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.graph")
	runCLI("gen", "-t", "rgg", "-n", "3000", "-o", g)
	m := filepath.Join(dir, "g.map")
	code, out, errs := runCLI("map", "-g", g, "-h", "4:8:2", "-d", "1:10:100", "-e", "0.03", "-c", "fast", "-m", m)
	if code != exitOK {
		t.Fatalf("map: %d %s", code, errs)
	}
	if !strings.Contains(errs, "gpumap: multisection") {
		t.Errorf("no progress on stderr: %q", errs)
	}
	j := line(out, "J=")
	code, out2, errs := runCLI("eval", "-g", g, "-h", "4:8:2", "-d", "1:10:100", "-e", "0.03", "-m", m)
	if code != exitOK || line(out2, "J=") != j {
		t.Fatalf("eval: exit %d, %q vs map's %q (%s)", code, line(out2, "J="), j, errs)
	}
	// Everything on PE 0 is infeasible: exit status 3.
	all0 := strings.Repeat("0\n", 3000)
	m0 := writeFile(t, dir, "zero.map", all0)
	if code, out, _ := runCLI("eval", "-g", g, "-h", "4:8:2", "-d", "1:10:100", "-m", m0); code != exitInfeasible || !strings.Contains(out, "feasible=false") {
		t.Fatalf("infeasible eval: exit %d %q", code, out)
	}
	short := writeFile(t, dir, "short.map", "0\n1\n")
	if code, _, errs := runCLI("eval", "-g", g, "-h", "4:8:2", "-d", "1:10:100", "-m", short); code != exitFailure || !strings.Contains(errs, "2 entries") {
		t.Fatalf("short mapping: exit %d %q", code, errs)
	}
	out3 := writeFile(t, dir, "range.map", "64\n"+strings.Repeat("0\n", 2999))
	if code, _, errs := runCLI("eval", "-g", g, "-h", "4:8:2", "-d", "1:10:100", "-m", out3); code != exitFailure || !strings.Contains(errs, "line 1: PE 64 is outside [0,64)") {
		t.Fatalf("PE out of range: exit %d %q", code, errs)
	}
}

func line(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
