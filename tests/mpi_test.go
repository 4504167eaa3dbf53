package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var root = func() string { d, _ := filepath.Abs(".."); return d }()

// need skips unless the mpirun tests were asked for, and fails when they
// were asked for but the programs are missing.
func need(t *testing.T, progs ...string) {
	t.Helper()
	if os.Getenv("GPUMAP_MPI_TESTS") != "1" {
		t.Skip("mpirun tests run with GPUMAP_MPI_TESTS=1 (make test sets it)")
	}
	for _, p := range progs {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Fatalf("%s is missing: run make testprogs (and make testprogs MPI=mpich)", p)
		}
	}
}

// run executes a command under a timeout, killing its whole process group
// when it expires. A run that dies of a signal gets its cores' backtraces
// appended (crash_test.go).
func run(t *testing.T, timeout time.Duration, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if os.Getenv("GPUMAP_TEST_TIMES") != "" { // to measure against the caps
		t.Logf("LAUNCHTIME %.2f s (cap %v): %s %s", time.Since(start).Seconds(), timeout, name, strings.Join(args, " "))
	}
	if ctx.Err() == context.DeadlineExceeded {
		return out.String(), fmt.Errorf("timed out after %v (a hang)", timeout)
	}
	return out.String() + crashReport(start, out.String(), err, name, args), err
}

// The caps on one run, each at least 5x the slowest of its kind measured
// on the shared 2-core machine under load (GPUMAP_TEST_TIMES=1 logs every
// run's time): a run that reaches its cap hangs, it is not slow. One node
// (MPICH, 16 ranks: 9.2 s in 63 runs); mpirun on the two-node cluster
// (102 s in 173 runs under load, 7.1 s in 150 more on an idle machine);
// cluster.sh up, shape and down (25 s in 114 runs; 1.3 s in 110 idle).
const (
	launchCap     = 2 * time.Minute
	clusterCap    = 10 * time.Minute
	clusterCmdCap = 3 * time.Minute
)

var openmpiFlags = []string{"--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
	"--mca", "pml", "ob1", "--mca", "btl", "self,vader,tcp"}

func ompirun(t *testing.T, np int, prog string, args ...string) string {
	t.Helper()
	a := append(append([]string{}, openmpiFlags...), "-np", strconv.Itoa(np), filepath.Join(root, prog))
	out, err := run(t, launchCap, nil, "mpirun.openmpi", append(a, args...)...)
	if err != nil {
		t.Fatalf("mpirun %s: %v\n%s", prog, err, out)
	}
	return out
}

func mpichrun(t *testing.T, np int, prog string, args ...string) string {
	t.Helper()
	a := []string{"-n", strconv.Itoa(np), filepath.Join(root, prog)}
	out, err := run(t, launchCap, nil, "mpiexec.mpich", append(a, args...)...)
	if err != nil {
		t.Fatalf("mpiexec %s: %v\n%s", prog, err, out)
	}
	return out
}

// checkPermutation: every rank reports "<prefix> RANK r NEW n ..." and the
// new ranks are a permutation.
func checkPermutation(t *testing.T, out, prefix string, np int) {
	t.Helper()
	pat := `(?m)^RANK (\d+) NEW (\d+)`
	if prefix != "" {
		pat = `(?m)^` + prefix + ` RANK (\d+) NEW (\d+)`
	}
	re := regexp.MustCompile(pat)
	m := re.FindAllStringSubmatch(out, -1)
	if len(m) != np {
		t.Fatalf("%d of %d ranks reported:\n%s", len(m), np, out)
	}
	seen := map[string]bool{}
	for _, x := range m {
		if seen[x[2]] {
			t.Fatalf("new rank %s given twice:\n%s", x[2], out)
		}
		seen[x[2]] = true
	}
}

