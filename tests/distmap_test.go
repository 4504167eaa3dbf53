package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// gpumap-mpi (issue 24) on one node: at P = 1..4 the mapping is feasible,
// the printed metrics are gpumap eval's of the written file, and a rerun
// with the same P (4) and seed writes the same bytes. Ranks without vertices
// and a bad line (one message from rank 0, no file) are covered too.

// mpiMap runs bin/gpumap-mpi map on np ranks and returns its output and
// error.
func mpiMap(t *testing.T, np int, args ...string) (string, error) {
	t.Helper()
	a := append(append([]string{}, openmpiFlags...), "-np", strconv.Itoa(np), filepath.Join(root, "bin/gpumap-mpi"), "map", "-q")
	return run(t, 2*time.Minute, nil, "mpirun.openmpi", append(a, args...)...)
}

// evalText is what gpumap eval prints for the mapping file.
func evalText(t *testing.T, g *graph.Graph, top *topology.Topology, file string, eps float64) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pe, err := graph.ReadMapping(f, g.N(), top.K())
	if err != nil {
		t.Fatal(err)
	}
	m, err := graph.Evaluate(g, top, pe, eps)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Feasible {
		t.Errorf("%s: infeasible: heaviest PE %d > Lmax %d", file, m.MaxBlock, m.Lmax)
	}
	var b bytes.Buffer
	graph.WriteMetrics(&b, m)
	return b.String()
}

