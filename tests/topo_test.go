package tests

// Tests of libgpumap_topo.so, the topology interposer (cabi/topo): the
// conformance programs with and without it on both stacks, the programs
// that must not notice it, and unmodified stencil programs that reach the
// optimal J with it, on the two-node cluster (OpenMPI) and on one node
// (MPICH, machine given by GPUMAP_HIERARCHY).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// topoStack is one MPI stack's build of the interposer and programs.
type topoStack struct {
	name, bin, lib string
}

var topoStacks = []topoStack{
	{"openmpi", "build/tests", "build/lib"},
	{"mpich", "build/mpich/tests", "build/mpich/lib"},
}

// topoRun runs prog on np processes of one node with env, the interposer
// preloaded when preload is set, and returns the output.
func topoRun(t *testing.T, s topoStack, np int, env map[string]string, preload bool, prog string, args ...string) string {
	t.Helper()
	lib := ""
	if preload {
		lib = filepath.Join(root, s.lib, "libgpumap_topo.so")
	}
	start := time.Now()
	out, err := topoExec(t, s, np, env, lib, 2*time.Minute, prog, args...)
	if err != nil {
		t.Fatalf("%s %s %s (preload %v): %v\n%s", s.name, prog, strings.Join(args, " "), preload, err, out)
	}
	if os.Getenv("GPUMAP_TOPO_TIMES") != "" {
		t.Logf("%s %s %s preload=%v: %.1f s", s.name, prog, strings.Join(args, " "), preload, time.Since(start).Seconds())
	}
	return out
}

// topoExec runs prog as topoRun does, with lib preloaded unless it is "",
// and returns its output and whether it failed or ran past timeout.
func topoExec(t *testing.T, s topoStack, np int, env map[string]string, lib string, timeout time.Duration,
	prog string, args ...string) (string, error) {
	t.Helper()
	e := map[string]string{}
	for k, v := range env {
		e[k] = v
	}
	if lib != "" {
		e["LD_PRELOAD"] = lib
	}
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var cmd string
	var a []string
	if s.name == "openmpi" {
		cmd = "mpirun.openmpi"
		a = append(append(a, openmpiFlags...), "-np", strconv.Itoa(np))
		for _, k := range keys {
			a = append(a, "-x", k+"="+e[k])
		}
	} else {
		cmd = "mpiexec.mpich"
		a = []string{"-n", strconv.Itoa(np)}
		for _, k := range keys {
			a = append(a, "-genv", k, e[k])
		}
	}
	a = append(append(a, filepath.Join(root, s.bin, prog)), args...)
	return run(t, timeout, nil, cmd, a...)
}

// topoOutput is what a topology program printed.
type topoOutput struct {
	results  []string       // the R lines, sorted
	perm     map[string]int // "what world" -> new rank
	moved    int            // PERM lines whose rank changed
	loaded   map[string]int // "yes"/"no" -> processes
	fails    []string
	done     bool
	verbose  []string // the interposer's GPUMAP_VERBOSE lines
	reorders int      // of which "reordered"
}

func parseTopo(out string) topoOutput {
	o := topoOutput{perm: map[string]int{}, loaded: map[string]int{}}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "R "):
			o.results = append(o.results, strings.TrimSpace(l))
		case len(f) == 4 && f[0] == "PERM":
			n, _ := strconv.Atoi(f[3])
			o.perm[f[1]+" "+f[2]] = n
			if f[2] != f[3] {
				o.moved++
			}
		case len(f) == 3 && f[0] == "LOADED":
			o.loaded[f[2]]++
		case strings.HasPrefix(l, "FAIL"):
			o.fails = append(o.fails, l)
		case l == "DONE errors 0":
			o.done = true
		case strings.HasPrefix(l, "gpumap topo: "):
			o.verbose = append(o.verbose, l)
			if strings.Contains(l, ", reordered,") {
				o.reorders++
			}
		}
	}
	sort.Strings(o.results)
	return o
}

// sameResults reports the first difference of two sorted R-line lists.
func sameResults(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			return "missing: " + b[i]
		case i >= len(b):
			return "extra: " + a[i]
		case a[i] != b[i]:
			return fmt.Sprintf("%q instead of %q", b[i], a[i])
		}
	}
	return ""
}