func TestOpenMPISingleNode(t *testing.T) {
	need(t, "build/tests/hello", "build/tests/hello_f", "build/tests/hello_f08")
	checkPermutation(t, ompirun(t, 4, "build/tests/hello"), "", 4)
	checkPermutation(t, ompirun(t, 4, "build/tests/hello_f"), "FORTRAN", 4)
	checkPermutation(t, ompirun(t, 4, "build/tests/hello_f08"), "FORTRAN08", 4)
}

func TestMPICHSingleNode(t *testing.T) {
	need(t, "build/mpich/tests/hello", "build/mpich/tests/hello_f", "build/mpich/tests/hello_f08")
	checkPermutation(t, mpichrun(t, 4, "build/mpich/tests/hello"), "", 4)
	checkPermutation(t, mpichrun(t, 4, "build/mpich/tests/hello_f"), "FORTRAN", 4)
	checkPermutation(t, mpichrun(t, 4, "build/mpich/tests/hello_f08"), "FORTRAN08", 4)
}

// The invalid-input table: case -> status every rank must return, and a
// text rank 0's line must contain (the message, or what a valid call did).
// mode is the program's argument (see invalid.c); issue marks the rows
// issue 8 added.
type invalidCase struct {
	name   string
	status int
	want   string
	issue  string
}

// invalidMode is one run: the program (tests/testdata/<prog>.c), its
// arguments, and those under MPICH when they differ (MPICH busy-polls:
// four ranks on two cores make every collective slow).
type invalidMode struct {
	prog        string
	args, mpich []string
	cases       []invalidCase
	ranks       map[string]int // ranks that report a case, where not all do
}

