package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/report"
	"github.com/gpumap/gpumap/mpirank/record"
)

func TestParseHosts(t *testing.T) {
	hosts, err := parseHosts("node0:8, node1:4,node2")
	if want := []host{{"node0", 8}, {"node1", 4}, {"node2", 1}}; err != nil || !reflect.DeepEqual(hosts, want) {
		t.Fatalf("parseHosts: %v %v, want %v", hosts, err, want)
	}
	for s, want := range map[string]string{
		"a:0":                       `entry 1: slot count "0" is not a positive integer`,
		"a:2,b:x":                   `entry 2: slot count "x" is not a positive integer`,
		"a:2,,b":                    `entry 2: "" is not a host name`,
		"a:1,a:2":                   "host a is given twice",
		"rank=0:2":                  `entry 1: "rank=0" is not a host name`,
		"a:2000000000,b:2000000000": "more than",
	} {
		if _, err := parseHosts(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseHosts(%q): %v, want %q", s, err, want)
		}
	}
}

func TestSlotsDistances(t *testing.T) {
	two := []host{{"n0", 8}, {"n1", 8}}
	for _, c := range []struct {
		hosts      []host
		hier, dist string
		levels     int
		pairs      [][3]int // PE, PE, distance
	}{
		// sockets of 4, 2 per host, 2 hosts: inside form and full form
		{two, "4:2", "1:10:100", 3, [][3]int{{0, 3, 1}, {0, 4, 10}, {3, 4, 10}, {7, 8, 100}, {8, 15, 10}, {12, 15, 1}}},
		{two, "4:2:2", "1:10:100", 3, [][3]int{{0, 3, 1}, {0, 4, 10}, {7, 8, 100}}},
		// no -h: a host is one group; default distances 1:10
		{two, "", "", 2, [][3]int{{0, 7, 1}, {7, 8, 10}}},
		// a partly used host: 6 slots in sockets of 4 fill 4 + 2
		{[]host{{"n0", 8}, {"n1", 6}}, "4:2", "", 3, [][3]int{{8, 11, 1}, {11, 12, 10}, {12, 13, 1}, {0, 13, 100}}},
	} {
		m, err := newSlots(c.hosts, c.hier, c.dist)
		if err != nil {
			t.Fatalf("%v -h %q: %v", c.hosts, c.hier, err)
		}
		if m.top.Levels() != c.levels {
			t.Errorf("%v -h %q: %d levels, want %d", c.hosts, c.hier, m.top.Levels(), c.levels)
		}
		for _, p := range c.pairs {
			if d := m.top.Distance(p[0], p[1]); d != int64(p[2]) {
				t.Errorf("%v -h %q: distance(%d,%d) = %d, want %d", c.hosts, c.hier, p[0], p[1], d, p[2])
			}
		}
	}
	for _, c := range []struct{ hier, dist, want string }{
		{"4", "", "host n0 has 8 slots but -h 4 describes hosts of 4"},
		{"4:2", "1:10", "-d 1:10 has 2 levels but the machine has 3"},
		{"4:x", "", "-h: "},
		{"", "1:-1", "-d: "},
	} {
		if _, err := newSlots(two, c.hier, c.dist); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-h %q -d %q: %v, want %q", c.hier, c.dist, err, c.want)
		}
	}
}