func checkClean(t *testing.T, what string, o topoOutput, out string) {
	t.Helper()
	if len(o.fails) > 0 || !o.done {
		t.Fatalf("%s: the program's own checks failed (or it did not finish):\n%s", what, out)
	}
}

var topoConformance = []string{"topo_cart", "topo_shift", "topo_sub", "topo_dgraph_adj", "topo_dgraph",
	"topo_graph", "topo_neighbor", "topo_dup", "topo_errors", "topo_f", "topo_f08", "topo_f_linked"}

// topoFallThrough: runs with the interposer preloaded whose results must
// equal the run without it; unchanged: no rank may move; loads: whether
// libgpumap.so may be loaded; says: what GPUMAP_VERBOSE=1 prints.
var topoFallThrough = []struct {
	what             string
	env              map[string]string
	prog             string
	args             []string
	unchanged, loads bool
	says             string
}{
	{"reorder = 0 (C)", nil, "topo_cart", []string{"0"}, true, false, "reorder = 0, passed to PMPI unchanged"},
	{"reorder = 0 (Fortran)", nil, "topo_f", []string{"0"}, true, false, ""},
	{"GPUMAP_TOPO=0", map[string]string{"GPUMAP_TOPO": "0"}, "topo_cart", nil, true, false, ""},
	{"GPUMAP_TOPO=0 (Fortran)", map[string]string{"GPUMAP_TOPO": "0"}, "topo_f08", nil, true, false, ""},
	// Spelled as GPUMAP_DISABLE may be (it turned nothing off before).
	{"GPUMAP_TOPO=' Off '", map[string]string{"GPUMAP_TOPO": " Off "}, "topo_cart", nil, true, false, ""},
	{"machine does not fit", map[string]string{"GPUMAP_HIERARCHY": "4:4"}, "topo_cart", nil, true, true,
		"passed to PMPI unchanged: gpumap_reorder: invalid options: hierarchy 4:4 has 16 PEs but the communicator has 6 processes"},
	{"no libgpumap.so", map[string]string{"GPUMAP_LIBRARY": "/nonexistent/libgpumap.so"}, "topo_dgraph", nil, true, false,
		"passed to PMPI unchanged: rank 0: cannot load /nonexistent/libgpumap.so: No such file or directory (GPUMAP_LIBRARY)"},
	// The other stack's build (@other): its MPI calls crashed the program,
	// and then it was refused only once loaded, its MPI and Go runtime
	// in the process for good. Now it is never loaded.
	{"libgpumap.so of the other MPI", map[string]string{"GPUMAP_LIBRARY": "@other"}, "topo_dgraph", nil, true, false,
		"/libgpumap.so was built for "},
	{"GPUMAP_CART_WEIGHTS wrong", map[string]string{"GPUMAP_CART_WEIGHTS": "1:2:3"}, "topo_shift", nil, true, false,
		"passed to PMPI unchanged: rank 0: GPUMAP_CART_WEIGHTS=1:2:3 has 3 volumes for 2 dimensions"},
	// topo_sub's 2x3 grid (dimension 0 periodic: each process reaches the
	// other row both ways) on 3 nodes of 2 (d = 1:10), dimensions weighing
	// 5 and 1, J by hand: row-major order 2(3*2*5*10 + 1+10+10+1) = 644,
	// the columns as nodes 2(3*2*5*1 + 4*10) = 140. Its 1x2x3 grid has
	// three dimensions: that call falls through.
	{"GPUMAP_CART_WEIGHTS=5:1", map[string]string{"GPUMAP_CART_WEIGHTS": "5:1"}, "topo_sub", nil, false, true,
		"J 644 -> 140, reordered"},
}