var invalidModes = []invalidMode{
	{"invalid", nil, nil, []invalidCase{
		{"valid", 0, "", ""},
		{"negative-volume", 3, "rank 1: volume to neighbour 0 is negative", ""},
		{"nan-volume", 3, "is NaN", ""},
		{"infinite-volume", 3, "is infinite", ""},
		{"neighbour-out-of-range", 2, "out of range", ""},
		{"negative-neighbour", 2, "out of range", ""},
		{"self-neighbour", 2, "lists itself", ""},
		{"negative-degree", 1, "degree -1 is negative", ""},
		{"null-arrays", 1, "NULL", ""},
		{"null-newcomm", 1, "newcomm is NULL", ""},
		{"comm-null", 4, "MPI_COMM_NULL", ""},
		{"inter-communicator", 4, "inter-communicators", ""},
		{"options-differ-across-ranks", 5, "rank 1: preset default differs from rank 0's strong", ""},
		{"hierarchy-does-not-fit", 6, "9 PEs", ""},
		{"distance-levels-mismatch", 6, "distance 1:10 (options.distance) has 2 levels but the machine has 3 (socket, node, machine)", ""},
		{"hierarchy-malformed", 6, `field 2 ("x") is not an integer`, ""},
		{"options-version", 6, "version 99", ""},
		{"unknown-preset", 6, "unknown preset 42", ""},
		{"exchange-asymmetric", 5, "symmetric", ""},
		{"exchange-volumes-differ", 5, "exchanges", ""},
		{"backend-gpu-without-gpu", 9, "", ""},
		{"size-one-communicator", 0, "", ""},
		{"fortran-handle-garbage", 4, "handle 12345 is not a communicator", "attack"},
		{"hierarchy-1MB", 6, "options.hierarchy: hierarchy \"1:1:1:", "D1"},
		{"crossed-reorders", 0, "new-order changed=2 disabled=0 reordered=1", "D3"},
		{"disabled-by-setenv-keeps-order", 0, "same-order changed=0 disabled=1 reordered=0", "D3"},
		{"disable-differs-across-ranks", 5, "GPUMAP_DISABLE is set on rank 1 but unset on rank 0", "D3"},
		{"disable-malformed", 0, "", "D3"}, // the default (off) applies, with a warning (TestEnvironmentRule)
		{"hierarchy-by-setenv-does-not-fit", 6, "hierarchy 3:3 has 9 PEs", "D3"},
		{"hierarchy-env-differs-across-ranks", 5, "rank 1: hierarchy 2:2 (GPUMAP_HIERARCHY) differs from rank 0's 4", "D3"},
		{"distance-2^40", 0, "new-order changed=2", "D9"},
		{"cost-dbl-max-volume", 3, "the cost of the placement overflows a double", "D10"},
		{"reorder-dbl-max-volume", 3, "the cost of the placement overflows a double", "D10"},
		{"seeds-188904-vs-558220", 5, "rank 1: seed 558220 differs from rank 0's 188904", "D11"},
		{"hierarchy-4-spelled-four-ways", 0, "", "D11"},
		{"optimal-order-kept", 0, "same-order changed=0 disabled=0 reordered=0", "build 2"},
		{"algorithm-im-rejected", 6, "algorithm im (integrated) cannot map one task per process", "build 3"},
		{"algorithm-hm", 0, "new-order changed=2", "build 3"},
		{"algorithm-differs-across-ranks", 5, "rank 2: algorithm hm differs from rank 0's auto", "build 3"},
		{"imbalance-rejected", 6, "imbalance 0.05", "build 3"},
		{"imbalance-zero", 0, "", "build 3"},
		{"verbosity-1", 0, "new-order", "build 3"},
		{"map-graph-valid", 0, "", "D14"},
		{"map-graph-524288-levels", 6, "524288 levels; at most 64 are supported", "D1"},
		{"map-graph-neighbour-out-of-range", 7, "vertex 2: neighbour 4 is out of range [0,3]", "D14"},
		{"map-graph-int64max-vertex-weights", 7, "vertex 0: the vertex weights sum to more than 2305843009213693952", "D7"},
		{"map-graph-int64max-edge-weights", 7, "the edge weights sum to more than 2305843009213693952", "D9"},
		{"map-graph-j-bound", 7, "the largest distance is 1099511627776", "D9"},
		{"map-graph-tiny-on-10000", 0, "", "D8"},
		{"map-graph-tiny-on-2147483647", 0, "", "D8"},
		{"disabled-keeps-order", 0, "same-order changed=0 disabled=1", ""},
	}, nil},
	{"invalid", []string{"lifecycle"}, nil, []invalidCase{
		{"reorder-f-before-init", 10, "newcomm=MPI_COMM_NULL", "D2"},
		{"cost-f-before-init", 10, "", "D2"},
		{"reorder-before-init", 10, "newcomm=MPI_COMM_NULL", "D2"},
		{"cost-before-init", 10, "", "D2"},
		{"reorder-f-after-finalize", 10, "MPI is not initialized", "D2"},
		{"cost-f-after-finalize", 10, "", "D2"},
		{"reorder-after-finalize", 10, "", "D2"},
	}, nil},
	{"invalid", []string{"collectives"}, nil, []invalidCase{
		{"cost-vs-reorder", 5, "rank 1 calls gpumap_cost but rank 0 calls gpumap_reorder", "D4"},
	}, nil},
	attackMode, attackThreads, attackRepeat,
}

