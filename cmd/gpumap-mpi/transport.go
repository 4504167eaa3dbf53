package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpumap/gpumap/mpirank/env"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// envSHM is the switch (cabi/dl/gpumap_env.h's rule, default on) that
// lets gpumap-mpi choose OpenMPI's shared-memory path when all its ranks
// run on one node (localPML).
const envSHM = "GPUMAP_MPI_SHM"

// localPML returns the OpenMPI parameter that gpumap-mpi sets before
// MPI_Init ("" when none): pml ob1, when the switch is on, every rank of
// the job runs on this node (OMPI_COMM_WORLD_LOCAL_SIZE equals
// OMPI_COMM_WORLD_SIZE; neither is set outside OpenMPI's mpirun, so
// MPICH and singletons are left alone), and nobody chose the
// point-to-point layer: neither OMPI_MCA_pml nor OMPI_MCA_mtl is in the
// environment (mpirun --mca and -x put them there), no parameter file is
// named on mpirun (-am, --tune), and no parameter file OpenMPI reads
// selects a pml other than ob1, excludes ob1 or selects an mtl. Those
// files are OMPI_MCA_mca_base_param_files' when it is set, else the
// user's (~/.openmpi/mca-params.conf) and the system's, whose candidate
// paths are site (siteFiles): every one that exists is read, and unless
// at least one of them was read (every OpenMPI install ships its
// openmpi-mca-params.conf), OpenMPI is left alone, for the system's file
// may then lie where gpumap-mpi does not look. A file that exists but
// cannot be read leaves OpenMPI alone too.
//
// Why: with pml unset OpenMPI opens its cm pml, which probes the PSM and
// PSM2 network libraries (Debian's openmpi-mca-params.conf already
// excludes UCX and OFI). An empty C program's MPI_Init at P=2 took
// 0.39-0.68 s of wall (slowest rank) and 0.17-0.20 s of CPU (both ranks)
// here, with pml ob1 0.25-0.38 s and 0.10-0.12 s; btl self,vader on top
// saved nothing more (0.10-0.11 s of CPU), and btl alone saved nothing.
// ob1 is what OpenMPI picks on one node without such hardware, through
// the btls the user's settings allow. The command only: a program that
// calls the library has called MPI_Init itself.
func localPML(on bool, lookup func(string) (string, bool), readFile func(string) ([]byte, error), site []string) (name, value string) {
	if !on {
		return "", ""
	}
	world, ok1 := mpi.EnvInt(lookup, "OMPI_COMM_WORLD_SIZE")
	local, ok2 := mpi.EnvInt(lookup, "OMPI_COMM_WORLD_LOCAL_SIZE")
	if !ok1 || !ok2 || world < 1 || world != local {
		return "", ""
	}
	for _, v := range []string{"OMPI_MCA_pml", "OMPI_MCA_mtl",
		"OMPI_MCA_mca_base_param_file_prefix", "OMPI_MCA_mca_base_envar_file_prefix"} {
		if _, set := lookup(v); set {
			return "", ""
		}
	}
	// allow reads one file: false when it exists and either cannot be
	// read or keeps ob1 from being chosen.
	allow := func(f string) (read, ok bool) {
		text, err := readFile(f)
		if err != nil {
			return false, errors.Is(err, fs.ErrNotExist)
		}
		return true, allowsOB1(string(text))
	}
	if list, set := lookup("OMPI_MCA_mca_base_param_files"); set {
		// It replaces the default files: OpenMPI reads these alone.
		for _, f := range filepath.SplitList(list) {
			if _, ok := allow(f); !ok {
				return "", ""
			}
		}
		return "OMPI_MCA_pml", "ob1"
	}
	if home, ok := lookup("HOME"); ok && home != "" {
		if _, ok := allow(filepath.Join(home, ".openmpi", "mca-params.conf")); !ok {
			return "", ""
		}
	}
	found := false
	for _, f := range site {
		read, ok := allow(f)
		if !ok {
			return "", ""
		}
		found = found || read
	}
	if !found {
		return "", ""
	}
	return "OMPI_MCA_pml", "ob1"
}