// TestTopoConformance runs every conformance program with and without the
// interposer on 6 processes of one node, the machine given as 3 nodes of 2
// (GPUMAP_HIERARCHY=2:3, so that most graphs of the programs have a
// cheaper order than the world order). The results must be identical
// apart from the rank order, and the interposer must have reordered.
// *_linked programs are linked with -lgpumap_topo instead of preloaded.
// Then the programs that must not notice the interposer: reorder = 0, one
// process, GPUMAP_TOPO=0 (libgpumap.so must not even be loaded).
func TestTopoConformance(t *testing.T) {
	var progs []string
	for _, s := range topoStacks {
		for _, p := range append(append([]string{}, topoConformance...), "topo_stencil") {
			progs = append(progs, filepath.Join(s.bin, p))
		}
	}
	need(t, progs...)
	env := map[string]string{"GPUMAP_HIERARCHY": "2:3"}
	venv := map[string]string{"GPUMAP_HIERARCHY": "2:3", "GPUMAP_VERBOSE": "1"}
	var table strings.Builder
	for _, s := range topoStacks {
		base := map[string]topoOutput{}
		for _, p := range topoConformance {
			baseProg := strings.TrimSuffix(p, "_linked")
			if _, ok := base[baseProg]; !ok {
				out := topoRun(t, s, 6, env, false, baseProg)
				b := parseTopo(out)
				checkClean(t, s.name+" "+baseProg+" without the interposer", b, out)
				if b.moved != 0 || b.loaded["no"] != 6 {
					t.Fatalf("%s %s without the interposer: ranks moved or libgpumap.so loaded:\n%s", s.name, baseProg, out)
				}
				base[baseProg] = b
			}
			linked := baseProg != p
			out := topoRun(t, s, 6, venv, !linked, p)
			o := parseTopo(out)
			checkClean(t, s.name+" "+p+" with the interposer", o, out)
			if d := sameResults(base[baseProg].results, o.results); d != "" {
				t.Errorf("%s %s: results differ with the interposer: %s\n%s", s.name, p, d, out)
			}
			if o.moved == 0 || o.reorders == 0 || o.loaded["yes"] != 6 {
				t.Errorf("%s %s: the interposer did not reorder (%d ranks moved, %d calls reordered):\n%s",
					s.name, p, o.moved, o.reorders, out)
			}
			fmt.Fprintf(&table, "%-8s %-16s %3d results identical, %d of %d constructor calls reordered, %d ranks moved\n",
				s.name, p, len(o.results), o.reorders, len(o.verbose), o.moved)
		}

		// Nothing changes for programs that do not ask for a reordering,
		// and every failure falls through to the PMPI call unchanged.
		for _, c := range topoFallThrough {
			e := map[string]string{"GPUMAP_HIERARCHY": "2:3", "GPUMAP_VERBOSE": "1"}
			for k, v := range c.env {
				if v == "@other" {
					v = filepath.Join(root, topoStacks[1-indexOf(s)].lib, "libgpumap.so")
				}
				e[k] = v
			}
			out := topoRun(t, s, 6, e, true, c.prog, c.args...)
			o := parseTopo(out)
			checkClean(t, s.name+" "+c.what, o, out)
			d := sameResults(base[c.prog].results, o.results)
			if d != "" || (c.unchanged && o.moved != 0) || (!c.loads && o.loaded["no"] != 6) {
				t.Errorf("%s %s: the program noticed the interposer (%s; %d ranks moved; libgpumap.so loaded in %d):\n%s",
					s.name, c.what, d, o.moved, o.loaded["yes"], out)
			}
			if !strings.Contains(strings.Join(o.verbose, "\n"), c.says) {
				t.Errorf("%s %s: GPUMAP_VERBOSE=1 does not say %q:\n%s", s.name, c.what, c.says, out)
			}
			fmt.Fprintf(&table, "%-8s %-28s same results, %d ranks moved, libgpumap.so loaded in %d: %q\n",
				s.name, c.what, o.moved, o.loaded["yes"], c.says)
		}
		out := topoRun(t, s, 1, venv, true, "topo_stencil", "1", "1", "1", "1", "64", "cart")
		if o := parseTopo(out); !o.done || o.loaded["no"] != 1 || !strings.Contains(out, "PLACE t=0 world=0") {
			t.Errorf("%s one process: the program noticed the interposer:\n%s", s.name, out)
		}
		fmt.Fprintf(&table, "%-8s %-24s unchanged: libgpumap.so not loaded\n", s.name, "one process")
	}
	t.Logf("topology conformance:\n%s", table.String())
	writeResult(t, "topo-conformance.txt", table.String())
}