// checkInvalid checks one run of the invalid program and adds its rows to
// table. ranks gives the number of ranks that report a case where not
// all np do; the message checked is the lowest reporting rank's.
func checkInvalid(t *testing.T, out string, np int, cases []invalidCase, ranks map[string]int, table *strings.Builder) {
	t.Helper()
	if strings.Contains(out, "ERROR") {
		t.Errorf("a case damaged the communicator or returned a communicator on failure:\n%s", out)
	}
	re := regexp.MustCompile(`(?m)^CASE (\S+) rank (\d+) status (\d+) ?(.*)$`)
	got := map[string]map[string]string{}
	msg := map[string]string{}
	low := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		if got[m[1]] == nil {
			got[m[1]] = map[string]string{}
		}
		got[m[1]][m[2]] = m[3]
		if r, _ := strconv.Atoi(m[2]); len(got[m[1]]) == 1 || r < low[m[1]] {
			low[m[1]], msg[m[1]] = r, m[4]
		}
	}
	for _, c := range cases {
		ranksOf := got[c.name]
		want := np
		if n, ok := ranks[c.name]; ok {
			want = n
		}
		mark := ""
		if c.issue != "" {
			mark = "new, " + c.issue
		}
		if len(ranksOf) != want {
			t.Errorf("%s: %d of %d ranks returned", c.name, len(ranksOf), want)
			fmt.Fprintf(table, "%-36s %-12s %d OF %d RANKS RETURNED\n", c.name, mark, len(ranksOf), want)
			continue
		}
		agree := true
		first := ""
		for r, st := range ranksOf {
			if first == "" {
				first = st
			}
			if st != first {
				agree = false
			}
			if st != strconv.Itoa(c.status) {
				t.Errorf("%s: rank %s returned status %s, want %d (%s)", c.name, r, st, c.status, msg[c.name])
			}
		}
		if !strings.Contains(msg[c.name], c.want) {
			t.Errorf("%s: %q does not contain %q", c.name, msg[c.name], c.want)
		}
		where := fmt.Sprintf("on all %d ranks", want)
		if want != np {
			where = fmt.Sprintf("on its %d ranks", want)
		}
		if !agree {
			where = "RANKS DISAGREE"
		}
		fmt.Fprintf(table, "%-36s %-12s status %2s %s  %s\n", c.name, mark, first, where, firstLine(msg[c.name], 160))
	}
}

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// TestInvalidInputTable runs every mode of the invalid program on both MPI
// stacks, 4 ranks, each run under a timeout.
func TestInvalidInputTable(t *testing.T) {
	need(t, "build/tests/invalid", "build/mpich/tests/invalid", "build/tests/attack", "build/mpich/tests/attack")
	summary := regexp.MustCompile(`gpumap: gpumap_reorder of 4 ranks on .*: J \S+ -> \S+, 2 of 4 ranks moved; map [0-9.]+ s, call [0-9.]+ s`)
	for _, stack := range []string{"openmpi", "mpich"} {
		var table strings.Builder
		for _, m := range invalidModes {
			args := m.args
			if stack == "mpich" && m.mpich != nil {
				args = m.mpich
			}
			var out string
			if stack == "openmpi" {
				out = ompirun(t, 4, "build/tests/"+m.prog, args...)
			} else {
				out = mpichrun(t, 4, "build/mpich/tests/"+m.prog, args...)
			}
			checkInvalid(t, out, 4, m.cases, m.ranks, &table)
			if m.prog == "invalid" && m.args == nil && !summary.MatchString(out) {
				t.Errorf("%s: no verbosity-1 summary with times in:\n%s", stack, out)
			}
		}
		t.Logf("invalid-input table (%s):\n%s", stack, table.String())
		writeResult(t, "invalid-input-"+stack+".txt", table.String())
	}
}

// TestThreadLocalErrors (issue 8, D12): two threads failing at once each
// read their own message.
func TestThreadLocalErrors(t *testing.T) {
	need(t, "build/tests/threads")
	out, err := run(t, time.Minute, nil, filepath.Join(root, "build/tests/threads"), "20000")
	if err != nil || !strings.Contains(out, "THREADS mismatches 0 ") {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(out))
}

