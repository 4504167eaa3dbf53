package tests

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// gpumap_map_dist (issue 24), the ParMETIS-shaped C call, and its Fortran
// binding: tests/testdata/dist.c and dist_f.f90. Rank 0 owns no vertices
// in every run.

// distCases is the bad-input table of dist.c ("dist invalid"): every rank
// must return the status, and the lowest rank's message contain the
// text (which leaves out rank numbers that depend on P).
var distCases = []invalidCase{
	{"valid", 0, "", ""},
	{"vtxdist-differs-on-one-rank", 5, "vtxdist[1] = 1 differs from rank 0's 0: every rank must pass the same vtxdist", ""},
	{"vtxdist-not-from-0", 7, "rank 0: vtxdist[0] is 1, not 0", ""},
	{"vtxdist-decreases", 7, "rank 0: vtxdist decreases", ""},
	{"vtxdist-short-of-the-edges", 7, "vertex 0: neighbour", ""},
	{"edge-not-listed-by-the-other-end", 7, "asymmetric edge: vertex 0 lists neighbour 2, but vertex 2 does not list 0", ""},
	{"edge-weight-differs-between-ends", 7, "asymmetric edge weight: vertex 0 gives edge to 1 weight 5, but vertex 1 gives it weight 1", ""},
	{"duplicate-edge", 7, "duplicate edge to neighbour", ""},
	{"self-loop", 7, "self loop", ""},
	{"negative-vertex-weight", 7, "has negative weight -3", ""},
	{"negative-edge-weights", 7, "vertex 0: edge to", ""},
	{"vertex-weights-sum-past-int64", 7, "the vertex weights sum to more than 2305843009213693952 (2^61)", ""},
	{"edge-weights-sum-past-int64", 7, "the edge weights sum to more than 2305843009213693952 (2^61)", ""},
	{"j-past-2^62", 7, "the largest distance is 1099511627776: J could reach their product", ""},
	{"imbalance-differs-on-one-rank", 5, "eps 0.5 differs from rank 0's 0.03", ""},
	{"seed-differs-on-one-rank", 5, "seed 42 differs from rank 0's 0", ""},
	{"preset-differs-on-one-rank", 5, "preset strong differs from rank 0's default", ""},
	{"hierarchy-differs-on-one-rank", 5, "hierarchy 4 differs from rank 0's 2:2", ""},
	{"distance-differs-on-one-rank", 5, "distances 1:100 differ from rank 0's 1:10", ""},
	{"threads-differ", 0, "", ""},
	{"hierarchy-malformed", 6, `rank 0: hierarchy "2:x": field 2 ("x") is not an integer`, ""},
	{"hierarchy-2^31-1-pes", 6, "the machine has 2147483647 PEs; the distributed mapper keeps every PE's load on every rank and maps onto at most 16777216", ""},
	{"imbalance-negative", 6, "rank 0: imbalance -0.5 must be a finite number", ""},
	{"backend-gpu-on-one-rank", 6, "backend 2: gpumap_map_dist maps on the CPU", ""},
	{"options-uninitialised", 6, "options are not initialised", ""},
	{"xadj-null-on-one-rank", 1, "xadj or pe is NULL with", ""},
	{"adjncy-null-on-one-rank", 1, "adjncy is NULL with xadj[", ""},
	{"vtxdist-null-on-one-rank", 1, "vtxdist is NULL", ""},
	{"hierarchy-null", 1, "rank 0: hierarchy or distance is NULL", ""},
	{"xadj-short-on-one-rank", 1, "entries cannot be read", ""},
	{"adjncy-short-on-one-rank", 1, "entries cannot be read", ""},
	{"vtxdist-short", 1, "rank 0: vtxdist (", ""},
	{"xadj-not-from-0", 7, "xadj[0] is 1, not 0", ""},
	{"xadj-negative-end", 7, "= -2: the number of local edge entries must be in [0, 1099511627776]", ""},
	{"pe-read-only-on-one-rank", 1, "cannot be written", ""},
	{"cost-read-only-on-one-rank", 1, "cost: 1 entries cannot be written", ""},
	{"cost-pointer-garbage-on-one-rank", 1, "cost: 1 entries cannot be read", ""},
	{"pe-null", 1, "rank 1: xadj or pe is NULL", ""},
	{"comm-null", 4, "the communicator is MPI_COMM_NULL", ""},
	{"fortran-handle-garbage", 4, "handle 12345 is not a communicator", ""},
	{"reorder-on-one-rank", 5, "rank 1 calls gpumap_reorder but rank 0 calls gpumap_map_dist: every rank must make the same call", ""},
	{"cost-on-rank-0", 5, "rank 1 calls gpumap_map_dist but rank 0 calls gpumap_cost: every rank must make the same call", ""},
	// Issue 24's attack: shapes a conformance check tries, which held.
	{"one-vertex-on-the-last-rank", 0, "", ""},
	{"no-vertices-anywhere", 7, "n = 0: the graph needs at least one vertex", ""},
	{"arity-1-levels", 0, "", ""},
	{"one-pe", 0, "", ""},
	{"eps-0", 0, "", ""},
	{"no-edges-adjncy-null", 0, "", ""},
	{"split-other-half-busy", 0, "", ""},
	{"inter-communicator", 4, "inter-communicators are not supported", ""},
	{"infeasible", 8, "exceeds Lmax", ""},
	{"before-init", 10, "MPI is not initialized (call MPI_Init first) or already finalized", ""},
	{"before-init-fortran-handle", 10, "MPI is not initialized", ""},
	{"after-finalize", 10, "MPI is not initialized (call MPI_Init first) or already finalized", ""},
}