func TestLaunchOrders(t *testing.T) {
	m, err := newSlots([]host{{"a", 3}, {"b", 1}, {"c", 2}}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// a: PEs 0-2, b: 3, c: 4-5. Round robin skips b once it is full.
	if got, want := byNode(m, 6), []int32{0, 3, 4, 1, 5, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("--map-by node: %v, want %v", got, want)
	}
	if got, want := byNode(m, 4), []int32{0, 3, 4, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("--map-by node, 4 ranks: %v, want %v", got, want)
	}
	hdr := record.Header{Hosts: []string{"c", "a"}, RankHost: []int32{0, 1, 0, 1}}
	if got, why := recordedOrder(hdr, m, 4); !reflect.DeepEqual(got, []int32{4, 0, 5, 1}) {
		t.Errorf("recorded order: %v (%s)", got, why)
	}
	hdr.RankHost = []int32{0, 0, 0, 1}
	if _, why := recordedOrder(hdr, m, 4); !strings.Contains(why, "more ranks ran on c than --hosts gives it slots") {
		t.Errorf("three ranks on c: %q", why)
	}
	hdr.Hosts[1], hdr.RankHost = "z", []int32{0, 1, 0, 1}
	if _, why := recordedOrder(hdr, m, 4); !strings.Contains(why, "rank 1 ran on z, which is not in --hosts") {
		t.Errorf("unknown host: %q", why)
	}
}

// bruteForce is the cheapest one-to-one placement of g's n vertices on
// the k >= n slots of m, over every injective assignment.
func bruteForce(g *graph.Graph, m *slots) float64 {
	n, k := g.N(), m.top.K()
	pe := make([]int32, n)
	used := make([]bool, k)
	best := -1.0
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			if j := cost(g, m.top, pe); best < 0 || j < best {
				best = j
			}
			return
		}
		for p := 0; p < k; p++ {
			if !used[p] {
				used[p], pe[v] = true, int32(p)
				rec(v + 1)
				used[p] = false
			}
		}
	}
	rec(0)
	return best
}

// launchMachinefile reads a machine file and places its ranks as the
// launchers do (MPICH's -f, OpenMPI's --map-by seq): each rank on its
// line's host, the ranks of a host on its slots in rank order.
func launchMachinefile(t *testing.T, path string, n int, m *slots) []int32 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	if len(lines) != n {
		t.Fatalf("%d machine file lines for %d ranks:\n%s", len(lines), n, data)
	}
	used := map[string]int{}
	pe := make([]int32, n)
	for r, name := range lines {
		h := slices.IndexFunc(m.hosts, func(x host) bool { return x.name == name })
		if h < 0 || used[name] == m.hosts[h].slots {
			t.Fatalf("machine file line %d: %s is not a host with a free slot", r+1, name)
		}
		pe[r] = int32(m.first[h] + used[name])
		used[name]++
	}
	return pe
}

// bruteForceHosts is the cheapest J of a machine file for g on m: every
// assignment of the ranks to hosts that fits, launched in rank order.
func bruteForceHosts(g *graph.Graph, m *slots) float64 {
	n := g.N()
	host := make([]int, n)
	left := make([]int, len(m.hosts))
	for h := range left {
		left[h] = m.hosts[h].slots
	}
	best := -1.0
	var rec func(r int)
	rec = func(r int) {
		if r == n {
			if j := cost(g, m.top, m.launched(host)); best < 0 || j < best {
				best = j
			}
			return
		}
		for h := range left {
			if left[h] > 0 {
				left[h]--
				host[r] = h
				rec(r + 1)
				left[h]++
			}
		}
	}
	rec(0)
	return best
}

