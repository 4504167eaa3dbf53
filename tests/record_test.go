package tests

// Record, then place: libgpumap_record.so preloaded into programs that do
// not know gpumap, and gpumap place turning the recorded pattern into a
// rankfile for the next launch.

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/record"
)

// stack is one MPI implementation with the recorder built for it.
type stack struct {
	name, dir string // build directory: build or build/mpich
}

var stacks = []stack{{"openmpi", "build"}, {"mpich", "build/mpich"}}

func (s stack) recorder() string { return filepath.Join(root, s.dir, "lib/libgpumap_record.so") }
func (s stack) prog(p string) string {
	return filepath.Join(s.dir, "tests", p)
}

// launch runs prog on np ranks of one node, with env (NAME=value) given to
// every rank through the launcher.
func (s stack) launch(t *testing.T, np int, env []string, launcherArgs []string, prog string, args ...string) (string, error) {
	t.Helper()
	var a []string
	name := "mpiexec.mpich"
	if s.name == "openmpi" {
		name = "mpirun.openmpi"
		a = append(a, openmpiFlags...)
		for _, e := range env {
			a = append(a, "-x", e)
		}
	} else {
		for _, e := range env {
			k, v, _ := strings.Cut(e, "=")
			a = append(a, "-genv", k, v)
		}
	}
	a = append(a, launcherArgs...)
	a = append(append(a, "-n", strconv.Itoa(np), filepath.Join(root, prog)), args...)
	return run(t, 2*time.Minute, nil, name, a...)
}

func mustLaunch(t *testing.T, s stack, np int, env []string, prog string, args ...string) string {
	t.Helper()
	out, err := s.launch(t, np, env, nil, prog, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", s.name, prog, err, out)
	}
	return out
}

// directed is traffic a -> b: bytes and messages.
type directed map[[2]int][2]int64

// undirectedEdges turns directed traffic into the edges of the recorded
// graphs: {a,b} with a < b, bytes (or messages) of both directions.
func (d directed) undirected(which int) map[[2]int]int64 {
	e := map[[2]int]int64{}
	for k, v := range d {
		if v[which] == 0 {
			continue
		}
		a, b := min(k[0], k[1]), max(k[0], k[1])
		e[[2]int{a, b}] += v[which]
	}
	return e
}

func graphEdges(g *graph.Graph) map[[2]int]int64 {
	e := map[[2]int]int64{}
	for v := 0; v < g.N(); v++ {
		for i := g.XAdj[v]; i < g.XAdj[v+1]; i++ {
			if u := int(g.Adj[i]); u > v {
				e[[2]int{v, u}] = g.W(i)
			}
		}
	}
	return e
}

// checkRecorded compares the byte (and, when msgs is not "", message)
// graphs the recorder wrote with the traffic the program declared.
func checkRecorded(t *testing.T, what, bytesFile, msgsFile string, want directed, ranks int) {
	t.Helper()
	g, hdr, err := record.ReadFile(bytesFile)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if g.N() != ranks || hdr.Ranks != ranks || len(hdr.RankHost) != ranks {
		t.Fatalf("%s: %d vertices, header %+v, want %d ranks", what, g.N(), hdr, ranks)
	}
	if got, exp := graphEdges(g), want.undirected(0); !reflect.DeepEqual(got, exp) {
		t.Errorf("%s: recorded bytes per edge\n  %v\nwant\n  %v", what, got, exp)
	}
	if msgsFile != "" {
		m, _, err := record.ReadFile(msgsFile)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got, exp := graphEdges(m), want.undirected(1); !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: recorded messages per edge\n  %v\nwant\n  %v", what, got, exp)
		}
	}
}

var expectLine = regexp.MustCompile(`(?m)^EXPECT (\d+) (\d+) (\d+) (\d+)$`)

