package hwdetect

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func rec(host string, socket, core int) Record {
	return Record{Host: host, BootID: "b-" + host, Socket: socket, Core: core}
}

func TestInferRegularFromShuffledRanks(t *testing.T) {
	// 2 hosts x 2 sockets x 2 cores, ranks dealt round-robin (--map-by node).
	var recs []Record
	for r := 0; r < 8; r++ {
		host := []string{"a", "b"}[r%2]
		s := (r / 2) % 2
		recs = append(recs, rec(host, s, r/4))
	}
	m, err := Infer(recs, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Top.K() != 8 || m.Hosts != 2 {
		t.Fatalf("%s", m.Describe())
	}
	// Ranks 0 and 4 share host a, socket 0: distance 1. Ranks 0 and 2: same
	// host, other socket: 10. Ranks 0 and 1: other host: 100.
	d := func(a, b int) int64 { return m.Top.Distance(m.Slot[a], m.Slot[b]) }
	if d(0, 4) != 1 || d(0, 2) != 10 || d(0, 1) != 100 {
		t.Fatalf("distances %d %d %d", d(0, 4), d(0, 2), d(0, 1))
	}
	for p, r := range m.Rank {
		if m.Slot[r] != p {
			t.Fatal("Slot is not the inverse of Rank")
		}
	}
}

func TestInferIrregularAndUnknownSockets(t *testing.T) {
	recs := []Record{
		rec("n1", 0, 0), rec("n1", 0, 1), rec("n1", 1, 2), // n1: sockets of 2 and 1
		rec("n2", UnknownSocket, -1), rec("n2", UnknownSocket, -1), // n2: unbound
		rec("n3", 0, 0),
	}
	m, err := Infer(recs, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	d := func(a, b int) int64 { return m.Top.Distance(m.Slot[a], m.Slot[b]) }
	if d(0, 1) != 1 || d(0, 2) != 10 || d(3, 4) != 10 || d(3, 5) != 100 {
		t.Fatalf("distances: %d %d %d %d (%s)", d(0, 1), d(0, 2), d(3, 4), d(3, 5), m.Describe())
	}
}

func TestSameHostnameDifferentBoot(t *testing.T) {
	recs := []Record{{Host: "x", BootID: "1", Socket: 0}, {Host: "x", BootID: "2", Socket: 0}}
	m, _ := Infer(recs, Spec{})
	if m.Hosts != 2 {
		t.Fatal("two kernels with one hostname must be two hosts")
	}
}

func TestSwitchLevel(t *testing.T) {
	recs := []Record{
		{Host: "a", Switch: "s1", Socket: 0}, {Host: "b", Switch: "s1", Socket: 0},
		{Host: "c", Switch: "s2", Socket: 0},
	}
	m, err := Infer(recs, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Top.Levels() != 4 || m.Top.Distance(m.Slot[0], m.Slot[1]) != 100 || m.Top.Distance(m.Slot[0], m.Slot[2]) != 1000 {
		t.Fatalf("%s", m.Describe())
	}
	if slurmSwitch("top.s3.node9") != "top.s3" || slurmSwitch("node9") != "" {
		t.Fatal("SLURM_TOPOLOGY_ADDR parsing")
	}
}

func TestSpecOverrides(t *testing.T) {
	recs := make([]Record, 8)
	for i := range recs {
		recs[i] = rec("h", 0, i)
	}
	m, err := Infer(recs, Spec{Hierarchy: "2:4", Distance: "1:50"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Top.Distance(0, 1) != 1 || m.Top.Distance(0, 2) != 50 {
		t.Fatal("override ignored")
	}
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Hierarchy: "2:3"}, "6 PEs but the communicator has 8"},
		{Spec{Hierarchy: "2:x"}, "GPUMAP_HIERARCHY"},
		{Spec{Distance: "1:10"}, "has 2 levels but the machine has 3"},
		{Spec{Hierarchy: "2:4", Distance: "1"}, "has 1 levels but the machine has 2"},
	} {
		if _, err := Infer(recs, c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.spec, err, c.want)
		}
	}
}

// TestLocateWithFakeTopology runs this test binary again under a faked
// two-socket hwloc topology and a binding to PU 1. It skips only where
// PU 1 cannot be bound at all (one PU, or a cpuset without it): any
// failure of the child itself, a panic in Locate say, fails the test.
func TestLocateWithFakeTopology(t *testing.T) {
	if os.Getenv("GPUMAP_LOCATE_CHILD") == "1" {
		r := Locate("me")
		os.Stdout.WriteString("SOCKET=" + itoa(r.Socket) + "\n")
		return
	}
	// taskset is util-linux, which make deps installs.
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Fatal("taskset (util-linux) is not installed:", err)
	}
	if out, err := exec.Command(taskset, "-c", "1", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot bind to PU 1 here (%v): %s", err, out)
	}
	xml, _ := filepath.Abs("testdata/two-sockets.xml")
	child := func(cpus string) string {
		t.Helper()
		cmd := exec.Command(taskset, "-c", cpus, os.Args[0], "-test.run", "^TestLocateWithFakeTopology$")
		cmd.Env = append(os.Environ(), "GPUMAP_LOCATE_CHILD=1", "HWLOC_XMLFILE="+xml, "HWLOC_THISSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("Locate under taskset -c %s: %v\n%s", cpus, err, out)
		}
		return string(out)
	}
	if out := child("1"); !strings.Contains(out, "SOCKET=1\n") {
		t.Fatalf("bound to PU 1 of a faked 2-socket machine, got:\n%s", out)
	}
	// Unbound: the binding spans both sockets.
	if out := child("0,1"); !strings.Contains(out, "SOCKET=-1\n") {
		t.Fatalf("unbound process, got:\n%s", out)
	}
}

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}
