package distmap

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
)

// ReadGraph on 2 ranks whose files differ (each rank in its own
// directory): every rank gets one error that names rank 1, also where
// only the file's tail differs (the head alone was compared: the
// review), or where rank 1 cannot read it. Two names for the same graph
// are not an error. Before SameFile each rank read its part of its own
// file.
func TestSameFile(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 2, "TestSameFile")
		want := map[string]string{
			"path": "n=3",
			"size": "kind 3: rank 1: graph file g.graph has 12 bytes, rank 0's 16: every rank must read the same file",
			"head": "kind 3: rank 1: graph file h.graph differs from rank 0's: every rank must read the same file",
			"tail": "kind 3: rank 1: graph file t.graph differs from rank 0's: every rank must read the same file",
			"same": "n=3",
			// Rank 1 has no such file, or a directory of that name:
			// the reader's error named neither rank 1 nor that rank 0
			// read the file.
			"missing": "kind 3: rank 1: open m.graph: no such file or directory, but rank 0 read it: every rank must read the same file",
			"dir":     "kind 3: rank 1: d.graph: not a regular file (the ranks read their parts of it at offsets), but rank 0 read it: every rank must read the same file",
		}
		re := regexp.MustCompile(`(?m)^rank (\d) (\w+): (.*)$`)
		got := map[string][]string{}
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			got[m[2]] = append(got[m[2]], m[3])
		}
		sameOnEveryRank(t, "", 2, got, want, out)
		return
	}
	defer rankRecover()
	c, _, rank := rankComm(t)
	dir, err := os.MkdirTemp("", "samefile")
	if err != nil {
		rankFail("%v", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chdir(dir); err != nil {
		rankFail("%v", err)
	}
	triangle, path := "3 3\n2 3\n1 3\n1 2\n", "3 2\n2\n1 3\n2\n"
	reversed := "3 3\n3 2\n3 1\n2 1\n"
	// A path of 40,000 vertices (about 280 KB) whose last line, a
	// comment, differs.
	var long strings.Builder
	const n = 40000
	fmt.Fprintf(&long, "%d %d\n2\n", n, n-1)
	for v := 2; v < n; v++ {
		fmt.Fprintf(&long, "%d %d\n", v-1, v+1)
	}
	fmt.Fprintf(&long, "%d\n%% rank %d\n", n-1, rank)
	files := map[string]string{"g0.graph": triangle, "g1.graph": triangle, "s.graph": triangle,
		"g.graph": []string{triangle, path}[rank], "h.graph": []string{triangle, reversed}[rank],
		"t.graph": long.String()}
	if rank == 0 {
		files["m.graph"], files["d.graph"] = triangle, triangle
	} else if err := os.Mkdir("d.graph", 0o755); err != nil {
		rankFail("%v", err)
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			rankFail("%v", err)
		}
	}
	say := func(name, file string) {
		g, err := ReadGraph(c, file)
		if err != nil {
			fmt.Printf("rank %d %s: kind %d: %s\n", rank, name, KindOf(err), strings.ReplaceAll(err.Error(), "\n", " "))
			return
		}
		fmt.Printf("rank %d %s: n=%d\n", rank, name, g.GlobalN())
	}
	say("path", fmt.Sprintf("g%d.graph", rank))
	say("size", "g.graph")
	say("head", "h.graph")
	say("tail", "t.graph")
	say("same", "s.graph")
	say("missing", "m.graph")
	say("dir", "d.graph")
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
