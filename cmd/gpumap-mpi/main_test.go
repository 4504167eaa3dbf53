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
