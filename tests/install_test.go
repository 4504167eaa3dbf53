package tests

import (
	"debug/elf"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// sh runs a bash script under a timeout (the process group is killed on
// expiry) and fails the test on error.
func sh(t *testing.T, timeout time.Duration, env []string, script string) string {
	t.Helper()
	out, err := run(t, timeout, env, "bash", "-c", "set -euo pipefail\n"+script)
	if err != nil {
		t.Fatalf("%s\n%v\n%s", script, err, out)
	}
	return out
}

// makeEnv keeps a parent make's jobserver and level out of the nested make.
var makeEnv = []string{"MAKEFLAGS=", "MAKELEVEL=", "MFLAGS="}

func copyInto(t *testing.T, dir string, files ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists the files, links and directories under dir, relative.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// runpath is the DT_RUNPATH (or DT_RPATH) of an executable.
func runpath(t *testing.T, exe string) string {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rp, _ := f.DynString(elf.DT_RUNPATH)
	if len(rp) == 0 {
		rp, _ = f.DynString(elf.DT_RPATH)
	}
	return strings.Join(rp, ":")
}

// make install into a fresh prefix; C and Fortran programs built against
// the installed tree with pkg-config and, after moving the tree, with
// CMake (find_package(gpumap)); all run under mpirun, none sees build/.
// make uninstall then removes exactly what was installed.
func TestInstallPkgConfigCMake(t *testing.T) {
	need(t, "build/lib/libgpumap.so", "build/lib/libgpumapf.a")
	for _, v := range []string{"PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH"} {
		if strings.Contains(os.Getenv(v), filepath.Join(root, "build")) {
			t.Fatalf("%s names the build tree: %s", v, os.Getenv(v))
		}
	}
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "prefix")
	// Files of someone else's that uninstall must leave alone.
	copyInto(t, filepath.Join(prefix, "lib"), "tests/testdata/hello.c")
	copyInto(t, filepath.Join(prefix, "include"), "tests/testdata/hello.c")
	before := tree(t, prefix)

	install := "make -s install PREFIX=" + prefix
	sh(t, 5*time.Minute, makeEnv, install)
	sh(t, 5*time.Minute, makeEnv, install) // again: replaces the first
	manifest, err := os.ReadFile(filepath.Join(prefix, "share/gpumap/install-manifest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(sh(t, time.Minute, nil, prefix+"/bin/gpumap version"))
	version = strings.TrimPrefix(version, "gpumap ")
	major := strings.Split(version, ".")[0]
	for _, f := range []string{"lib/libgpumap.so." + version, "lib/libgpumap.a", "lib/libgpumapf.a", "include/gpumap.h",
		"include/gpumap.mod", "lib/pkgconfig/gpumap.pc", "lib/pkgconfig/gpumap-fortran.pc",
		"lib/cmake/gpumap/gpumapConfig.cmake", "lib/cmake/gpumap/gpumapConfigVersion.cmake",
		"bin/gpumap", "share/man/man1/gpumap.1"} {
		if strings.Count(string(manifest), "f "+filepath.Join(prefix, f)+"\n") != 1 {
			t.Errorf("%s is not in the manifest once:\n%s", f, manifest)
		}
	}
	for _, so := range []string{"libgpumap_topo.so", "libgpumap_record.so"} {
		_, built := os.Stat(filepath.Join(root, "build/lib", so))
		if _, inst := os.Stat(filepath.Join(prefix, "lib", so)); (built == nil) != (inst == nil) {
			t.Errorf("%s: built %v, installed %v", so, built == nil, inst == nil)
		}
	}
	lib, err := elf.Open(filepath.Join(prefix, "lib/libgpumap.so."+version))
	if err != nil {
		t.Fatal(err)
	}
	soname, _ := lib.DynString(elf.DT_SONAME)
	lib.Close()
	if link, _ := os.Readlink(filepath.Join(prefix, "lib/libgpumap.so")); len(soname) != 1 || soname[0] != "libgpumap.so."+major || link != soname[0] {
		t.Errorf("soname %v, libgpumap.so -> %q; want libgpumap.so.%s", soname, link, major)
	}

	// pkg-config, with plain gcc and gfortran: the .pc files carry MPI.
	pc := []string{"PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib/pkgconfig"), "LD_LIBRARY_PATH="}
	app := filepath.Join(tmp, "app")
	copyInto(t, app, "tests/testdata/hello.c", "tests/testdata/hello_f08.f90", "tests/testdata/install/version.c")
	flags := sh(t, time.Minute, pc, "pkg-config --cflags --libs gpumap gpumap-fortran; pkg-config --modversion gpumap; pkg-config --variable=prefix gpumap")
	if strings.Contains(flags, "/build") || !strings.Contains(flags, version+"\n"+prefix+"\n") {
		t.Fatalf("pkg-config: %s", flags)
	}
	sh(t, 2*time.Minute, pc, "cd "+app+` && gcc -O2 hello.c $(pkg-config --cflags --libs gpumap) -o hello
		gcc version.c $(pkg-config --cflags --libs gpumap) -o version
		gfortran hello_f08.f90 $(pkg-config --cflags --libs gpumap-fortran) -o hello_f08`)
	if v := strings.TrimSpace(sh(t, time.Minute, nil, app+"/version")); v != version {
		t.Errorf("gpumap_version() is %q, the installed command and gpumap.pc say %q", v, version)
	}
	mpiRun := func(exe, prefixOut, lib string) {
		t.Helper()
		if rp := runpath(t, exe); strings.Contains(rp, root) || !strings.Contains(rp, lib+"/lib") {
			t.Errorf("%s: runpath %q, want %s/lib and nothing in %s", exe, rp, lib, root)
		}
		rel, _ := filepath.Rel(root, exe) // ompirun takes paths in the checkout
		checkPermutation(t, ompirun(t, 4, rel), prefixOut, 4)
	}
	mpiRun(app+"/hello", "", prefix)
	mpiRun(app+"/hello_f08", "FORTRAN08", prefix)

	// CMake, with the installed tree moved elsewhere: relocatable.
	moved := filepath.Join(tmp, "moved")
	if err := os.Rename(prefix, moved); err != nil {
		t.Fatal(err)
	}
	capp, fapp := filepath.Join(tmp, "capp"), filepath.Join(tmp, "fapp")
	copyInto(t, capp, "tests/testdata/install/c/CMakeLists.txt", "tests/testdata/hello.c")
	copyInto(t, fapp, "tests/testdata/install/fortran/CMakeLists.txt", "tests/testdata/hello_f08.f90")
	for _, dir := range []string{capp, fapp} {
		sh(t, 3*time.Minute, []string{"CMAKE_PREFIX_PATH=" + moved, "LD_LIBRARY_PATH="},
			"cmake -S "+dir+" -B "+dir+"/out >/dev/null && cmake --build "+dir+"/out >/dev/null")
	}
	mpiRun(capp+"/out/app", "", moved)
	mpiRun(fapp+"/out/appf", "FORTRAN08", moved)
	if err := os.Rename(moved, prefix); err != nil {
		t.Fatal(err)
	}

	sh(t, time.Minute, makeEnv, "make -s uninstall PREFIX="+prefix)
	if after := tree(t, prefix); !slices.Equal(after, before) {
		t.Errorf("after make uninstall %s holds %v, before make install %v", prefix, after, before)
	}
	if out, err := run(t, time.Minute, makeEnv, "make", "-s", "uninstall", "PREFIX="+prefix); err == nil || !strings.Contains(out, "no gpumap installation") {
		t.Errorf("a second uninstall: %v %s", err, out)
	}

	// DESTDIR stages an install for packagers: paths name PREFIX.
	stage := filepath.Join(tmp, "stage")
	sh(t, 5*time.Minute, makeEnv, "make -s install DESTDIR="+stage+" PREFIX=/opt/gpumap")
	pcText, _ := os.ReadFile(filepath.Join(stage, "opt/gpumap/lib/pkgconfig/gpumap.pc"))
	if !regexp.MustCompile(`(?m)^prefix=/opt/gpumap$`).Match(pcText) {
		t.Errorf("staged gpumap.pc:\n%s", pcText)
	}
	sh(t, time.Minute, makeEnv, "make -s uninstall DESTDIR="+stage+" PREFIX=/opt/gpumap")
	if left := tree(t, stage); len(left) != 0 {
		t.Errorf("staged uninstall left %v", left)
	}
}
