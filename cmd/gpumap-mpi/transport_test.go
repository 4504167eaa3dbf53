package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLocalPML: gpumap-mpi chooses OpenMPI's pml ob1 before MPI_Init only
// when every rank is on this node, nobody chose the point-to-point layer,
// and the system's parameter file was found among the candidates site
// (environment and files in, parameter out).
func TestLocalPML(t *testing.T) {
	oneNode := map[string]string{"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "HOME": "/home/u"}
	debian := "btl_base_warn_component_unused=0\nmtl = ^ofi\nbtl = ^uct,openib,ofi\npml = ^ucx\nosc = ^ucx,pt2pt\n"
	site := []string{"/etc/openmpi/openmpi-mca-params.conf", "/usr/local/etc/openmpi-mca-params.conf"}
	sys := func(kv ...string) map[string]string {
		m := map[string]string{"/etc/openmpi/openmpi-mca-params.conf": debian}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name  string
		on    bool
		env   map[string]string
		files map[string]string
		set   bool
	}{
		{"one node, no system file found: OpenMPI's may lie elsewhere", true, oneNode, nil, false},
		{"one node, Debian's system file", true, oneNode, sys(), true},
		{"one node, an empty system file", true, oneNode, map[string]string{"/usr/local/etc/openmpi-mca-params.conf": ""}, true},
		{"one rank", true, with(oneNode, "OMPI_COMM_WORLD_SIZE", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "1"), sys(), true},
		{"switched off", false, oneNode, nil, false},
		{"two nodes", true, with(oneNode, "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "OMPI_COMM_WORLD_SIZE", "4"), nil, false},
		{"not OpenMPI's mpirun (MPICH, singleton)", true, map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2"}, nil, false},
		{"local size only", true, map[string]string{"OMPI_COMM_WORLD_LOCAL_SIZE": "2"}, nil, false},
		{"user's pml", true, with(oneNode, "OMPI_MCA_pml", "ucx"), nil, false},
		{"user's empty pml", true, with(oneNode, "OMPI_MCA_pml", ""), nil, false},
		{"user's mtl", true, with(oneNode, "OMPI_MCA_mtl", "psm2"), nil, false},
		{"user's btl: pml ob1 is what it implies", true, with(oneNode, "OMPI_MCA_btl", "self,tcp"), sys(), true},
		{"mpirun -am", true, with(oneNode, "OMPI_MCA_mca_base_param_file_prefix", "am.conf"), nil, false},
		{"mpirun --tune", true, with(oneNode, "OMPI_MCA_mca_base_envar_file_prefix", "tune.conf"), nil, false},
		{"user's file selects ucx", true, oneNode, sys("/home/u/.openmpi/mca-params.conf", "# mine\n pml = ucx \n"), false},
		{"a second system file selects ucx", true, oneNode, sys("/usr/local/etc/openmpi-mca-params.conf", "pml = ucx\n"), false},
		{"a system file that cannot be read", true, oneNode, sys("/usr/local/etc/openmpi-mca-params.conf", "\x00unreadable"), false},
		{"system file excludes ob1", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "pml = ^cm, ob1\n"}, false},
		{"system file selects ob1", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "pml=\"ob1\"\n"}, true},
		{"system file selects an mtl", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "mtl = psm2\n"}, false},
		{"param_files replaces the default files", true, with(oneNode, "OMPI_MCA_mca_base_param_files", "/a.conf:/b.conf"),
			map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "pml = cm\n", "/b.conf": "pml = ^ucx\n"}, true},
		{"param_files' second file", true, with(oneNode, "OMPI_MCA_mca_base_param_files", "/a.conf:/b.conf"),
			map[string]string{"/b.conf": "pml = cm\n"}, false},
	} {
		lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		read := func(f string) ([]byte, error) {
			if s, ok := c.files[f]; ok {
				if s == "\x00unreadable" {
					return nil, fs.ErrPermission
				}
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
		name, value := localPML(c.on, lookup, read, site)
		if got := name == "OMPI_MCA_pml" && value == "ob1"; got != c.set || !got && (name != "" || value != "") {
			t.Errorf("%s: got %q=%q, want set %v", c.name, name, value, c.set)
		}
	}
}

// TestChooseLocalPML: the switch is read by the shared rule (an unknown
// value warns and keeps it on), and a user's pml is never replaced.
func TestChooseLocalPML(t *testing.T) {
	t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
	t.Setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2")
	t.Setenv("OMPI_MCA_mca_base_param_files", "/nonexistent/gpumap-test.conf")
	unsetenv(t, "OMPI_MCA_mtl")
	for _, c := range []struct {
		shm, user, want, warning string
	}{
		{"", "", "ob1", ""},
		{" Off", "", "", ""},
		{"maybe", "", "ob1", `GPUMAP_MPI_SHM="maybe" is not a switch (1, true, yes, on; 0, false, no, off): its default, on, applies`},
		{"", "ucx", "ucx", ""},
	} {
		t.Setenv(envSHM, c.shm)
		if t.Setenv("OMPI_MCA_pml", c.user); c.user == "" {
			unsetenv(t, "OMPI_MCA_pml")
		}
		w := chooseLocalPML()
		if got := os.Getenv("OMPI_MCA_pml"); got != c.want || w != c.warning {
			t.Errorf("GPUMAP_MPI_SHM=%q, OMPI_MCA_pml=%q: got pml %q, warning %q; want %q, %q", c.shm, c.user, got, w, c.want, c.warning)
		}
	}
}

// unsetenv unsets k for the rest of the test and restores its value after
// (t.Setenv records it).
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	os.Unsetenv(k)
}

// TestSiteFiles: the system parameter file of the OpenMPI whose library
// is loaded is found where OpenMPI's installs put it (temporary
// directories stand for their prefixes), and a site file there that
// chooses the pml is obeyed: the review's case, a Fedora, /usr/local or
// Spack file selecting ucx that gpumap-mpi did not read and overrode.
func TestSiteFiles(t *testing.T) {
	tmp := t.TempDir()
	put := func(rel, text string) string {
		t.Helper()
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, rel string) string {
		t.Helper()
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "HOME": filepath.Join(tmp, "home")}
	noGlob := func(string) ([]string, error) { return nil, nil }
	decide := func(lib string, env map[string]string) string {
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		_, v := localPML(true, lookup, os.ReadFile, siteFiles(lib, lookup, noGlob, filepath.EvalSymlinks))
		return v
	}
	for _, c := range []struct {
		name, lib, conf, want string
	}{
		// A prefix without a parameter file: not found, left alone.
		{"no site file", put("bare/lib/libmpi.so.40", ""), "", ""},
		{"prefix/lib allows", put("a/lib/libmpi.so.40", ""), "a/etc/openmpi-mca-params.conf", "ob1"},
		{"prefix/lib selects ucx", put("b/lib/libmpi.so.40", ""), "b/etc/openmpi-mca-params.conf", ""},
		{"prefix/lib64 selects an mtl", put("c/lib64/libmpi.so.40", ""), "c/etc/openmpi-mca-params.conf", ""},
		{"prefix/lib/<triplet> allows", put("d/lib/x86_64-linux-gnu/libmpi.so.40", ""), "d/etc/openmpi-mca-params.conf", "ob1"},
		// The library loaded through a link into another prefix: that
		// prefix's file is read too.
		{"linked library's prefix selects ucx", link(put("e/lib/libmpi.so.40.30.4", ""), "f/lib/libmpi.so.40"), "e/etc/openmpi-mca-params.conf", ""},
	} {
		if c.conf != "" {
			text := "pml = ^ucx\n"
			if strings.Contains(c.name, "ucx") {
				text = "pml = ucx\n"
			} else if strings.Contains(c.name, "mtl") {
				text = "mtl = psm2\n"
			}
			put(c.conf, text)
		}
		if got := decide(c.lib, env); got != c.want {
			t.Errorf("%s (%s): got pml %q, want %q; candidates %q", c.name, c.lib, got, c.want,
				siteFiles(c.lib, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, noGlob, filepath.EvalSymlinks))
		}
	}
	// OPAL_PREFIX relocates the install: its etc is read.
	op := map[string]string{"OPAL_PREFIX": filepath.Join(tmp, "g")}
	for k, v := range env {
		op[k] = v
	}
	put("g/etc/openmpi-mca-params.conf", "pml = cm\n")
	if got := decide("", op); got != "" {
		t.Errorf("OPAL_PREFIX's file selects cm: got pml %q", got)
	}
	put("g/etc/openmpi-mca-params.conf", "\n")
	if got := decide("", op); got != "ob1" {
		t.Errorf("OPAL_PREFIX's file allows ob1: got pml %q", got)
	}
	if got := decide("", env); got != "" {
		t.Errorf("no library, no OPAL_PREFIX: got pml %q, want none", got)
	}

	// A distribution's library under /usr or /lib: /etc's OpenMPI
	// directories (glob) are candidates; elsewhere they are not.
	look := func(k string) (string, bool) { return "", false }
	glob := func(p string) ([]string, error) {
		if p != "/etc/openmpi*/openmpi-mca-params.conf" {
			t.Errorf("glob %q", p)
		}
		return []string{"/etc/openmpi-x86_64/openmpi-mca-params.conf"}, nil
	}
	noLink := func(p string) (string, error) { return "", fs.ErrNotExist }
	for _, c := range []struct {
		lib  string
		want []string
	}{
		{"/usr/lib64/openmpi/lib/libmpi.so.40", []string{"/usr/lib64/openmpi/etc/openmpi-mca-params.conf", "/etc/openmpi-x86_64/openmpi-mca-params.conf"}},
		{"/lib/x86_64-linux-gnu/libmpi.so.40", []string{"/etc/openmpi-mca-params.conf", "/etc/openmpi-x86_64/openmpi-mca-params.conf"}},
		{"/usr/local/lib/libmpi.so.40", []string{"/usr/local/etc/openmpi-mca-params.conf", "/etc/openmpi-x86_64/openmpi-mca-params.conf"}},
	} {
		got := siteFiles(c.lib, look, glob, noLink)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("siteFiles(%s) = %q: %s missing", c.lib, got, w)
			}
		}
	}
	if got := siteFiles("/opt/spack/openmpi-abc/lib/libmpi.so.40", look, glob, noLink); slices.Contains(got, "/etc/openmpi-x86_64/openmpi-mca-params.conf") ||
		!slices.Contains(got, "/opt/spack/openmpi-abc/etc/openmpi-mca-params.conf") {
		t.Errorf("siteFiles of a Spack prefix = %q", got)
	}
}