func indexOf(s topoStack) int {
	for i, x := range topoStacks {
		if x.name == s.name {
			return i
		}
	}
	return -1
}

// --- stencils against the optimum ---

// topoPlace: task (rank in the topology communicator) -> where it ran.
type topoPlace struct {
	world, cpu int
	host       string
}

var placeRe = regexp.MustCompile(`(?m)^PLACE t=(\d+) world=(\d+) host=(\S+) cpu=(-?\d+)`)

func topoPlaces(t *testing.T, out string, n int) map[int]topoPlace {
	t.Helper()
	pl := map[int]topoPlace{}
	for _, m := range placeRe.FindAllStringSubmatch(out, -1) {
		task, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[4])
		pl[task] = topoPlace{w, c, m[3]}
	}
	if len(pl) != n {
		t.Fatalf("%d of %d tasks placed:\n%s", len(pl), n, out)
	}
	return pl
}

// placedJ is J of the grid's edges (1 unit each way) with the distance of
// where their tasks ran: dist(a, b).
func placedJ(edges [][2]int, dist func(a, b int) int) int {
	j := 0
	for _, e := range edges {
		j += 2 * dist(e[0], e[1])
	}
	return j
}

var verboseJ = regexp.MustCompile(`gpumap topo: (\S+) on \d+ ranks: J (\S+) -> (\S+), reordered`)

// topoJ returns the interposer's J before and after, and the constructor.
func topoJ(t *testing.T, out string) (string, float64, float64) {
	t.Helper()
	m := verboseJ.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the interposer did not reorder:\n%s", out)
	}
	b, _ := strconv.ParseFloat(m[2], 64)
	a, _ := strconv.ParseFloat(m[3], 64)
	return m[1], b, a
}

var exchangeRe = regexp.MustCompile(`EXCHANGE ms=(\S+)`)