// TestDistInvalidInput runs the table at P = 2 and 4 (OpenMPI) and P = 3
// (MPICH): the same status and message on every rank, no hang (every run
// is under launchCap), the caller's communicator intact.
func TestDistInvalidInput(t *testing.T) {
	need(t, "build/tests/dist", "build/mpich/tests/dist")
	for _, np := range []int{2, 4} {
		var table strings.Builder
		checkInvalid(t, ompirun(t, np, "build/tests/dist", "invalid"), np, distCases, nil, &table)
		if np == 4 {
			t.Logf("gpumap_map_dist bad-input table (OpenMPI, P = 4):\n%s", table.String())
			writeResult(t, "dist-invalid-openmpi.txt", table.String())
		}
	}
	var table strings.Builder
	checkInvalid(t, mpichrun(t, 3, "build/mpich/tests/dist", "invalid"), 3, distCases, nil, &table)
	writeResult(t, "dist-invalid-mpich.txt", table.String())
}

// distLines checks that every rank printed "<prefix> rank r status 0
// J=<j> ... check=ok" with the same J, and returns it.
func distLines(t *testing.T, out, prefix string, np int) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + prefix + ` rank (\d+) status (\d+) J=(-?\d+).* check=(.*)$`)
	m := re.FindAllStringSubmatch(out, -1)
	if len(m) != np {
		t.Fatalf("%d of %d ranks reported:\n%s", len(m), np, out)
	}
	for _, x := range m {
		if x[2] != "0" || x[3] != m[0][3] || strings.TrimSpace(x[4]) != "ok" {
			t.Errorf("rank %s: status %s J=%s (rank %s: J=%s) check=%s\n%s", x[1], x[2], x[3], m[0][1], m[0][3], x[4], out)
		}
	}
	return m[0][3]
}

// TestDistC maps a 16x16 grid (dist.c): the program recomputes J and
// the loads from the gathered mapping and calls twice (the same
// mapping); the grid is also mapped as ParMETIS's problem ("8" / "1",
// where J must be the edge cut). The same P gives the same J on both MPI
// stacks.
func TestDistC(t *testing.T) {
	need(t, "build/tests/dist", "build/mpich/tests/dist")
	var j3 string
	for _, np := range []int{1, 3} {
		out := ompirun(t, np, "build/tests/dist")
		j := distLines(t, out, "DIST", np)
		// The first call asks for verbosity 1: rank 0's summary, once.
		summary := fmt.Sprintf("gpumap: gpumap_map_dist of 256 vertices on %d ranks onto 2:2:2 / 1:10:100: J=%s ", np, j)
		if strings.Count(out, summary) != 1 {
			t.Errorf("P = %d: not once %q in:\n%s", np, summary, out)
		}
		if np == 3 {
			j3 = j
		}
	}
	if j := distLines(t, mpichrun(t, 3, "build/mpich/tests/dist"), "DIST", 3); j != j3 {
		t.Errorf("P = 3: J=%s under MPICH, %s under OpenMPI", j, j3)
	}
}

// TestDistFortran maps a ring from Fortran (dist_f.f90: mpi_f08 and
// INTEGER handles, optional weights, options and cost), recomputing J and
// the loads; a call with another hierarchy on one rank fails on every
// rank with the same message.
func TestDistFortran(t *testing.T) {
	need(t, "build/tests/dist_f", "build/mpich/tests/dist_f")
	bad := regexp.MustCompile(`(?m)^FDIST-BAD rank (\d+) status (\d+) (.*)$`)
	for _, stack := range []string{"openmpi", "mpich"} {
		var out string
		np := 2
		if stack == "openmpi" {
			out = ompirun(t, np, "build/tests/dist_f")
		} else {
			np = 3
			out = mpichrun(t, np, "build/mpich/tests/dist_f")
		}
		distLines(t, out, "FDIST", np)
		m := bad.FindAllStringSubmatch(out, -1)
		want := fmt.Sprintf("rank %d: hierarchy 4:1 differs from rank 0's 2:2", np-1)
		if len(m) != np {
			t.Fatalf("%s: %d of %d ranks reported the bad call:\n%s", stack, len(m), np, out)
		}
		for _, x := range m {
			if x[2] != "5" || !strings.Contains(x[3], want) {
				t.Errorf("%s: rank %s: status %s %q, want 5 and %q", stack, x[1], x[2], x[3], want)
			}
		}
	}
}
