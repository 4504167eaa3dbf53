package tests

// Output files written from inside MPI programs: the recorder's pattern
// at MPI_Finalize (gpumap/graph.Create is the one writer; its own tests
// cover the rest).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordNotThroughSymlink: a symbolic link planted at GPUMAP_RECORD's
// path (in a shared directory, to another user's file) is not written
// through: rank 0 says so, the linked file and the link are unchanged,
// and the program runs as without the recorder.
func TestRecordNotThroughSymlink(t *testing.T) {
	need(t, "build/tests/stencil_world", "build/mpich/tests/stencil_world",
		"build/lib/libgpumap_record.so", "build/mpich/lib/libgpumap_record.so")
	for _, s := range stacks {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim")
		if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "pattern.graph")
		if err := os.Symlink(victim, link); err != nil {
			t.Fatal(err)
		}
		out := mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + link},
			s.prog("stencil_world"), "2", "1", "1", "1", "10")
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Errorf("%s: the recorder wrote through the link: the victim holds %.40q", s.name, b)
		}
		if to, err := os.Readlink(link); err != nil || to != victim {
			t.Errorf("%s: the link was replaced (%q, %v)", s.name, to, err)
		}
		if !strings.Contains(out, "gpumap record: rank 0: "+link+" is a symbolic link") || len(resultLine.FindAllString(out, -1)) != 2 {
			t.Errorf("%s: no refusal on rank 0, or the program did not finish:\n%s", s.name, out)
		}
		if es, _ := os.ReadDir(dir); len(es) != 2 {
			t.Errorf("%s: %d files in the directory, want the link and the victim", s.name, len(es))
		}
	}
}