func exchangeMs(out string) float64 {
	m := exchangeRe.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestTopoTwoNode: unmodified stencil programs on the two-node cluster
// (2 nodes x 8 ranks, --map-by node, two sockets per node faked with
// hwloc XML, 400 Mbit/s between nodes), with the interposer preloaded
// (or linked): MPI_Cart_create from C and Fortran and
// MPI_Dist_graph_create_adjacent. J after the reordering, as the
// interposer reports it and as recomputed here from where every task
// ran, must equal the brute-force optimum; the programs check their
// coordinates, shifts, neighbour lists and every halo they receive.
func TestTopoTwoNode(t *testing.T) {
	need(t, "build/tests/topo_stencil", "build/tests/topo_stencil_f", "build/tests/topo_stencil_linked",
		"build/lib/libgpumap_topo.so")
	if os.Geteuid() != 0 {
		t.Fatal("the two-node tests need root (network namespaces)")
	}
	cluster(t, "up", "2")
	defer cluster(t, "down")
	cluster(t, "shape", "--rate", "400mbit")
	xml := filepath.Join(root, "hwdetect/testdata/two-sockets.xml")
	base := []string{"--map-by", "node", "--bind-to", "core:overload-allowed",
		"-x", "HWLOC_XMLFILE=" + xml, "-x", "HWLOC_THISSYSTEM=1", "-x", "GPUMAP_VERBOSE=1"}
	preload := append(append([]string{}, base...), "-x", "LD_PRELOAD="+filepath.Join(root, "build/lib/libgpumap_topo.so"))
	dist := func(pl map[int]topoPlace) func(a, b int) int {
		return func(a, b int) int {
			pa, pb := pl[a], pl[b]
			switch {
			case pa.host != pb.host:
				return 100
			case pa.cpu >= 0 && pa.cpu == pb.cpu: // one PU per faked socket
				return 1
			}
			return 10
		}
	}
	var report strings.Builder
	fmt.Fprintf(&report, "unmodified stencils, 2 nodes x 8 ranks, --map-by node, 400 Mbit/s between nodes\n")
	for _, c := range []struct {
		name   string
		grid   [3]int
		extra  []string
		prog   string
		args   []string
		weight float64 // J units per unit of the program's edges
	}{
		{"C MPI_Cart_create, without the interposer", [3]int{4, 4, 1}, base, "topo_stencil", []string{"3", "1048576", "cart"}, 1},
		{"C MPI_Cart_create", [3]int{4, 4, 1}, preload, "topo_stencil", []string{"3", "1048576", "cart"}, 1},
		{"C MPI_Cart_create", [3]int{2, 2, 4}, preload, "topo_stencil", []string{"3", "1048576", "cart"}, 1},
		{"C MPI_Dist_graph_create_adjacent", [3]int{4, 4, 1}, preload, "topo_stencil", []string{"3", "1048576", "graph"}, 1024},
		{"Fortran MPI_CART_CREATE", [3]int{4, 4, 1}, preload, "topo_stencil_f", []string{"3", "1048576"}, 1},
		{"C MPI_Cart_create, linked with -lgpumap_topo", [3]int{4, 4, 1}, base, "topo_stencil_linked", []string{"1", "65536", "cart"}, 1},
	} {
		args := append([]string{strconv.Itoa(c.grid[0]), strconv.Itoa(c.grid[1]), strconv.Itoa(c.grid[2])}, c.args...)
		out := clusterRun(t, 16, "node0:8,node1:8", c.extra, "build/tests/"+c.prog, args...)
		if strings.Contains(out, "FAIL") || !strings.Contains(out, "DONE errors 0") {
			t.Fatalf("%s %v: the program's checks failed:\n%s", c.name, c.grid, out)
		}
		edges := gridEdges(c.grid)
		opt := float64(optimum(edges, 1, 10, 100)) * 2
		pl := topoPlaces(t, out, 16)
		placed := float64(placedJ(edges, dist(pl)))
		line := fmt.Sprintf("  %-46s %dx%dx%d", c.name, c.grid[0], c.grid[1], c.grid[2])
		if strings.Contains(c.name, "without") {
			if strings.Contains(out, "gpumap topo:") {
				t.Fatalf("the interposer ran without being preloaded:\n%s", out)
			}
			fmt.Fprintf(&report, "%s J %8.0f (optimum %.0f)  halo exchange %8.2f ms (%s x %s bytes)\n",
				line, placed, opt, exchangeMs(out), c.args[0], c.args[1])
			continue
		}
		ctor, before, after := topoJ(t, out)
		if after != opt*c.weight || placed != opt {
			t.Errorf("%s %v: J after %.0f (placement: %.0f), optimum %.0f\n%s", c.name, c.grid, after/c.weight, placed, opt, out)
		}
		fmt.Fprintf(&report, "%s J %8.0f -> %8.0f (optimum %.0f, %s)  halo exchange %8.2f ms (%s x %s bytes)\n",
			line, before/c.weight, placed, opt, ctor, exchangeMs(out), c.args[0], c.args[1])
	}
	t.Logf("\n%s", report.String())
	writeResult(t, "topo-two-node.txt", report.String())
}

// TestTopoMPICHOneNode: the same unmodified programs under MPICH on one
// node, 16 ranks, the machine split by GPUMAP_HIERARCHY=4:2:2 (two
// "nodes" of ranks 0-7 and 8-15, two "sockets" of 4 in each). A 2x8 grid
// in row-major order puts a whole row on each node; the optimum takes
// 2x4 blocks.
func TestTopoMPICHOneNode(t *testing.T) {
	s := topoStacks[1]
	need(t, "build/mpich/tests/topo_stencil", "build/mpich/tests/topo_stencil_f", "build/mpich/lib/libgpumap_topo.so")
	env := map[string]string{"GPUMAP_HIERARCHY": "4:2:2", "GPUMAP_VERBOSE": "1"}
	grid := [3]int{2, 8, 1}
	edges := gridEdges(grid)
	opt := float64(optimum(edges, 1, 10, 100)) * 2
	var report strings.Builder
	fmt.Fprintf(&report, "MPICH, one node, 16 ranks, GPUMAP_HIERARCHY=4:2:2, 2x8 grid, optimum J %.0f\n", opt)
	for _, c := range []struct {
		prog, mode string
		weight     float64
	}{{"topo_stencil", "cart", 1}, {"topo_stencil", "graph", 64}, {"topo_stencil_f", "", 1}} {
		args := []string{"2", "8", "1", "2", "65536"}
		if c.mode != "" {
			args = append(args, c.mode)
		}
		out := topoRun(t, s, 16, env, true, c.prog, args...)
		if strings.Contains(out, "FAIL") || !strings.Contains(out, "DONE errors 0") {
			t.Fatalf("%s %s: the program's checks failed:\n%s", c.prog, c.mode, out)
		}
		ctor, before, after := topoJ(t, out)
		// Process w is PE w of the given hierarchy (one host, no binding).
		pl := topoPlaces(t, out, 16)
		placed := float64(placedJ(edges, func(a, b int) int {
			wa, wb := pl[a].world, pl[b].world
			switch {
			case wa/8 != wb/8:
				return 100
			case wa/4 != wb/4:
				return 10
			}
			return 1
		}))
		if after != opt*c.weight || placed != opt {
			t.Errorf("%s %s: J after %.0f (placement: %.0f), optimum %.0f\n%s", c.prog, c.mode, after/c.weight, placed, opt, out)
		}
		fmt.Fprintf(&report, "  %-32s J %6.0f -> %6.0f\n", ctor, before/c.weight, placed)
	}
	t.Logf("\n%s", report.String())
	writeResult(t, "topo-mpich-one-node.txt", report.String())
}

// topoRegressions: programs reduced from the MPI libraries' own test
// suites and real applications run with the interposer (issue 9's
// conformance check), each from a defect it had. Each runs on both stacks
// without and with the interposer; the results must be identical and the
// program's own checks pass.
var topoRegressions = []struct {
	prog, why string
	np        int
	env       map[string]string
}{
	// MPICH's distgraph1 hung under OpenMPI: the interposer made two
	// communicators from comm_old where MPI makes one, which moved
	// OpenMPI's own tag clash (see the program) onto the call.
	{"topo_nbctag", "a topology call makes one communicator from comm_old", 6, map[string]string{"GPUMAP_HIERARCHY": "2:3"}},
}

func TestTopoRegressions(t *testing.T) {
	var table strings.Builder
	for _, s := range topoStacks {
		for _, c := range topoRegressions {
			need(t, filepath.Join(s.bin, c.prog))
			e := map[string]string{"GPUMAP_VERBOSE": "1"}
			for k, v := range c.env {
				e[k] = v
			}
			out := topoRun(t, s, c.np, c.env, false, c.prog)
			b := parseTopo(out)
			checkClean(t, s.name+" "+c.prog+" without the interposer", b, out)
			out = topoRun(t, s, c.np, e, true, c.prog)
			o := parseTopo(out)
			checkClean(t, s.name+" "+c.prog+" with the interposer", o, out)
			if d := sameResults(b.results, o.results); d != "" {
				t.Errorf("%s %s (%s): results differ with the interposer: %s\n%s", s.name, c.prog, c.why, d, out)
			}
			fmt.Fprintf(&table, "%-8s %-14s %3d results identical (%s)\n", s.name, c.prog, len(o.results), c.why)
		}
	}
	t.Logf("regressions:\n%s", table.String())
}

// TestTopoDistGraphFailure: a process that cannot take its part in
// carrying the adjacency lists of MPI_Dist_graph_create_adjacent to their
// new ranks (GPUMAP_TEST_FAIL makes the fault build of the interposer
// fail its malloc there) must not leave its partner waiting: every rank
// agrees to fall back to MPI's own constructor, and the program's results
// are those of a run without the interposer. Before, that rank skipped
// both exchanges and the program hung.
func TestTopoDistGraphFailure(t *testing.T) {
	for _, s := range topoStacks {
		need(t, filepath.Join(s.bin, "topo_dgraph_adj"), filepath.Join(s.bin, "fault/libgpumap_topo.so"))
		fault := filepath.Join(root, s.bin, "fault/libgpumap_topo.so")
		base := parseTopo(topoRun(t, s, 6, nil, false, "topo_dgraph_adj"))
		env := map[string]string{"GPUMAP_HIERARCHY": "2:3", "GPUMAP_VERBOSE": "1", "GPUMAP_TEST_FAIL": "distgraph_route@4",
			"GPUMAP_LIBRARY": filepath.Join(root, s.lib, "libgpumap.so")}
		out, err := topoExec(t, s, 6, env, fault, time.Minute, "topo_dgraph_adj")
		if err != nil {
			t.Fatalf("%s: a failure on rank 4: %v\n%s", s.name, err, out)
		}
		o := parseTopo(out)
		checkClean(t, s.name+" a failure on rank 4", o, out)
		if d := sameResults(base.results, o.results); d != "" {
			t.Errorf("%s: results differ after the failure: %s\n%s", s.name, d, out)
		}
		if !strings.Contains(out, "passed to PMPI unchanged: carrying the adjacency lists to their new ranks failed") {
			t.Errorf("%s: GPUMAP_VERBOSE=1 does not name the failure:\n%s", s.name, out)
		}
	}
}

// TestTopoMembers: MPI_Cart_create and MPI_Graph_create of a 2x3 grid on
// 8 processes, which the program binds (before MPI_Init) so that world
// ranks 0 and 1 share one socket of hwloc's fake two-socket machine and
// ranks 2-7 the other. J by hand (1 within a socket, 10 across, both
// directions of the grid's 7 edges): row-major 2(4*1 + 3*10) = 68. By
// default the members stay world ranks 0-5, as MPI's own constructors
// make them and programs assume ("if (rank < 6) use(cart)"), and only
// their order changes: ranks 0 and 1 play a column of the grid,
// 2(5*1 + 2*10) = 50. GPUMAP_TOPO_SUBSET=any lets the mapper take the
// whole grid onto ranks 2-7, 2(7*1) = 14, and leave 0 and 1 out. Before,
// the mapper always chose the members.
func TestTopoMembers(t *testing.T) {
	xml := filepath.Join(root, "hwdetect/testdata/two-sockets.xml")
	memberRe := regexp.MustCompile(`(?m)^MEMBER (\w+) (\d+) (-?\d+)$`)
	for _, s := range topoStacks {
		need(t, filepath.Join(s.bin, "topo_members"), filepath.Join(s.lib, "libgpumap_topo.so"))
		for _, c := range []struct {
			subset, members, says string
		}{
			{"", "0 1 2 3 4 5", "J 68 -> 50, reordered"},
			{"any", "2 3 4 5 6 7", "J 68 -> 14, reordered"},
			{"bogus", "0 1 2 3 4 5", "passed to PMPI unchanged: rank 0: GPUMAP_TOPO_SUBSET=bogus: not first (the default) or any"},
		} {
			env := map[string]string{"HWLOC_XMLFILE": xml, "HWLOC_THISSYSTEM": "1", "GPUMAP_VERBOSE": "1"}
			if c.subset != "" {
				env["GPUMAP_TOPO_SUBSET"] = c.subset
			}
			out := topoRun(t, s, 8, env, true, "topo_members", "1", "1,1,0,0,0,0,0,0")
			checkClean(t, s.name+" GPUMAP_TOPO_SUBSET="+c.subset, parseTopo(out), out)
			members := map[string][]string{}
			for _, m := range memberRe.FindAllStringSubmatch(out, -1) {
				if m[3] != "-1" {
					members[m[1]] = append(members[m[1]], m[2])
				}
			}
			for _, call := range []string{"cart", "graph"} {
				got := members[call]
				sort.Slice(got, func(i, j int) bool { a, _ := strconv.Atoi(got[i]); b, _ := strconv.Atoi(got[j]); return a < b })
				if strings.Join(got, " ") != c.members {
					t.Errorf("%s GPUMAP_TOPO_SUBSET=%q %s: members are world ranks %v, want %s\n%s", s.name, c.subset, call, got, c.members, out)
				}
			}
			if n := strings.Count(out, c.says); n != 2 {
				t.Errorf("%s GPUMAP_TOPO_SUBSET=%q: %d of 2 calls say %q:\n%s", s.name, c.subset, n, c.says, out)
			}
		}
	}
}