func expectations(t *testing.T, out string) directed {
	t.Helper()
	d := directed{}
	for _, m := range expectLine.FindAllStringSubmatch(out, -1) {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		by, _ := strconv.ParseInt(m[3], 10, 64)
		ms, _ := strconv.ParseInt(m[4], 10, 64)
		d[[2]int{a, b}] = [2]int64{by, ms}
	}
	if len(d) == 0 || !strings.Contains(out, "CALLS ") {
		t.Fatalf("the program declared no traffic:\n%s", out)
	}
	return d
}

// Every wrapped call, C and Fortran (use mpi, use mpi_f08), both stacks:
// the recorded bytes and messages per pair of world ranks are exactly
// what the programs say they sent, through reordered, topology, inter-
// and freed-then-reused communicators.
func TestRecordEveryCall(t *testing.T) {
	var progs []string
	for _, s := range stacks {
		for _, p := range []string{"record_calls", "record_f", "record_f08"} {
			progs = append(progs, s.prog(p))
		}
		progs = append(progs, strings.TrimPrefix(s.recorder(), root+"/"))
	}
	need(t, progs...)
	for _, s := range stacks {
		for _, p := range []string{"record_calls", "record_f", "record_f08"} {
			dir := t.TempDir()
			bf, mf := filepath.Join(dir, "bytes.graph"), filepath.Join(dir, "msgs.graph")
			out := mustLaunch(t, s, 4, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf, "GPUMAP_RECORD_MESSAGES=" + mf}, s.prog(p))
			checkRecorded(t, s.name+" "+p, bf, mf, expectations(t, out), 4)
			if m := regexp.MustCompile(`EXPECT_SELF (\d+) (\d+)`).FindStringSubmatch(out); m != nil {
				text, _ := os.ReadFile(bf)
				if want := fmt.Sprintf("(to self: %s bytes in %s messages)", m[1], m[2]); !strings.Contains(string(text), want) {
					t.Errorf("%s %s: no %q in the header:\n%s", s.name, p, want, text)
				}
			}
		}
	}
}

var resultLine = regexp.MustCompile(`(?m)^RESULT .*$`)

func results(t *testing.T, out string, ranks int) []string {
	t.Helper()
	r := resultLine.FindAllString(out, -1)
	if len(r) != ranks {
		t.Fatalf("%d RESULT lines for %d ranks:\n%s", len(r), ranks, out)
	}
	return r
}

// gridTraffic is what stencil_world sends: halo bytes each way per grid
// edge, once per round (iterations plus the warm-up).
func gridTraffic(grid [3]int, halo, rounds int64) directed {
	d := directed{}
	for _, e := range gridEdges(grid) {
		d[[2]int{e[0], e[1]}] = [2]int64{halo * rounds, rounds}
		d[[2]int{e[1], e[0]}] = [2]int64{halo * rounds, rounds}
	}
	return d
}