// TestMachinefileJIsTheLaunchedJ is issue 28's case: a machine file fixes
// only hosts, so --machinefile printed J_placed for a placement inside the
// hosts that the launcher does not make. Hand-computed J on hosts of two
// sockets of two slots, -d 1:10:100:
//   - one host, ranks 0-3 and 1-2 exchanging 1000, 0-1 exchanging 1: the
//     rankfile pairs 0,3 and 1,2 in sockets, J_placed 2*1000 + 10 = 2010;
//     a machine file can only run them in rank order ({0,1}, {2,3}):
//     J_machinefile 2*1000*10 + 1 = 20001 (the --map-by slot order, which
//     the old machine file was), and a note names the rankfile;
//   - two hosts, also 4-7 and 5-6 exchanging 1000 and 3-4 exchanging 1:
//     --map-by slot costs 4*10000 + 100 = 40100, while the hosts
//     {0,3,4,7}, {1,2,5,6} launched in rank order put every pair in a
//     socket and 3-4 across sockets: J_machinefile 4*1000 + 10 = 4010,
//     which is also J_placed;
//   - the same pairs, each 4-cycle closed by edges 0-1, 2-3 (and 4-5, 6-7)
//     of 5: J_placed keeps a cycle on a host, pairs in sockets, 4*1000 +
//     4*5*10 = 4200; in rank order that host runs {0,1}, {2,3}: 2*(2*10000
//   - 2*5) = 40020 (the placement's hosts and --map-by slot alike). The
//     cheapest machine file splits every cycle into its pairs on the two
//     hosts ({0,3,4,7}, {1,2,5,6}): 4*1000 + 4*5*100 = 6000, which only the
//     search over hosts finds.
func TestMachinefileJIsTheLaunchedJ(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		graph, hosts                string
		placed, machinefile, bySlot float64
		note                        bool
	}{
		{"4 3 1\n2 1 4 1000\n1 1 3 1000\n2 1000\n1 1000\n", "node0:4", 2010, 20001, 20001, true},
		{"8 5 1\n4 1000\n3 1000\n2 1000\n1 1000 5 1\n4 1 8 1000\n7 1000\n6 1000\n5 1000\n", "node0:4,node1:4", 4010, 4010, 40100, false},
		{"8 8 1\n2 5 4 1000\n1 5 3 1000\n2 1000 4 5\n1 1000 3 5\n6 5 8 1000\n5 5 7 1000\n6 1000 8 5\n5 1000 7 5\n", "node0:4,node1:4", 4200, 6000, 40020, true},
	} {
		gf, mf := writeFile(t, dir, "p.graph", c.graph), filepath.Join(dir, "machines")
		code, out, errs := runCLI("place", "-q", "-g", gf, "--hosts", c.hosts, "-h", "2:2", "-d", "1:10:100", "--machinefile", mf)
		if code != exitOK {
			t.Fatalf("place: exit %d %s", code, errs)
		}
		if j := jLine(t, out, "J_placed"); j != c.placed {
			t.Errorf("%s: J_placed %.0f, want %.0f", c.hosts, j, c.placed)
		}
		if j := jLine(t, out, "J_map_by_slot"); j != c.bySlot {
			t.Errorf("%s: J_map_by_slot %.0f, want %.0f", c.hosts, j, c.bySlot)
		}
		hosts, _ := parseHosts(c.hosts)
		m, err := newSlots(hosts, "2:2", "1:10:100")
		if err != nil {
			t.Fatal(err)
		}
		g, _, err := record.ReadFile(gf)
		if err != nil {
			t.Fatal(err)
		}
		j := jLine(t, out, "J_machinefile")
		if got := cost(g, m.top, launchMachinefile(t, mf, g.N(), m)); j != c.machinefile || got != j {
			t.Errorf("%s: J_machinefile %.0f, the file's launch %.0f, want %.0f", c.hosts, j, got, c.machinefile)
		}
		if note := strings.Contains(errs, "need the rankfile"); note != c.note {
			t.Errorf("%s: note on stderr %v, want %v: %q", c.hosts, note, c.note, errs)
		}
	}
}

var rankLine = regexp.MustCompile(`^rank (\d+)=(\S+) slot=(\d+)$`)

// checkRankfile checks the rankfile's form (ascending ranks, each slot of
// a host used once, within its slots) and returns each rank's PE.
func checkRankfile(t *testing.T, path string, n int, m *slots) []int32 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d rankfile lines for %d ranks:\n%s", len(lines), n, data)
	}
	hostIdx := map[string]int{}
	for i, h := range m.hosts {
		hostIdx[h.name] = i
	}
	pe := make([]int32, n)
	taken := map[int32]bool{}
	for r, ln := range lines {
		f := rankLine.FindStringSubmatch(ln)
		if f == nil || f[1] != strconv.Itoa(r) {
			t.Fatalf("line %d is %q, want rank %d=HOST slot=S", r+1, ln, r)
		}
		h, ok := hostIdx[f[2]]
		s, _ := strconv.Atoi(f[3])
		if !ok || s >= m.hosts[h].slots {
			t.Fatalf("line %q: no such host or slot", ln)
		}
		pe[r] = int32(m.first[h] + s)
		if taken[pe[r]] {
			t.Fatalf("line %q: slot given twice", ln)
		}
		taken[pe[r]] = true
	}
	return pe
}

