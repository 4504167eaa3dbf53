package tests

// Tests of how the C libraries load libgpumap.so at run time (cabi/dl):
// a library that does not fit is refused before it is loaded, with the
// reason of every candidate, and the recorder refuses a libgpumap.so of
// another gpumap version instead of calling it. (The other stack's
// libgpumap.so named by GPUMAP_LIBRARY is in TestTopoConformance.)

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var otherMPI = map[string]string{"openmpi": "MPICH", "mpich": "Open MPI"}

// TestDLCandidates: the interposer copied into a directory whose
// libgpumap.so.0 is the other stack's build and whose libgpumap.so is no
// library at all, nothing on the search path: each candidate is refused
// with its own reason, and none is loaded into the program.
func TestDLCandidates(t *testing.T) {
	for i, s := range topoStacks {
		o := topoStacks[1-i]
		need(t, filepath.Join(s.bin, "topo_dgraph"), filepath.Join(s.lib, "libgpumap_topo.so"), filepath.Join(o.lib, "libgpumap.so"))
		dir := t.TempDir()
		lib, err := os.ReadFile(filepath.Join(root, s.lib, "libgpumap_topo.so"))
		if err != nil {
			t.Fatal(err)
		}
		other, err := filepath.EvalSymlinks(filepath.Join(root, o.lib, "libgpumap.so"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "libgpumap_topo.so"), lib, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, filepath.Join(dir, "libgpumap.so.0")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "libgpumap.so"), []byte("not a library\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"GPUMAP_HIERARCHY": "2:3", "GPUMAP_VERBOSE": "1"}
		out, err := topoExec(t, s, 6, env, filepath.Join(dir, "libgpumap_topo.so"), 2*time.Minute, "topo_dgraph")
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, out)
		}
		p := parseTopo(out)
		checkClean(t, s.name, p, out)
		if p.loaded["no"] != 6 {
			t.Errorf("%s: a refused libgpumap.so was loaded into %d processes:\n%s", s.name, p.loaded["yes"], out)
		}
		for _, want := range []string{
			dir + "/libgpumap.so.0 was built for " + otherMPI[s.name] + ", this program runs " + otherMPI[o.name],
			dir + "/libgpumap.so: not an ELF file",
			"libgpumap.so.0: not in ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: GPUMAP_VERBOSE=1 does not say %q:\n%s", s.name, want, out)
			}
		}
	}
}

// TestDLRecorder: the recorder with GPUMAP_LIBRARY naming the other
// stack's libgpumap.so (never loaded: LD_DEBUG=files lists every file the
// dynamic loader opens) and a libgpumap.so of another gpumap version
// (tests/testdata/fake_libgpumap.c, whose unversioned finalize step
// aborts: the recorder called it): the program ends normally, no pattern
// is written, and rank 0 says why.
func TestDLRecorder(t *testing.T) {
	for i, s := range topoStacks {
		o := topoStacks[1-i]
		need(t, filepath.Join(s.bin, "record_calls"), filepath.Join(s.lib, "libgpumap_record.so"),
			filepath.Join(s.bin, "fake/libgpumap.so"), filepath.Join(o.lib, "libgpumap.so"))
		other, err := filepath.EvalSymlinks(filepath.Join(root, o.lib, "libgpumap.so"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ what, lib, says string }{
			{"the other MPI's libgpumap.so", other, other + " was built for " + otherMPI[s.name]},
			{"another gpumap version", filepath.Join(root, s.bin, "fake/libgpumap.so"),
				"libgpumap.so has no gpumap_record_write_v2: it is of another gpumap version than the recorder"},
		} {
			pattern := filepath.Join(t.TempDir(), "pattern.graph")
			env := map[string]string{"GPUMAP_LIBRARY": c.lib, "GPUMAP_RECORD": pattern, "LD_DEBUG": "files"}
			out, err := topoExec(t, s, 4, env, filepath.Join(root, s.lib, "libgpumap_record.so"), 2*time.Minute, "record_calls")
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", s.name, c.what, err, out)
			}
			if !strings.Contains(out, "gpumap record: rank 0: ") || !strings.Contains(out, c.says) {
				t.Errorf("%s %s: rank 0 does not say %q:\n%s", s.name, c.what, c.says, out)
			}
			if strings.Contains(out, "file="+other) {
				t.Errorf("%s %s: the other MPI's libgpumap.so was loaded:\n%s", s.name, c.what, out)
			}
			if _, err := os.Stat(pattern); err == nil {
				t.Errorf("%s %s: a pattern was written", s.name, c.what)
			}
		}
	}
}