// With the recorder preloaded, a program's results are those of a run
// without it, on both stacks, for one process too; a recorder that cannot
// write or cannot find libgpumap.so says so and changes nothing either.
// MPICH also relaunches from a machine file that gpumap place wrote.
func TestRecordLeavesProgramsAlone(t *testing.T) {
	need(t, "build/tests/stencil_world", "build/mpich/tests/stencil_world", "bin/gpumap",
		"build/lib/libgpumap_record.so", "build/mpich/lib/libgpumap_record.so")
	for _, s := range stacks {
		for _, np := range []int{1, 4} {
			grid := [3]int{np / 2, 2, 1}
			if np == 1 {
				grid = [3]int{1, 1, 1}
			}
			args := []string{strconv.Itoa(grid[0]), strconv.Itoa(grid[1]), "1", "2", "1000"}
			plain := results(t, mustLaunch(t, s, np, nil, s.prog("stencil_world"), args...), np)
			dir := t.TempDir()
			bf := filepath.Join(dir, "pattern.graph")
			out := mustLaunch(t, s, np, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf}, s.prog("stencil_world"), args...)
			if got := results(t, out, np); !reflect.DeepEqual(got, plain) {
				t.Errorf("%s, %d ranks: results with the recorder\n%v\nwithout\n%v", s.name, np, got, plain)
			}
			checkRecorded(t, fmt.Sprintf("%s stencil %v", s.name, grid), bf, "", gridTraffic(grid, 1000, 3), np)

			// A pattern that cannot be written: a message, nothing else.
			out = mustLaunch(t, s, np, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + filepath.Join(dir, "no/such/dir/p.graph")},
				s.prog("stencil_world"), args...)
			if got := results(t, out, np); !reflect.DeepEqual(got, plain) || !strings.Contains(out, "gpumap record: rank 0: open ") {
				t.Errorf("%s, %d ranks, unwritable pattern: results changed or no message:\n%s", s.name, np, out)
			}
		}
		// The recorder without libgpumap.so next to it.
		lone := filepath.Join(t.TempDir(), "libgpumap_record.so")
		data, err := os.ReadFile(s.recorder())
		if err != nil || os.WriteFile(lone, data, 0o755) != nil {
			t.Fatal(err)
		}
		out := mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + lone}, s.prog("stencil_world"), "2", "1", "1", "1", "10")
		if !strings.Contains(out, "gpumap record: rank 0: cannot load") || len(resultLine.FindAllString(out, -1)) != 2 {
			t.Errorf("%s: recorder without libgpumap.so:\n%s", s.name, out)
		}
		// ... which GPUMAP_LIBRARY names.
		bf := filepath.Join(filepath.Dir(lone), "pattern.graph")
		out = mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + lone, "GPUMAP_RECORD=" + bf,
			"GPUMAP_LIBRARY=" + filepath.Join(filepath.Dir(s.recorder()), "libgpumap.so")}, s.prog("stencil_world"), "2", "1", "1", "1", "10")
		checkRecorded(t, s.name+" GPUMAP_LIBRARY", bf, "", gridTraffic([3]int{2, 1, 1}, 10, 2), 2)
	}

	// MPICH: record, place onto this host with a machine file, relaunch.
	host, _ := os.Hostname()
	s := stacks[1]
	dir := t.TempDir()
	bf, mf := filepath.Join(dir, "pattern.graph"), filepath.Join(dir, "machines")
	mustLaunch(t, s, 4, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf}, s.prog("stencil_world"), "2", "2", "1", "1", "100")
	if out, err := run(t, time.Minute, nil, filepath.Join(root, "bin/gpumap"), "place", "-q", "-g", bf, "--hosts", host+":4", "--machinefile", mf); err != nil {
		t.Fatalf("gpumap place: %v\n%s", err, out)
	}
	out, err := s.launch(t, 4, nil, []string{"-f", mf}, s.prog("stencil_world"), "2", "2", "1", "1", "100", mf)
	if err != nil || strings.Count(out, " ok\n") != 4 || strings.Contains(out, "WRONG") {
		t.Errorf("MPICH from a machine file (%v):\n%s", err, out)
	}
}