// distGraph writes a weighted random graph with comment lines between
// its vertex lines, so that the byte ranges and line numbers of the
// reader are exercised.
func distGraph(t *testing.T, dir string) (*graph.Graph, string) {
	t.Helper()
	g := graph.Random(1500, 6000, 9, 5, 24)
	var text bytes.Buffer
	if err := graph.WriteMETIS(&text, g); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(text.String(), "\n")
	var body strings.Builder
	body.WriteString("% a comment first\n")
	for i, ln := range lines {
		body.WriteString(ln)
		if i%400 == 7 {
			body.WriteString("  % and some between\n")
		}
	}
	gf := filepath.Join(dir, "g.graph")
	if err := os.WriteFile(gf, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return g, gf
}

// distArgs: -coarsest 300 gives several levels of clustering and
// contraction on distGraph.
func distArgs(gf string) []string {
	return []string{"-g", gf, "-h", "4:4:2", "-d", "1:10:100", "-e", "0.03", "-s", "5", "-coarsest", "300"}
}

func TestDistributedMap(t *testing.T) {
	need(t, "bin/gpumap-mpi")
	dir := t.TempDir()
	g, gf := distGraph(t, dir)
	top, err := topology.Parse("4:4:2", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	args := distArgs(gf)
	for np := 1; np <= 4; np++ {
		mf := filepath.Join(dir, fmt.Sprintf("p%d.map", np))
		out, err := mpiMap(t, np, append(args, "-m", mf)...)
		if err != nil {
			t.Fatalf("np=%d: %v\n%s", np, err, out)
		}
		want := evalText(t, g, top, mf, 0.03)
		if !strings.HasPrefix(out, want) {
			t.Errorf("np=%d: printed\n%s\nbut gpumap eval gives\n%s", np, out, want)
		}
		if np == 4 {
			again := mf + ".again"
			if out, err := mpiMap(t, np, append(args, "-m", again)...); err != nil {
				t.Fatalf("np=%d, again: %v\n%s", np, err, out)
			}
			a, _ := os.ReadFile(mf)
			b, _ := os.ReadFile(again)
			if !bytes.Equal(a, b) {
				t.Errorf("np=%d: two runs with seed 5 wrote different mappings", np)
			}
		}
	}
}

// Launched without --mca flags on one node, gpumap-mpi has OpenMPI select
// the pml ob1 without opening cm and its network mtls (the probe that
// cost MPI_Init 0.1-0.3 s here), writes the mapping that the tests' own
// flags give, and GPUMAP_MPI_SHM=0 leaves OpenMPI's selection alone (seen
// as cm opened, where the installation has cm: else skipped).
func TestDistributedMapChoosesOB1(t *testing.T) {
	need(t, "bin/gpumap-mpi")
	dir := t.TempDir()
	_, gf := distGraph(t, dir)
	want := filepath.Join(dir, "flags.map")
	if out, err := mpiMap(t, 2, append(distArgs(gf), "-m", want)...); err != nil {
		t.Fatalf("with the tests' flags: %v\n%s", err, out)
	}
	for _, shm := range []string{"", "0"} {
		mf := filepath.Join(dir, "plain"+shm+".map")
		a := []string{"--allow-run-as-root", "--oversubscribe", "-np", "2", "-x", "OMPI_MCA_pml_base_verbose=10",
			"-x", "GPUMAP_MPI_SHM=" + shm, filepath.Join(root, "bin/gpumap-mpi"), "map", "-q"}
		out, err := run(t, launchCap, nil, "mpirun.openmpi", append(append(a, distArgs(gf)...), "-m", mf)...)
		if err != nil {
			t.Fatalf("GPUMAP_MPI_SHM=%q: %v\n%s", shm, err, out)
		}
		chose := strings.Count(out, "select: component ob1 selected") == 2
		probed := strings.Contains(out, "found loaded component cm")
		if shm == "0" && !probed && !ompiHasPML(t, "cm") {
			a1, _ := os.ReadFile(want)
			if b1, _ := os.ReadFile(mf); !bytes.Equal(a1, b1) {
				t.Errorf("GPUMAP_MPI_SHM=%q: another mapping than with the tests' flags", shm)
			}
			t.Skipf("GPUMAP_MPI_SHM=0: this OpenMPI has no pml cm (ompi_info), so its selection left alone cannot be told from ob1 chosen")
		}
		if shm == "" && (!chose || probed) || shm == "0" && !probed {
			t.Errorf("GPUMAP_MPI_SHM=%q: ob1 selected on both ranks %v, cm opened %v:\n%s", shm, chose, probed, out)
		}
		a1, _ := os.ReadFile(want)
		b1, _ := os.ReadFile(mf)
		if !bytes.Equal(a1, b1) {
			t.Errorf("GPUMAP_MPI_SHM=%q: another mapping than with the tests' flags", shm)
		}
	}
}

// ompiHasPML reports whether OpenMPI's ompi_info lists the pml component
// name (true where ompi_info cannot be run: the test then asserts).
func ompiHasPML(t *testing.T, name string) bool {
	t.Helper()
	out, err := exec.Command("ompi_info", "--parsable").Output()
	if err != nil {
		t.Logf("ompi_info: %v", err)
		return true
	}
	return strings.Contains(string(out), "\nmca:pml:"+name+":")
}

func TestDistributedMapSmallAndBad(t *testing.T) {
	need(t, "bin/gpumap-mpi")
	dir := t.TempDir()
	// A path of 3 vertices on 4 ranks: some own nothing. On 2:2 with
	// Lmax 1 every vertex has a PE of its own; the best puts the middle
	// vertex next to one end (1) and across sockets from the other (10).
	path := filepath.Join(dir, "path.graph")
	os.WriteFile(path, []byte("3 2\n2\n1 3\n2\n"), 0o644)
	mf := filepath.Join(dir, "path.map")
	out, err := mpiMap(t, 4, "-g", path, "-h", "2:2", "-d", "1:10", "-m", mf)
	if err != nil || !strings.HasPrefix(out, "J=11\n") || !strings.Contains(out, "feasible=true\n") {
		t.Errorf("path on 4 ranks: %v\n%s", err, out)
	}
	// Bad input: every rank stops, rank 0 says why once, and no mapping
	// is written. The vertices of each file lie on different ranks:
	// -coarsest 1 reads them in parts (a graph mapped whole is read by
	// rank 0 alone, whose errors are gpumap map's, the last case).
	for i, c := range []struct {
		np         int
		text, want string
		whole      bool
	}{
		{3, "3 2\n2\n1 3\n9\n", "line 4 (vertex 3): neighbour 9 is out of range [1,3]", false},
		// Vertices 1, 2 on rank 1, 3, 4 on rank 2: 1 lists 3, 4 lists 1;
		// rank 1 finds the second, the lower rank's message wins.
		{3, "4 2\n3\n4\n2\n1\n", "asymmetric edge: vertex 4 lists neighbour 1, but vertex 1 does not list 4", false},
		// Vertex 1 on rank 0, vertex 2 on rank 1.
		{2, "2 1 1\n2 5\n1 6\n", "asymmetric edge weight: vertex 2 gives edge to 1 weight 6, but vertex 1 gives it weight 5", false},
		{3, "4 2\n3\n4\n2\n1\n", "asymmetric edge: line 5 (vertex 4) lists neighbour 1, but line 2 (vertex 1) does not list 4", true},
	} {
		bad := filepath.Join(dir, fmt.Sprintf("bad%d.graph", i))
		os.WriteFile(bad, []byte(c.text), 0o644)
		bf := filepath.Join(dir, fmt.Sprintf("bad%d.map", i))
		args := []string{"-g", bad, "-h", "2:2", "-d", "1:10", "-m", bf}
		// Read in parts or whole, the message names the file.
		want := bad + ": " + c.want
		if !c.whole {
			args = append(args, "-coarsest", "1")
		}
		out, err = mpiMap(t, c.np, args...)
		if msg := "gpumap-mpi: " + want + "\n"; err == nil || strings.Count(out, msg) != 1 {
			t.Errorf("%q on %d ranks: want exit 1 and once %q, got %v:\n%s", c.text, c.np, msg, err, out)
		}
		if _, err := os.Stat(bf); err == nil {
			t.Errorf("a failed run left %s", bf)
		}
	}
}

// A graph mapped whole starts each rank's share of the mapping before
// MPI_Init, on the rank and size in the launcher's environment
// (distmap.StartWhole), where it says that every rank runs on this node:
// with OpenMPI's and MPICH's own values the started pipelines map (the
// progress line says so). Where the environment lies (rank 0 claims
// rank 1; both claim a size of 3), the ranks find out once MPI is up and
// map again; where it puts the ranks on two nodes, nothing is started.
// Every run writes the same mapping file as gpumap map's.
func TestDistributedMapLyingLauncher(t *testing.T) {
	need(t, "bin/gpumap-mpi", "bin/gpumap", "build/mpich/bin/gpumap-mpi")
	dir := t.TempDir()
	_, gf := distGraph(t, dir)
	one := filepath.Join(dir, "one.map")
	if out, err := run(t, 2*time.Minute, nil, filepath.Join(root, "bin/gpumap"), "map", "-q", "-t", "2", "-g", gf, "-h", "4:4:2", "-d", "1:10:100", "-m", one); err != nil {
		t.Fatalf("gpumap map: %v\n%s", err, out)
	}
	want, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	const started = "(started before MPI_Init)\n"
	for i, env := range [][]string{nil, {"OMPI_COMM_WORLD_RANK=1"}, {"OMPI_COMM_WORLD_SIZE=3"}, {"OMPI_COMM_WORLD_LOCAL_SIZE=1"}, {"mpich"}} {
		mf := filepath.Join(dir, fmt.Sprintf("lie%d.map", i))
		mpirun, a := "mpirun.openmpi", append(append([]string{}, openmpiFlags...), "-np", "2", "env")
		a = append(append(a, env...), filepath.Join(root, "bin/gpumap-mpi"))
		if i == 4 {
			mpirun, a = "mpiexec.mpich", []string{"-n", "2", filepath.Join(root, "build/mpich/bin/gpumap-mpi")}
		}
		a = append(a, "map", "-g", gf, "-h", "4:4:2", "-d", "1:10:100", "-m", mf)
		out, err := run(t, 2*time.Minute, nil, mpirun, a...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", env, err, out)
		}
		if honest := i == 0 || i == 4; strings.Contains(out, started) != honest {
			t.Errorf("%v: the started pipelines mapped: %v, want %v\n%s", env, !honest, honest, out)
		}
		b, err := os.ReadFile(mf)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%v: another mapping than gpumap map -t 2's", env)
		}
	}
}

// P = 4 across the two-node test cluster writes the same mapping as P = 4
// on one node: nothing depends on where the ranks run or on the timing
// of their messages.
func TestDistributedMapTwoNodes(t *testing.T) {
	need(t, "bin/gpumap-mpi")
	if os.Geteuid() != 0 {
		t.Fatal("the two-node tests need root (network namespaces)")
	}
	dir := t.TempDir()
	g, gf := distGraph(t, dir)
	top, err := topology.Parse("4:4:2", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one.map")
	if out, err := mpiMap(t, 4, append(distArgs(gf), "-m", one)...); err != nil {
		t.Fatalf("one node: %v\n%s", err, out)
	}
	cluster(t, "up", "2")
	defer cluster(t, "down")
	two := filepath.Join(dir, "two.map")
	out := clusterRun(t, 4, "node0:2,node1:2", []string{"--map-by", "node"}, "bin/gpumap-mpi",
		append(append([]string{"map", "-q"}, distArgs(gf)...), "-m", two)...)
	if want := evalText(t, g, top, two, 0.03); !strings.HasPrefix(out, want) {
		t.Errorf("two nodes printed\n%s\nbut gpumap eval gives\n%s", out, want)
	}
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(two)
	if !bytes.Equal(a, b) {
		t.Errorf("P=4 on two nodes wrote another mapping than on one node")
	}
}
