package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad flags fail before MPI starts on every rank with exitUsage, and only
// rank 0 (by the launcher's environment, OpenMPI's and MPICH's) says why:
// every rank printed the message (issue 24: 2-3 copies at P=4).
func TestFlagErrorsOnce(t *testing.T) {
	base := []string{"map", "-g", "x.graph", "-h", "4:4", "-d", "1:10", "-m", "x.map"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"threads", []string{"-t", "0"}, "-t 0: thread count"},
		{"eps", []string{"-e", "NaN"}, "-e NaN: the imbalance"},
		{"hierarchy", []string{"-h", "4:x"}, "gpumap-mpi: "},
		{"lengths", []string{"-d", "1:10:100"}, "gpumap-mpi: "},
		{"flag", []string{"-nosuch"}, "flag provided but not defined"},
		{"command", nil, "usage:"},
	} {
		args := append(append([]string{}, base...), c.args...)
		if c.args == nil {
			args = []string{"mop"}
		}
		for _, rank := range []string{"0", "3"} {
			t.Run(c.name+"/rank"+rank, func(t *testing.T) {
				// The build's stack reads one pair.
				t.Setenv("OMPI_COMM_WORLD_RANK", rank)
				t.Setenv("OMPI_COMM_WORLD_SIZE", "4")
				t.Setenv("PMI_RANK", rank)
				t.Setenv("PMI_SIZE", "4")
				var out, errb bytes.Buffer
				code := run(args, &out, &errb)
				if code != exitUsage {
					t.Errorf("exit %d, want %d", code, exitUsage)
				}
				got := errb.String()
				switch {
				case rank != "0" && got != "":
					t.Errorf("rank %s printed %q", rank, got)
				case rank == "0" && !strings.Contains(got, c.want):
					t.Errorf("rank 0 printed %q, want %q in it", got, c.want)
				}
			})
		}
	}
}

// An MPMD launch's other command lines print their flag errors once,
// from their first rank: `mpirun -np 1 gpumap-mpi ... : -np 2 gpumap-mpi
// ... -t 0` exited 2 on ranks 1 and 2 saying nothing (the review).
func TestAppFirst(t *testing.T) {
	env := func(app, sizes string) func(string) (string, bool) {
		return func(name string) (string, bool) {
			switch name {
			case "OMPI_MCA_orte_app_num":
				return app, app != ""
			case "OMPI_APP_CTX_NUM_PROCS":
				return sizes, sizes != ""
			}
			return "", false
		}
	}
	for _, c := range []struct {
		app, sizes string
		rank       int
		want       bool
	}{
		{"1", "1 2", 1, true},
		{"1", "1 2", 2, false},
		{"2", "2 3 4", 5, true},
		{"2", "2 3 4", 6, false},
		{"0", "1 2", 0, false}, // rank 0 prints anyway
		{"", "1 2", 1, false},  // no app context: hydra
		{"1", "", 1, false},
		{"3", "1 2", 3, false},
		{"1", "x 2", 1, false},
	} {
		if got := appFirst(env(c.app, c.sizes), c.rank); got != c.want {
			t.Errorf("app %q sizes %q rank %d: %v, want %v", c.app, c.sizes, c.rank, got, c.want)
		}
	}
}