// The two-node record-then-place test: an MPI_COMM_WORLD stencil started
// with --map-by node is recorded, placed with gpumap place, and relaunched
// from the rankfile; every rank checks its host, J of the placement is the
// brute-force optimum, and the results are the same in both runs.
func TestRecordThenPlaceTwoNodes(t *testing.T) {
	need(t, "build/tests/stencil_world", "build/lib/libgpumap_record.so", "bin/gpumap")
	if os.Geteuid() != 0 {
		t.Fatal("the two-node tests need root (network namespaces)")
	}
	cluster(t, "up", "2")
	defer cluster(t, "down")
	cluster(t, "shape", "--rate", "400mbit")
	const halo, iterations = 1 << 20, 3
	var report strings.Builder
	for _, grid := range [][3]int{{4, 4, 1}, {2, 2, 4}} {
		dir := t.TempDir()
		pattern, rankfile := filepath.Join(dir, "pattern.graph"), filepath.Join(dir, "rankfile")
		args := []string{strconv.Itoa(grid[0]), strconv.Itoa(grid[1]), strconv.Itoa(grid[2]), strconv.Itoa(iterations), strconv.Itoa(halo)}
		recorded := clusterRun(t, 16, "node0:8,node1:8", []string{"--map-by", "node",
			"-x", "LD_PRELOAD=" + filepath.Join(root, "build/lib/libgpumap_record.so"), "-x", "GPUMAP_RECORD=" + pattern},
			"build/tests/stencil_world", args...)
		checkRecorded(t, fmt.Sprintf("stencil %v", grid), pattern, "", gridTraffic(grid, halo, iterations+1), 16)

		out, err := run(t, time.Minute, nil, filepath.Join(root, "bin/gpumap"), "place", "-q", "-g", pattern,
			"--hosts", "node0:8,node1:8", "-h", "4:2", "-d", "1:10:100", "--rankfile", rankfile)
		if err != nil {
			t.Fatalf("gpumap place: %v\n%s", err, out)
		}
		js := map[string]float64{}
		for _, m := range regexp.MustCompile(`(?m)^J_(\w+)=(\d+)$`).FindAllStringSubmatch(out, -1) {
			js[m[1]], _ = strconv.ParseFloat(m[2], 64)
		}
		// Brute force over 2 nodes x 2 sockets x 4 slots; an edge weighs
		// both directions of every round.
		opt := float64(optimum(gridEdges(grid), 1, 10, 100)) * 2 * halo * (iterations + 1)
		if js["placed"] != opt || js["recorded"] != js["map_by_node"] {
			t.Errorf("%v: J placed %.0f, optimum %.0f; recorded %.0f, --map-by node %.0f\n%s", grid, js["placed"], opt, js["recorded"], js["map_by_node"], out)
		}

		xml := filepath.Join(root, "tests/testdata/eight-cores.xml")
		placed := clusterRun(t, 16, "node0:8,node1:8", []string{"--rankfile", rankfile, "--mca", "hwloc_base_topo_file", xml},
			"build/tests/stencil_world", append(args, rankfile)...)
		if n := len(regexp.MustCompile(`(?m)^PLACED \d+ \S+ ok$`).FindAllString(placed, -1)); n != 16 {
			t.Errorf("%v: %d of 16 ranks run where the rankfile says:\n%s", grid, n, placed)
		}
		if a, b := results(t, recorded, 16), results(t, placed, 16); !reflect.DeepEqual(a, b) {
			t.Errorf("%v: results differ between the recorded and the placed run", grid)
		}
		before, after := haloMs(t, recorded), haloMs(t, placed)
		fmt.Fprintf(&report, "grid %dx%dx%d, 16 ranks on 2 nodes x 8 slots (-h 4:2 -d 1:10:100), 400 Mbit/s between nodes, optimum J %.0f\n",
			grid[0], grid[1], grid[2], opt)
		for _, n := range []string{"map_by_slot", "map_by_node", "placed"} {
			fmt.Fprintf(&report, "  J %-12s %12.0f (%.3f of --map-by node)\n", n, js[n], js[n]/js["map_by_node"])
		}
		fmt.Fprintf(&report, "  halo exchange: recorded run (--map-by node, recorder preloaded) %.2f ms, placed run (rankfile) %.2f ms (speedup %.2f)\n",
			before, after, before/after)
	}
	t.Logf("\n%s", report.String())
	writeResult(t, "record-then-place.txt", report.String())
}