func writeResult(t *testing.T, name, text string) {
	dir := filepath.Join(root, "tests", "out")
	if err := os.MkdirAll(dir, 0o755); err == nil {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
}

// --- two nodes ---

func cluster(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, clusterCmdCap, nil, filepath.Join(root, "tests/cluster/cluster.sh"), args...)
	if err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// clusterRun runs mpirun on node0 of the cluster.
func clusterRun(t *testing.T, np int, hosts string, extra []string, prog string, args ...string) string {
	t.Helper()
	a := []string{"exec", "node0", "mpirun.openmpi"}
	a = append(a, openmpiFlags...)
	a = append(a, "-np", strconv.Itoa(np), "-H", hosts,
		"--mca", "plm_rsh_agent", filepath.Join(root, "tests/cluster/rsh"),
		"--mca", "btl_tcp_if_include", "gc0", "--mca", "oob_tcp_if_include", "gc0")
	a = append(a, extra...)
	a = append(a, filepath.Join(root, prog))
	out, err := run(t, clusterCap, nil, filepath.Join(root, "tests/cluster/cluster.sh"), append(a, args...)...)
	if err != nil {
		t.Fatalf("mpirun %s on the cluster: %v\n%s", prog, err, out)
	}
	return out
}

func TestTwoNodeCluster(t *testing.T) {
	need(t, "build/tests/hello", "build/tests/hello_f08", "build/tests/stencil")
	if os.Geteuid() != 0 {
		t.Fatal("the two-node tests need root (network namespaces)")
	}
	cluster(t, "up", "2")
	defer cluster(t, "down")

	out := clusterRun(t, 8, "node0:4,node1:4", []string{"--map-by", "node"}, "build/tests/hello")
	checkPermutation(t, out, "", 8)
	if !strings.Contains(out, "HOST node0") || !strings.Contains(out, "HOST node1") {
		t.Fatalf("ranks did not run on both nodes:\n%s", out)
	}
	checkPermutation(t, clusterRun(t, 8, "node0:4,node1:4", []string{"--map-by", "node"}, "build/tests/hello_f08"), "FORTRAN08", 8)

	// The stencil demo: 2 nodes x 8 ranks started round-robin over the
	// nodes, sockets faked (two per node, PU 0 and PU 1), inter-node
	// bandwidth limited.
	cluster(t, "shape", "--rate", "400mbit")
	xml := filepath.Join(root, "hwdetect/testdata/two-sockets.xml")
	extra := []string{"--map-by", "node", "--bind-to", "core:overload-allowed", "--mca", "topo", "treematch",
		"-x", "HWLOC_XMLFILE=" + xml, "-x", "HWLOC_THISSYSTEM=1"}
	var report strings.Builder
	for _, grid := range [][3]int{{4, 4, 1}, {2, 2, 4}} {
		out := clusterRun(t, 16, "node0:8,node1:8", extra, "build/tests/stencil",
			strconv.Itoa(grid[0]), strconv.Itoa(grid[1]), strconv.Itoa(grid[2]), "3", "1048576", "treematch")
		pl := placements(out)
		for _, name := range []string{"launch", "gpumap", "treematch"} {
			if _, ok := pl[name]; !ok {
				t.Fatalf("no %s placement in:\n%s", name, out)
			}
		}
		// The optimum, computed here by brute force over every assignment
		// of the 16 tasks to 2 nodes x 2 sockets x 4 PEs (D = 1:10:100),
		// times the edge weight 2 MiB (1 MiB each way).
		opt := float64(optimum(gridEdges(grid), 1, 10, 100)) * 2 * 1048576
		if pl["gpumap"].J != opt {
			t.Errorf("%v: J after reordering %.0f, optimum %.0f\n%s", grid, pl["gpumap"].J, opt, out)
		}
		fmt.Fprintf(&report, "grid %dx%dx%d on 2 nodes x 8 ranks (--map-by node, 400 Mbit/s between nodes), optimum J %.0f\n", grid[0], grid[1], grid[2], opt)
		for _, name := range []string{"launch", "gpumap", "treematch"} {
			p := pl[name]
			fmt.Fprintf(&report, "  %-10s J %12.0f (%.3f of launch)  halo exchange %8.2f ms (speedup %.2f)  call %7.2f ms\n",
				name, p.J, p.J/pl["launch"].J, p.Exchange, pl["launch"].Exchange/p.Exchange, p.Call)
		}
	}
	t.Logf("\n%s", report.String())
	writeResult(t, "two-node-stencil.txt", report.String())
}

type placement struct{ J, Exchange, Call float64 }

func placements(out string) map[string]placement {
	re := regexp.MustCompile(`PLACEMENT (\S+) J=(\S+) exchange_ms=(\S+) call_ms=(\S+)`)
	pl := map[string]placement{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		j, _ := strconv.ParseFloat(m[2], 64)
		e, _ := strconv.ParseFloat(m[3], 64)
		c, _ := strconv.ParseFloat(m[4], 64)
		pl[m[1]] = placement{j, e, c}
	}
	return pl
}

// gridEdges lists the edges of an NX x NY x NZ grid, row-major numbering.
func gridEdges(d [3]int) [][2]int {
	var e [][2]int
	id := func(x, y, z int) int { return (x*d[1]+y)*d[2] + z }
	for x := 0; x < d[0]; x++ {
		for y := 0; y < d[1]; y++ {
			for z := 0; z < d[2]; z++ {
				if x+1 < d[0] {
					e = append(e, [2]int{id(x, y, z), id(x+1, y, z)})
				}
				if y+1 < d[1] {
					e = append(e, [2]int{id(x, y, z), id(x, y+1, z)})
				}
				if z+1 < d[2] {
					e = append(e, [2]int{id(x, y, z), id(x, y, z+1)})
				}
			}
		}
	}
	return e
}

// optimum: minimum over all placements of 16 tasks on 2 nodes x 2 sockets
// x 4 PEs of sum over edges of d(same socket)=d1, d(same node)=d2, else d3.
func optimum(edges [][2]int, d1, d2, d3 int) int {
	const n = 16
	best := -1
	// Node 0 holds task 0 and 7 of the other 15.
	for mask := 0; mask < 1<<n; mask++ {
		if mask&1 == 0 || popcount(mask) != 8 {
			continue
		}
		cut := 0
		for _, e := range edges {
			if (mask>>e[0])&1 != (mask>>e[1])&1 {
				cut++
			}
		}
		total := cut*d3 + bestSplit(mask, edges, d1, d2) + bestSplit((1<<n-1)&^mask, edges, d1, d2)
		if best < 0 || total < best {
			best = total
		}
	}
	return best
}

// bestSplit: the cheapest split of one node's 8 tasks into two sockets of 4.
func bestSplit(node int, edges [][2]int, d1, d2 int) int {
	var tasks []int
	for i := 0; i < 16; i++ {
		if node>>i&1 == 1 {
			tasks = append(tasks, i)
		}
	}
	best := -1
	for sub := 0; sub < 1<<8; sub++ {
		if sub&1 == 0 || popcount(sub) != 4 {
			continue
		}
		sock := 0
		for i, tk := range tasks {
			if sub>>i&1 == 1 {
				sock |= 1 << tk
			}
		}
		c := 0
		for _, e := range edges {
			if node>>e[0]&1 == 1 && node>>e[1]&1 == 1 {
				if sock>>e[0]&1 == sock>>e[1]&1 {
					c += d1
				} else {
					c += d2
				}
			}
		}
		if best < 0 || c < best {
			best = c
		}
	}
	return best
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestOptimumByHand(t *testing.T) {
	// 4x4 grid: 4 node-cut edges, 4 socket-cut edges, 16 inside sockets.
	if got := optimum(gridEdges([3]int{4, 4, 1}), 1, 10, 100); got != 16+4*10+4*100 {
		t.Fatalf("4x4 optimum %d, want 456", got)
	}
	if got := optimum(gridEdges([3]int{2, 2, 4}), 1, 10, 100); got != 16+8*10+4*100 {
		t.Fatalf("2x2x4 optimum %d, want 496", got)
	}
}
