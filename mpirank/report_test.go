package mpirank

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/report"
)

// GPUMAP_REPORT, set at call time, makes rank 0's mapping step draw the
// traffic between nodes before and after, with the call's J.
func TestReportBeforeAfter(t *testing.T) {
	all, sizes, displs := synthetic(8, 8, 2) // 128 ranks dealt over 2 nodes
	path := filepath.Join(t.TempDir(), "r.svg")
	t.Setenv("GPUMAP_REPORT", path)
	for _, c := range []struct{ level, name string }{{"", "node"}, {"socket", "socket"}, {"bogus", "node"}} {
		t.Setenv("GPUMAP_REPORT_LEVEL", c.level)
		var log strings.Builder
		_, res, e := mapOnRoot(all, sizes, displs, Options{Log: &log}, false)
		if e != nil {
			t.Fatal(e)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		drawn, err := report.Parse(f)
		f.Close()
		if err != nil || len(drawn) != 2 {
			t.Fatalf("%d panels, %v", len(drawn), err)
		}
		b, a := drawn[0], drawn[1]
		if b.J != res.JBefore || a.J != res.JAfter || b.LevelName != c.name || a.LevelName != c.name {
			t.Errorf("level %q: panels J %g -> %g at %s; the call: %g -> %g", c.level, b.J, a.J, b.LevelName, res.JBefore, res.JAfter)
		}
		if b.Cut() != b.CutPerLevel[b.Level] || a.Cut() != a.CutPerLevel[a.Level] || a.Cut() >= b.Cut() {
			t.Errorf("level %q: cells %g -> %g, captions %v -> %v", c.level, b.Cut(), a.Cut(), b.CutPerLevel, a.CutPerLevel)
		}
		if c.level == "bogus" && !strings.Contains(log.String(), `GPUMAP_REPORT_LEVEL: unknown level "bogus"`) {
			t.Errorf("no warning for a bad level: %q", log.String())
		}
	}
	// An unwritable report is a warning; the call still succeeds.
	t.Setenv("GPUMAP_REPORT", filepath.Join(t.TempDir(), "missing", "r.svg"))
	var log strings.Builder
	if _, _, e := mapOnRoot(all, sizes, displs, Options{Log: &log}, false); e != nil || !strings.Contains(log.String(), "warning: GPUMAP_REPORT") {
		t.Errorf("unwritable report: %v, log %q", e, log.String())
	}
}