func haloMs(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`HALO exchange_ms=(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no HALO line in:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestRecordHostileEnvironment: what a careless user may set around the
// recorder changes nothing but the message: GPUMAP_RECORD_MESSAGES naming
// the byte pattern's file (it overwrote it), GPUMAP_LIBRARY naming the
// other stack's libgpumap.so (its MPI calls crashed the program, or failed
// by chance), and an attribute on MPI_COMM_WORLD whose copy callback fails
// (the recorder's MPI_Comm_dup at MPI_Finalize aborted the program).
func TestRecordHostileEnvironment(t *testing.T) {
	need(t, "build/tests/stencil_world", "build/mpich/tests/stencil_world", "build/tests/attack", "build/mpich/tests/attack",
		"build/lib/libgpumap_record.so", "build/mpich/lib/libgpumap_record.so")
	args := []string{"2", "1", "1", "1", "10"}
	for i, s := range stacks {
		dir := t.TempDir()
		bf := filepath.Join(dir, "pattern.graph")
		out := mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf,
			"GPUMAP_RECORD_MESSAGES=" + filepath.Join(dir, ".", "pattern.graph")}, s.prog("stencil_world"), args...)
		if !strings.Contains(out, "the file GPUMAP_RECORD wrote: message counts not written") {
			t.Errorf("%s: GPUMAP_RECORD_MESSAGES = GPUMAP_RECORD: no message:\n%s", s.name, out)
		}
		checkRecorded(t, s.name+" GPUMAP_RECORD_MESSAGES = GPUMAP_RECORD", bf, "", gridTraffic([3]int{2, 1, 1}, 10, 2), 2)

		other := filepath.Join(root, stacks[1-i].dir, "lib/libgpumap.so")
		out = mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + filepath.Join(dir, "other.graph"),
			"GPUMAP_LIBRARY=" + other}, s.prog("stencil_world"), args...)
		if !strings.Contains(out, "gpumap record: rank 0: "+other+" was built for ") || len(resultLine.FindAllString(out, -1)) != 2 {
			t.Errorf("%s: GPUMAP_LIBRARY of the other stack:\n%s", s.name, out)
		}

		bf = filepath.Join(dir, "attribute.graph")
		out = mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf}, s.prog("attack"), "world-attribute")
		if strings.Count(out, "CASE world-attribute") != 2 {
			t.Errorf("%s: a failing attribute copy callback on MPI_COMM_WORLD:\n%s", s.name, out)
		}
		checkRecorded(t, s.name+" attribute on MPI_COMM_WORLD", bf, "", directed{{0, 1}: {4, 1}, {1, 0}: {4, 1}}, 2)
	}
}

// The recorder under MPI_THREAD_MULTIPLE: 2 ranks x 4 threads, each
// creating, using and freeing its own communicators while the others send
// (tests/testdata/record_threads.c), 20 runs per stack, each under the
// launcher's timeout: no hang, and every message counted, by its loop
// counts: per direction and iteration, 16 messages and 8(1+2+3+4) +
// 4 x (16+16+24) = 304 bytes.
func TestRecordThreads(t *testing.T) {
	need(t, "build/tests/record_threads", "build/mpich/tests/record_threads",
		"build/lib/libgpumap_record.so", "build/mpich/lib/libgpumap_record.so")
	const iters, runs = 5, 20
	want := directed{{0, 1}: {304 * iters, 16 * iters}, {1, 0}: {304 * iters, 16 * iters}}
	for _, s := range stacks {
		dir := t.TempDir()
		bf, mf := filepath.Join(dir, "bytes.graph"), filepath.Join(dir, "msgs.graph")
		for i := 0; i < runs; i++ {
			os.Remove(bf)
			out := mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf, "GPUMAP_RECORD_MESSAGES=" + mf},
				s.prog("record_threads"), strconv.Itoa(iters))
			if !strings.Contains(out, "THREADS ok") || strings.Contains(out, "not recorded") {
				t.Fatalf("%s run %d:\n%s", s.name, i, out)
			}
			checkRecorded(t, fmt.Sprintf("%s run %d", s.name, i), bf, mf, want, 2)
			if t.Failed() {
				return
			}
		}
	}
}

// The recorder makes no MPI call while holding its own lock
// (cabi/record/testdata/lockorder.c): a thread's first send on a new
// communicator, whose translation calls PMPI_Comm_group under a stand-in
// for MPICH's global lock, against a thread freeing a known communicator
// while holding that lock. The old recorder, which held its mutex across
// the call and took it in the delete callback, deadlocked (broken by a
// 5 s timeout in the program) on both stacks.
func TestRecordLockOrder(t *testing.T) {
	need(t, "build/tests/record_lockorder", "build/mpich/tests/record_lockorder")
	for _, s := range stacks {
		out, err := s.launch(t, 2, nil, nil, s.prog("record_lockorder"))
		if err != nil || strings.Count(out, "LOCKORDER ok") != 2 {
			t.Errorf("%s: %v\n%s", s.name, err, out)
		}
	}
}

// The counting core alone (cabi/record/testdata/unit.c, record.c linked
// in, allocations failing on demand): exact counts of lost messages and of
// the merge of per-thread tables, on both stacks.
func TestRecordCountingCore(t *testing.T) {
	need(t, "build/tests/record_unit", "build/mpich/tests/record_unit")
	for _, s := range stacks {
		out, err := s.launch(t, 2, nil, nil, s.prog("record_unit"))
		if err != nil || strings.Contains(out, "FAIL") || strings.Count(out, " ok\n") != 60 {
			t.Errorf("%s: %v\n%s", s.name, err, out)
		}
	}
}

// mpi4Calls are MPI 4 calls the recorder wraps, one or two of each family
// that cabi/record/probe.sh tests for.
var mpi4Calls = []string{"MPI_Send_c", "MPI_Sendrecv_replace_c", "MPI_Ineighbor_alltoallw_c", "MPI_Neighbor_alltoall_init",
	"MPI_Neighbor_allgatherv_init_c", "MPI_Isendrecv", "MPI_Isendrecv_replace_c", "MPI_Psend_init"}

// dynamicSymbols lists what a shared library defines (nm -D).
func dynamicSymbols(t *testing.T, lib string) map[string]bool {
	t.Helper()
	out, err := run(t, time.Minute, nil, "nm", "-D", "--defined-only", lib)
	if err != nil {
		t.Fatalf("nm %s: %v\n%s", lib, err, out)
	}
	syms := map[string]bool{}
	for _, ln := range strings.Split(out, "\n") {
		if f := strings.Fields(ln); len(f) == 3 {
			syms[f[2]] = true
		}
	}
	return syms
}

// The recorder wraps an MPI 4 call exactly when its MPI library has it,
// whatever MPI_VERSION says: on both stacks as built, and built against
// MPICH with an mpi.h that reports MPI 3.1 as OpenMPI 5 does (which ships
// MPI_Isendrecv and the persistent collectives all the same).
func TestRecordMPI4WrappersFollowTheLibrary(t *testing.T) {
	need(t, "build/lib/libgpumap_record.so", "build/mpich/lib/libgpumap_record.so")
	for _, s := range stacks {
		ldd, err := run(t, time.Minute, nil, "ldd", s.recorder())
		m := regexp.MustCompile(`(?m)^\s*libmpi(ch)?\.so\S* => (\S+)`).FindStringSubmatch(ldd)
		if err != nil || m == nil {
			t.Fatalf("%s: no MPI library in ldd %s: %v\n%s", s.name, s.recorder(), err, ldd)
		}
		mpi, rec := dynamicSymbols(t, m[2]), dynamicSymbols(t, s.recorder())
		for _, f := range mpi4Calls {
			if rec[f] != mpi["P"+f] {
				t.Errorf("%s: %s has P%s: %v, the recorder wraps %s: %v", s.name, m[2], f, mpi["P"+f], f, rec[f])
			}
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mpi.h"), []byte("#include_next <mpi.h>\n#undef MPI_VERSION\n#define MPI_VERSION 3\n#undef MPI_SUBVERSION\n#define MPI_SUBVERSION 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	have, err := run(t, 2*time.Minute, nil, "cabi/record/probe.sh", "mpicc.mpich", "-I"+dir)
	if err != nil {
		t.Fatalf("probe.sh: %v\n%s", err, have)
	}
	if err := os.WriteFile(filepath.Join(dir, "have.h"), []byte(have), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "librec.so")
	src, _ := filepath.Glob(filepath.Join(root, "cabi/record/*.c"))
	args := append([]string{"-I" + dir, "-include", filepath.Join(dir, "have.h"), "-Icabi/dl", "-fPIC", "-shared", "-o", lib,
		"cabi/dl/gpumap_dl.c"}, src...)
	if out, err := run(t, 2*time.Minute, nil, "mpicc.mpich", append(args, "-ldl", "-lpthread")...); err != nil {
		t.Fatalf("building the recorder against an MPI 3.1 mpi.h: %v\n%s", err, out)
	}
	rec := dynamicSymbols(t, lib)
	for _, f := range mpi4Calls {
		if !rec[f] {
			t.Errorf("built against MPICH reporting MPI 3.1: no wrapper of %s", f)
		}
	}
}

// fortranKey reduces a name of a Fortran binding of libmpi_mpifh
// (mpi_send_, mpi_send, mpi_send__, MPI_SEND, MPI_Send_f, MPI_Send_f08) or
// its back end (ompi_send_f) to the call's name in lower case ("send"); ""
// for anything else.
func fortranKey(sym string) string {
	s := strings.ToLower(sym)
	switch {
	case strings.HasPrefix(s, "ompi_"):
		s = strings.TrimPrefix(s, "ompi_")
	case strings.HasPrefix(s, "mpi_"):
		s = strings.TrimPrefix(s, "mpi_")
	default:
		return ""
	}
	for _, suffix := range []string{"_f08", "_f", "__", "_"} {
		if strings.HasSuffix(s, suffix) {
			return strings.TrimSuffix(s, suffix)
		}
	}
	return s
}

// OpenMPI's Fortran bindings are wrapped under every name libmpi_mpifh
// exports for them, as the topology interposer's are: each name counts
// (record_fnames calls them from C, as a program compiled with another
// name mangling does), and for every binding the recorder wraps, it wraps
// all of the library's names for it.
func TestRecordFortranNames(t *testing.T) {
	s := stacks[0]
	need(t, s.prog("record_fnames"), strings.TrimPrefix(s.recorder(), root+"/"))
	dir := t.TempDir()
	bf, mf := filepath.Join(dir, "bytes.graph"), filepath.Join(dir, "msgs.graph")
	out := mustLaunch(t, s, 2, []string{"LD_PRELOAD=" + s.recorder(), "GPUMAP_RECORD=" + bf, "GPUMAP_RECORD_MESSAGES=" + mf}, s.prog("record_fnames"))
	checkRecorded(t, "record_fnames", bf, mf, expectations(t, out), 2)

	ldd, _ := run(t, time.Minute, nil, "ldd", filepath.Join(root, s.prog("record_fnames")))
	m := regexp.MustCompile(`(?m)^\s*libmpi_mpifh\.so\S* => (\S+)`).FindStringSubmatch(ldd)
	if m == nil {
		t.Fatalf("record_fnames links no libmpi_mpifh:\n%s", ldd)
	}
	lib, rec := dynamicSymbols(t, m[1]), dynamicSymbols(t, s.recorder())
	wrapped := map[string]bool{}
	for sym := range rec {
		if strings.HasPrefix(sym, "mpi_") && strings.HasSuffix(sym, "_") && !strings.HasSuffix(sym, "f08_") {
			wrapped[fortranKey(sym)] = true
		}
	}
	if len(wrapped) < 20 {
		t.Fatalf("the recorder wraps %d Fortran bindings: %v", len(wrapped), wrapped)
	}
	for sym := range lib {
		if k := fortranKey(sym); wrapped[k] && !rec[sym] {
			t.Errorf("libmpi_mpifh has %s, the recorder wraps %s but not under this name", sym, k)
		}
	}
}
