package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/report"
)

// buildGoHalo builds mpirank/gompi/example as a user would: a module of
// its own outside the repository that requires gpumap (replaced by this
// checkout) and gompi v0.2.0.
func buildGoHalo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(root, "mpirank/gompi/example/main.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := fmt.Sprintf(`module example.com/halo

go 1.26

require (
	github.com/gpumap/gpumap v0.0.0
	github.com/sbromberger/gompi v0.2.0
)

replace github.com/gpumap/gpumap => %s
`, root)
	for name, text := range map[string][]byte{"main.go": src, "go.sum": sum, "go.mod": []byte(mod)} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", "halo", "."}} {
		if out, err := run(t, 5*time.Minute, nil, "go", append([]string{"-C", dir}, args...)...); err != nil {
			t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
	return filepath.Join(dir, "halo")
}

// A Go program on gompi, outside the repository, reorders with
// mpirank/gompi.Reorder on the two-node cluster: J reaches the brute-force
// optimum, every halo message arrives from the right task on the new
// communicator, and GPUMAP_REPORT draws the same J before and after.
func TestGompiTwoNodes(t *testing.T) {
	need(t)
	if os.Geteuid() != 0 {
		t.Fatal("the two-node tests need root (network namespaces)")
	}
	halo := buildGoHalo(t)

	// Invalid options: every rank returns the same error and stops cleanly.
	a := append(append([]string{}, openmpiFlags...), "-np", "4", "-x", "GPUMAP_HIERARCHY=2:3", halo, "2", "2", "1", "1024")
	out, err := run(t, 2*time.Minute, nil, "mpirun.openmpi", a...)
	msg := regexp.MustCompile(`(?m)^rank \d: gpumap: (.*)$`).FindAllStringSubmatch(out, -1)
	if err == nil || len(msg) != 4 || !strings.Contains(msg[0][1], "hierarchy 2:3 has 6 PEs") {
		t.Fatalf("a bad hierarchy: want the same error on 4 ranks and a failed run, got %v:\n%s", err, out)
	}
	for _, m := range msg {
		if m[1] != msg[0][1] {
			t.Fatalf("ranks disagree:\n%s", out)
		}
	}
	// A malformed GPUMAP_HIERARCHY is named as such (it was reported as
	// options.hierarchy: Reorder copied the variable into the options).
	a = append(append([]string{}, openmpiFlags...), "-np", "2", "-x", "GPUMAP_HIERARCHY=2:x", halo, "2", "1", "1", "1024")
	out, err = run(t, 2*time.Minute, nil, "mpirun.openmpi", a...)
	msg = regexp.MustCompile(`(?m)^rank \d: gpumap: (.*)$`).FindAllStringSubmatch(out, -1)
	if err == nil || len(msg) != 2 || !strings.Contains(msg[0][1], `GPUMAP_HIERARCHY: hierarchy "2:x": field 2 ("x") is not an integer`) || msg[1][1] != msg[0][1] {
		t.Fatalf("a malformed GPUMAP_HIERARCHY: want the same error naming it on 2 ranks, got %v:\n%s", err, out)
	}

	cluster(t, "up", "2")
	defer cluster(t, "down")
	svg := filepath.Join(t.TempDir(), "halo.svg")
	xml := filepath.Join(root, "hwdetect/testdata/two-sockets.xml")
	extra := []string{"--map-by", "node", "--bind-to", "core:overload-allowed",
		"-x", "HWLOC_XMLFILE=" + xml, "-x", "HWLOC_THISSYSTEM=1", "-x", "GPUMAP_REPORT=" + svg}
	const bytes = 1 << 20
	rel, _ := filepath.Rel(root, halo) // clusterRun takes paths in the checkout
	out = clusterRun(t, 16, "node0:8,node1:8", extra, rel, "4", "4", "1", strconv.Itoa(bytes))

	m := regexp.MustCompile(`(?m)^J (\S+) (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no J line:\n%s", out)
	}
	before, _ := strconv.ParseFloat(m[1], 64)
	after, _ := strconv.ParseFloat(m[2], 64)
	opt := float64(optimum(gridEdges([3]int{4, 4, 1}), 1, 10, 100)) * 2 * bytes
	if after != opt {
		t.Errorf("J after reordering %.0f, optimum %.0f\n%s", after, opt, out)
	}
	tasks := map[string]bool{}
	hosts := map[string]bool{}
	degree := map[string]int{}
	for _, e := range gridEdges([3]int{4, 4, 1}) {
		degree[strconv.Itoa(e[0])]++
		degree[strconv.Itoa(e[1])]++
	}
	for _, h := range regexp.MustCompile(`(?m)^HALO OK task (\d+) world \d+ host (\S+) messages (\d+)$`).FindAllStringSubmatch(out, -1) {
		tasks[h[1]], hosts[h[2]] = true, true
		if h[3] != strconv.Itoa(degree[h[1]]) {
			t.Errorf("task %s checked %s messages, has %d neighbours", h[1], h[3], degree[h[1]])
		}
	}
	if len(tasks) != 16 || !hosts["node0"] || !hosts["node1"] {
		t.Fatalf("%d of 16 tasks exchanged their halos, on hosts %v:\n%s", len(tasks), hosts, out)
	}

	f, err := os.Open(svg)
	if err != nil {
		t.Fatalf("GPUMAP_REPORT: %v\n%s", err, out)
	}
	defer f.Close()
	drawn, err := report.Parse(f)
	if err != nil || len(drawn) != 2 || drawn[0].J != before || drawn[1].J != after || drawn[1].LevelName != "node" {
		t.Fatalf("report: %d panels (%v), J %v; the call: %.0f -> %.0f", len(drawn), err, drawn, before, after)
	}
	summary := fmt.Sprintf("Go halo exchange on gompi, 4x4 on 2 nodes x 8 ranks (--map-by node): J %.0f -> %.0f (optimum %.0f); traffic between nodes %.0f -> %.0f bytes\n",
		before, after, opt, drawn[0].Cut(), drawn[1].Cut())
	t.Log(summary)
	writeResult(t, "two-node-gompi.txt", summary)
}