// siteFile is the name of OpenMPI's system parameter file in its
// sysconfdir.
const siteFile = "openmpi-mca-params.conf"

// siteFiles are the candidate paths of the system parameter file of the
// OpenMPI whose library is lib (mpi.Library: the file that defines
// MPI_Init, as loaded, and the file it links to). OpenMPI reads
// <sysconfdir>/openmpi-mca-params.conf, sysconfdir fixed when it was
// built, or $OPAL_PREFIX/etc when OPAL_PREFIX relocates it. Candidates:
// $OPAL_PREFIX/etc; <libdir>/../etc and <libdir>/../../etc (prefix/lib,
// prefix/lib64, prefix/lib/<triplet>: a source build's /usr/local/etc,
// Spack's or a module's prefix); and for a library in the system's
// directories (/usr, /lib, /lib64: a distribution's package, whose sysconfdir
// is under /etc) /etc/openmpi-mca-params.conf and every
// /etc/openmpi*/openmpi-mca-params.conf (Debian's /etc/openmpi, Fedora's
// /etc/openmpi-x86_64). glob is filepath.Glob, resolve
// filepath.EvalSymlinks (tests pass their own).
func siteFiles(lib string, lookup func(string) (string, bool), glob func(string) ([]string, error), resolve func(string) (string, error)) []string {
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	if prefix, ok := lookup("OPAL_PREFIX"); ok && prefix != "" {
		add(filepath.Join(prefix, "etc", siteFile))
	}
	if lib == "" {
		return files
	}
	libs := []string{filepath.Clean(lib)}
	if r, err := resolve(lib); err == nil && r != libs[0] {
		libs = append(libs, r)
	}
	system := false
	for _, l := range libs {
		if !filepath.IsAbs(l) {
			continue
		}
		dir := filepath.Dir(l)
		add(filepath.Join(dir, "..", "etc", siteFile))
		add(filepath.Join(dir, "..", "..", "etc", siteFile))
		system = system || strings.HasPrefix(l, "/usr/") || strings.HasPrefix(l, "/lib/") || strings.HasPrefix(l, "/lib64/")
	}
	if system {
		add(filepath.Join("/etc", siteFile))
		if more, err := glob(filepath.Join("/etc", "openmpi*", siteFile)); err == nil {
			for _, f := range more {
				add(f)
			}
		}
	}
	return files
}

// allowsOB1 reports whether a parameter file (lines "name = value", #
// comments) leaves ob1 the pml to choose: its pml is unset, ob1, or a
// list of exclusions (^a,b) without ob1, and its mtl is unset or
// exclusions (an mtl selected means the cm pml).
func allowsOB1(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name = strings.TrimSpace(name)
		value = strings.Trim(strings.TrimSpace(value), `"'`)
		switch name {
		case "pml":
			if value == "" || value == "ob1" {
				continue
			}
			if !strings.HasPrefix(value, "^") {
				return false
			}
			for _, c := range strings.Split(value[1:], ",") {
				if strings.TrimSpace(c) == "ob1" {
					return false
				}
			}
		case "mtl":
			if value != "" && !strings.HasPrefix(value, "^") {
				return false
			}
		}
	}
	return true
}

// chooseLocalPML sets localPML's parameter in this process's environment
// (C's too: OpenMPI reads it with getenv) and returns the warning about
// an unknown value of the switch ("" when none), for rank 0 to print.
func chooseLocalPML() string {
	on, warning := env.Switch(envSHM, true)
	site := siteFiles(mpi.Library(), mpi.Getenv, filepath.Glob, filepath.EvalSymlinks)
	if name, value := localPML(on, mpi.Getenv, os.ReadFile, site); name != "" {
		os.Setenv(name, value)
	}
	return warning
}
