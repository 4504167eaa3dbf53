package main

import (
	"io/fs"
	"os"
	"testing"
)

// TestLocalPML: gpumap-mpi chooses OpenMPI's pml ob1 before MPI_Init only
// when every rank is on this node and nobody chose the point-to-point
// layer (environment in, parameter out).
func TestLocalPML(t *testing.T) {
	oneNode := map[string]string{"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "HOME": "/home/u"}
	debian := "btl_base_warn_component_unused=0\nmtl = ^ofi\nbtl = ^uct,openib,ofi\npml = ^ucx\nosc = ^ucx,pt2pt\n"
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
		{"one node", true, oneNode, nil, true},
		{"one node, Debian's system file", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": debian}, true},
		{"one rank", true, with(oneNode, "OMPI_COMM_WORLD_SIZE", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "1"), nil, true},
		{"switched off", false, oneNode, nil, false},
		{"two nodes", true, with(oneNode, "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "OMPI_COMM_WORLD_SIZE", "4"), nil, false},
		{"not OpenMPI's mpirun (MPICH, singleton)", true, map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2"}, nil, false},
		{"local size only", true, map[string]string{"OMPI_COMM_WORLD_LOCAL_SIZE": "2"}, nil, false},
		{"user's pml", true, with(oneNode, "OMPI_MCA_pml", "ucx"), nil, false},
		{"user's empty pml", true, with(oneNode, "OMPI_MCA_pml", ""), nil, false},
		{"user's mtl", true, with(oneNode, "OMPI_MCA_mtl", "psm2"), nil, false},
		{"user's btl: pml ob1 is what it implies", true, with(oneNode, "OMPI_MCA_btl", "self,tcp"), nil, true},
		{"mpirun -am", true, with(oneNode, "OMPI_MCA_mca_base_param_file_prefix", "am.conf"), nil, false},
		{"mpirun --tune", true, with(oneNode, "OMPI_MCA_mca_base_envar_file_prefix", "tune.conf"), nil, false},
		{"user's file selects ucx", true, oneNode, map[string]string{"/home/u/.openmpi/mca-params.conf": "# mine\n pml = ucx \n"}, false},
		{"system file excludes ob1", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "pml = ^cm, ob1\n"}, false},
		{"system file selects ob1", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "pml=\"ob1\"\n"}, true},
		{"system file selects an mtl", true, oneNode, map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "mtl = psm2\n"}, false},
		{"OPAL_PREFIX's file", true, with(oneNode, "OPAL_PREFIX", "/opt/ompi"), map[string]string{"/opt/ompi/etc/openmpi-mca-params.conf": "pml = cm\n"}, false},
		{"param_files replaces the default files", true, with(oneNode, "OMPI_MCA_mca_base_param_files", "/a.conf:/b.conf"),
			map[string]string{"/etc/openmpi/openmpi-mca-params.conf": "pml = cm\n", "/b.conf": "pml = ^ucx\n"}, true},
		{"param_files' second file", true, with(oneNode, "OMPI_MCA_mca_base_param_files", "/a.conf:/b.conf"),
			map[string]string{"/b.conf": "pml = cm\n"}, false},
	} {
		lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		read := func(f string) ([]byte, error) {
			if s, ok := c.files[f]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
		name, value := localPML(c.on, lookup, read)
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
	os.Unsetenv("OMPI_MCA_mtl")
	for _, c := range []struct {
		shm, user, want, warning string
	}{
		{"", "", "ob1", ""},
		{" Off", "", "", ""},
		{"maybe", "", "ob1", `GPUMAP_MPI_SHM="maybe" is not a switch (1, true, yes, on; 0, false, no, off): its default, on, applies`},
		{"", "ucx", "ucx", ""},
	} {
		t.Setenv(envSHM, c.shm)
		t.Setenv("OMPI_MCA_pml", c.user)
		if c.user == "" {
			os.Unsetenv("OMPI_MCA_pml")
		}
		w := chooseLocalPML()
		if got := os.Getenv("OMPI_MCA_pml"); got != c.want || w != c.warning {
			t.Errorf("GPUMAP_MPI_SHM=%q, OMPI_MCA_pml=%q: got pml %q, warning %q; want %q, %q", c.shm, c.user, got, w, c.want, c.warning)
		}
	}
}