func jLine(t *testing.T, out, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimPrefix(line(out, key+"="), key+"="), 64)
	if err != nil {
		t.Fatalf("no %s in %q", key, out)
	}
	return v
}

// Random weighted patterns of up to 8 ranks on 2 hosts x 2 sockets x 2
// slots (some slots spare): the placement's J is the brute-force optimum,
// the rankfile places every rank where J_placed says, and the launch
// orders' J are recomputed from their definitions.
func TestPlaceIsOptimalOnSmallPatterns(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 9))
	hosts := []host{{"node0", 4}, {"node1", 4}}
	m, err := newSlots(hosts, "2:2", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 12; trial++ {
		n := 5 + rng.IntN(4)
		b := graph.NewBuilder(n)
		for e := 0; e < 2*n; e++ {
			u, v := rng.IntN(n), rng.IntN(n)
			if u != v {
				b.AddEdge(u, v, 1+rng.Int64N(1000))
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		gf := filepath.Join(dir, "p.graph")
		f, _ := os.Create(gf)
		graph.WriteMETIS(f, g)
		f.Close()
		rf, mf := filepath.Join(dir, "rf"), filepath.Join(dir, "mf")
		code, out, errs := runCLI("place", "-q", "-g", gf, "--hosts", "node0:4,node1:4", "-h", "2:2", "-d", "1:10:100",
			"--rankfile", rf, "--machinefile", mf)
		if code != exitOK {
			t.Fatalf("place: exit %d %s", code, errs)
		}
		opt := bruteForce(g, m)
		if j := jLine(t, out, "J_placed"); j != opt {
			t.Errorf("trial %d (n=%d): J_placed %.0f, optimum %.0f", trial, n, j, opt)
		}
		pe := checkRankfile(t, rf, n, m)
		if j := cost(g, m.top, pe); j != opt {
			t.Errorf("trial %d: the rankfile's J is %.0f, optimum %.0f", trial, j, opt)
		}
		// The machine file: J_machinefile is the J of the launch it makes,
		// and the cheapest such launch (every choice of hosts, brute force).
		launched := launchMachinefile(t, mf, n, m)
		if j, got := jLine(t, out, "J_machinefile"), cost(g, m.top, launched); j != got {
			t.Errorf("trial %d: J_machinefile %.0f, but the launch of the file has J %.0f", trial, j, got)
		}
		if j, want := jLine(t, out, "J_machinefile"), bruteForceHosts(g, m); j != want {
			t.Errorf("trial %d (n=%d): J_machinefile %.0f, the cheapest machine file %.0f", trial, n, j, want)
		}
		slot := make([]int32, n)
		for r := range slot {
			slot[r] = int32(r)
		}
		node := make([]int32, n) // alternate hosts
		for r := range node {
			node[r] = int32(r/2 + 4*(r%2))
		}
		if j := jLine(t, out, "J_map_by_slot"); j != cost(g, m.top, slot) {
			t.Errorf("J_map_by_slot %.0f, want %.0f", j, cost(g, m.top, slot))
		}
		if j := jLine(t, out, "J_map_by_node"); j != cost(g, m.top, node) {
			t.Errorf("J_map_by_node %.0f, want %.0f", j, cost(g, m.top, node))
		}
	}
}

// A recorded pattern (written as the recorder does): J of the recorded
// order by hand, and the 4x4 stencil's placement at the hand-computed
// optimum of 2 nodes x 2 sockets x 4 slots.
func TestPlaceRecordedStencil(t *testing.T) {
	dir := t.TempDir()
	const w = 1000 // bytes each way per edge
	ranks := make([]record.Rank, 16)
	for r := range ranks {
		ranks[r].Host = []string{"node0", "node1"}[r%2] // --map-by node
		x, y := r/4, r%4
		for _, nb := range [][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
			if nb[0] >= 0 && nb[0] < 4 && nb[1] >= 0 && nb[1] < 4 {
				ranks[r].Peers = append(ranks[r].Peers, int32(nb[0]*4+nb[1]))
				ranks[r].Bytes = append(ranks[r].Bytes, w)
				ranks[r].Msgs = append(ranks[r].Msgs, 1)
			}
		}
	}
	p, err := record.Build(ranks, "./stencil 4 4 1")
	if err != nil {
		t.Fatal(err)
	}
	gf := filepath.Join(dir, "pattern.graph")
	if err := p.WriteFile(gf, false); err != nil {
		t.Fatal(err)
	}
	rf := filepath.Join(dir, "rf")
	code, out, errs := runCLI("place", "-q", "-g", gf, "--hosts", "node0:8,node1:8", "-h", "4:2", "-d", "1:10:100", "--rankfile", rf)
	if code != exitOK {
		t.Fatalf("place: exit %d %s", code, errs)
	}
	// Recorded = --map-by node: ranks alternate hosts, so the 12
	// horizontal edges cross nodes (100); the vertical ones stay on a node,
	// rank r and r+4 being slots r/2 and r/2+2 of it: the same socket of 4
	// for rows 0-1 and 2-3 (1), another socket between rows 1 and 2 (10).
	wantRecorded := float64(2*w) * (12*100 + 8*1 + 4*10)
	if j := jLine(t, out, "J_recorded"); j != wantRecorded || jLine(t, out, "J_map_by_node") != wantRecorded {
		t.Errorf("J_recorded %.0f, J_map_by_node %.0f, want %.0f:\n%s", j, jLine(t, out, "J_map_by_node"), wantRecorded, out)
	}
	// Optimum: a 2x2 block per socket: 16 edges inside sockets, 4 between
	// the sockets of a node, 4 between nodes.
	if j, want := jLine(t, out, "J_placed"), float64(2*w)*(16*1+4*10+4*100); j != want {
		t.Errorf("J_placed %.0f, want the optimum %.0f", j, want)
	}
}

func TestPlaceSpareSlotsAndErrors(t *testing.T) {
	dir := t.TempDir()
	g6 := writeFile(t, dir, "ring6.graph", "6 6\n2 6\n1 3\n2 4\n3 5\n4 6\n5 1\n")
	rf := filepath.Join(dir, "rf")
	code, out, errs := runCLI("place", "-q", "-g", g6, "--hosts", "a:4,b:4", "--rankfile", rf)
	if code != exitOK {
		t.Fatalf("6 ranks on 8 slots: exit %d %s", code, errs)
	}
	m, _ := newSlots([]host{{"a", 4}, {"b", 4}}, "", "")
	checkRankfile(t, rf, 6, m)
	// A ring of 6 on two hosts of 4: two edges must cross (J 4*1 + 2*10).
	if j := jLine(t, out, "J_placed"); j != 24 {
		t.Errorf("ring of 6: J_placed %.0f, want 24", j)
	}
	weighted := writeFile(t, dir, "vw.graph", "2 1 10\n2 2\n1 1\n")
	missing := filepath.Join(dir, "missing.graph")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--hosts", "a:4", "--rankfile", rf}, exitUsage, "missing -g"},
		{[]string{"-g", g6, "--rankfile", rf}, exitUsage, "missing --hosts"},
		{[]string{"-g", g6, "--hosts", "a:8"}, exitUsage, "missing --rankfile or --machinefile"},
		{[]string{"-g", g6, "--hosts", "a:0", "--rankfile", rf}, exitUsage, "not a positive integer"},
		{[]string{"-g", g6, "--hosts", "a:8", "-h", "2:2", "--rankfile", rf}, exitUsage, "host a has 8 slots but -h 2:2 describes hosts of 4"},
		{[]string{"-g", g6, "--hosts", "a:8", "-c", "eco", "--rankfile", rf}, exitUsage, `unknown preset "eco"`},
		{[]string{"-g", g6, "--hosts", "a:8", "--rankfile", rf, "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"-g", g6, "--hosts", "a:2,b:3", "--rankfile", rf}, exitFailure, "the pattern has 6 ranks but --hosts gives 5 slots"},
		{[]string{"-g", missing, "--hosts", "a:8", "--rankfile", rf}, exitFailure, "no such file"},
		{[]string{"-g", weighted, "--hosts", "a:8", "--rankfile", rf}, exitFailure, "rank 0 has vertex weight 2"},
		{[]string{"-g", g6, "--hosts", "a:8", "--rankfile", filepath.Join(dir, "no", "rf")}, exitFailure, "no such file"},
	} {
		code, out, errs := runCLI(append([]string{"place", "-q"}, c.args...)...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("gpumap place %s: exit %d, want %d; output %q does not contain %q",
				strings.Join(c.args, " "), code, c.code, out+errs, c.want)
		}
	}
}

// Four ranks in a chain 0-1-2-3 whose middle link carries most: the
// placement keeps ranks 1 and 2 on one host.
func Example_place() {
	dir, _ := os.MkdirTemp("", "place")
	defer os.RemoveAll(dir)
	pattern := filepath.Join(dir, "chain.graph")
	os.WriteFile(pattern, []byte("4 3 1\n2 1\n1 1 3 9\n2 9 4 1\n3 1\n"), 0o644)
	rf := filepath.Join(dir, "rankfile")
	var out strings.Builder
	run([]string{"place", "-q", "-g", pattern, "--hosts", "n0:2,n1:2", "--rankfile", rf}, &out, os.Stderr)
	fmt.Print(strings.ReplaceAll(out.String(), dir+"/", ""))
	data, _ := os.ReadFile(rf)
	host := map[string]string{} // rank -> host
	for _, l := range strings.Fields(string(data)) {
		if r, h, ok := strings.Cut(l, "="); ok {
			host[r] = h
		}
	}
	fmt.Println("ranks 1 and 2 on one host:", host["1"] == host["2"])
	// Output:
	// ranks=4 slots=4 hosts=2 machine=tree(k=4, L=2) / 1:10
	// J_map_by_slot=92
	// J_map_by_node=110
	// J_placed=29
	// rankfile=rankfile
	// ranks 1 and 2 on one host: true
}

// --svg draws the recorded order and the placement between the hosts: the
// cells add up to the traffic between nodes of each.
func TestPlaceDrawsBeforeAndAfter(t *testing.T) {
	dir := t.TempDir()
	ranks := make([]record.Rank, 8)
	for r := range ranks { // a ring, ranks alternating between hosts
		ranks[r] = record.Rank{Host: []string{"a", "b"}[r%2], Peers: []int32{int32((r + 1) % 8)}, Bytes: []uint64{100}, Msgs: []uint64{1}}
	}
	p, err := record.Build(ranks, "./ring")
	if err != nil {
		t.Fatal(err)
	}
	gf, svg := filepath.Join(dir, "ring.graph"), filepath.Join(dir, "ring.svg")
	p.WriteFile(gf, false)
	code, out, errs := runCLI("place", "-q", "-g", gf, "--hosts", "a:4,b:4", "-h", "2:2", "--rankfile", filepath.Join(dir, "rf"), "--svg", svg)
	if code != exitOK || line(out, "svg=") == "" {
		t.Fatalf("place --svg: exit %d %s %s", code, out, errs)
	}
	f, err := os.Open(svg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	drawn, err := report.Parse(f)
	if err != nil || len(drawn) != 2 {
		t.Fatalf("%d panels, %v", len(drawn), err)
	}
	// Before: every ring edge crosses hosts (800); after: two edges do.
	for i, want := range []float64{800, 200} {
		if drawn[i].LevelName != "node" || drawn[i].Cut() != want {
			t.Errorf("panel %q: level %s, cut %g, want node and %g", drawn[i].Title, drawn[i].LevelName, drawn[i].Cut(), want)
		}
	}
	if drawn[0].Title != "before (recorded)" || drawn[1].J != jLine(t, out, "J_placed") || drawn[0].J != jLine(t, out, "J_recorded") {
		t.Errorf("panels %q J %g, %q J %g; output %s", drawn[0].Title, drawn[0].J, drawn[1].Title, drawn[1].J, out)
	}
	if code, _, errs := runCLI("place", "-q", "-g", gf, "--hosts", "a:4,b:4", "--rankfile", filepath.Join(dir, "rf"), "--svg", svg, "--svg-level", "socket"); code != exitUsage || !strings.Contains(errs, `unknown level "socket"`) {
		t.Errorf("--svg-level socket without -h: exit %d %s", code, errs)
	}
}
