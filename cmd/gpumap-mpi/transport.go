package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gpumap/gpumap/mpirank/env"
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
// named on mpirun (-am, --tune), and no default parameter file
// (OMPI_MCA_mca_base_param_files, else the user's and the system's)
// selects a pml other than ob1, excludes ob1 or selects an mtl.
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
func localPML(on bool, lookup func(string) (string, bool), readFile func(string) ([]byte, error)) (name, value string) {
	if !on {
		return "", ""
	}
	world, ok1 := lookup("OMPI_COMM_WORLD_SIZE")
	local, ok2 := lookup("OMPI_COMM_WORLD_LOCAL_SIZE")
	if !ok1 || !ok2 || world == "" || strings.TrimSpace(world) != strings.TrimSpace(local) {
		return "", ""
	}
	for _, v := range []string{"OMPI_MCA_pml", "OMPI_MCA_mtl",
		"OMPI_MCA_mca_base_param_file_prefix", "OMPI_MCA_mca_base_envar_file_prefix"} {
		if _, set := lookup(v); set {
			return "", ""
		}
	}
	for _, f := range paramFiles(lookup) {
		text, err := readFile(f)
		if err == nil && !allowsOB1(string(text)) {
			return "", ""
		}
	}
	return "OMPI_MCA_pml", "ob1"
}

// paramFiles are the files OpenMPI reads its parameters from by default:
// OMPI_MCA_mca_base_param_files when set, else the user's file and the
// system's (Debian's sysconfdir /etc/openmpi, or OPAL_PREFIX's etc).
func paramFiles(lookup func(string) (string, bool)) []string {
	if list, ok := lookup("OMPI_MCA_mca_base_param_files"); ok {
		return filepath.SplitList(list)
	}
	var fs []string
	if home, ok := lookup("HOME"); ok && home != "" {
		fs = append(fs, filepath.Join(home, ".openmpi", "mca-params.conf"))
	}
	fs = append(fs, "/etc/openmpi/openmpi-mca-params.conf")
	if prefix, ok := lookup("OPAL_PREFIX"); ok && prefix != "" {
		fs = append(fs, filepath.Join(prefix, "etc", "openmpi-mca-params.conf"))
	}
	return fs
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
	if name, value := localPML(on, os.LookupEnv, os.ReadFile); name != "" {
		os.Setenv(name, value)
	}
	return warning
}
