package tests

// The binding surfaces the README promises beyond C and the Fortran
// modules' gpumap_reorder: gpumap_cost from Fortran, a program that takes
// MPI from mpif.h, and gpumap.h in C++ compiled with mpicxx, on both MPI
// stacks.

import (
	"regexp"
	"strings"
	"testing"
)

// TestFortranCostMpifh: rank r sends 1000(r+1) bytes to rank r+1 on 4
// ranks of GPUMAP_HIERARCHY=2:2, GPUMAP_DISTANCE=1:10 (process w is PE w):
// J = 1000*1 + 2000*10 + 3000*1 = 24000, by hand, on every rank. A
// neighbour out of range on rank 1 only is GPUMAP_ERR_NEIGHBOR (2) on
// every rank, and the reordering gives a permutation.
func TestFortranCostMpifh(t *testing.T) {
	for _, s := range stacks {
		t.Run(s.name, func(t *testing.T) {
			need(t, s.prog("cost_f"))
			out := mustLaunch(t, s, 4, []string{"GPUMAP_HIERARCHY=2:2", "GPUMAP_DISTANCE=1:10"}, s.prog("cost_f"))
			if n := len(regexp.MustCompile(`(?m)^COST_F RANK \d STATUS 0 COST 24000\.0$`).FindAllString(out, -1)); n != 4 {
				t.Errorf("%d of 4 ranks report status 0 and cost 24000:\n%s", n, out)
			}
			bad := regexp.MustCompile(`(?m)^COST_F RANK \d BAD STATUS 2 (.*)$`).FindAllStringSubmatch(out, -1)
			if len(bad) != 4 || !strings.Contains(bad[0][1], "out of range") {
				t.Errorf("%d of 4 ranks report GPUMAP_ERR_NEIGHBOR naming the rank out of range:\n%s", len(bad), out)
			}
			checkPermutation(t, out, "MPIFH", 4)
		})
	}
}

// TestCxxHeader: hello_cxx (compiled by make testprogs with mpicxx
// -pedantic -Werror) costs and reorders a ring of 4 ranks; with 1 MiB
// each way over 2:2 at 1:10 the launch placement costs 2*2^21*(1+10)
// = 46137344, which gpumap_cost and the reordering's cost_before agree on.
func TestCxxHeader(t *testing.T) {
	for _, s := range stacks {
		t.Run(s.name, func(t *testing.T) {
			need(t, s.prog("hello_cxx"))
			out := mustLaunch(t, s, 4, []string{"GPUMAP_HIERARCHY=2:2", "GPUMAP_DISTANCE=1:10"}, s.prog("hello_cxx"))
			checkPermutation(t, out, "CXX", 4)
			if n := len(regexp.MustCompile(`(?m)^CXX RANK \d NEW \d COST 46137344 BEFORE 46137344$`).FindAllString(out, -1)); n != 4 {
				t.Errorf("%d of 4 ranks report the launch cost 46137344 twice:\n%s", n, out)
			}
		})
	}
}
