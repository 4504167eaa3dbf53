package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// Issue 8's defects at the command line: every case names the offending
// input and exits with the documented status.
func TestHostileInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "grid.graph")
	if code, _, e := runCLI("gen", "-t", "grid", "-dims", "12x12", "-o", good); code != 0 {
		t.Fatalf("gen: %d %s", code, e)
	}
	m := filepath.Join(dir, "out.map")
	max := "9223372036854775807"
	heavy := writeFile(t, dir, "heavy.graph", "4 0 10\n"+max+"\n"+max+"\n1\n1\n")
	heavyEdges := writeFile(t, dir, "heavyedges.graph", "2 1 1\n2 "+max+"\n1 "+max+"\n")
	bigEdges := writeFile(t, dir, "bigedges.graph", "2 1 1\n2 4294967296\n1 4294967296\n")
	tiny := writeFile(t, dir, "tiny.graph", "4 3\n2\n1 3\n2 4\n3\n")
	// 64 MiB of blanks after a valid graph, zstd-compressed to a few KB.
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	zw.Write([]byte("2 1\n2\n1\n"))
	zw.Write(bytes.Repeat([]byte(" \n"), 32<<20))
	zw.Close()
	bomb := writeFile(t, dir, "bomb.graph.zst", zb.String())
	deep := strings.Repeat("1:", 500000) + "4"
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"D1 deep hierarchy", []string{"map", "-g", good, "-h", deep, "-d", deep, "-m", m}, exitUsage, "500001 levels; at most 64 are supported"},
		{"D6 zstd bomb", []string{"map", "-g", bomb, "-h", "2", "-d", "1", "-m", m}, exitFailure, "graph text exceeds the size limit: more than"},
		{"D6 bomb, limit raised", []string{"map", "-q", "-g", bomb, "-h", "2", "-d", "1", "-m", m, "-max-graph-bytes", "80M"}, exitOK, "feasible=true"},
		{"D6 bad limit", []string{"map", "-g", bomb, "-h", "2", "-d", "1", "-m", m, "-max-graph-bytes", "lots"}, exitUsage, `"lots" is not a positive size`},
		{"D6 /dev/zero", []string{"map", "-g", "/dev/zero", "-h", "2", "-d", "1", "-m", m}, exitFailure, "byte 0 is NUL: binary data"},
		{"eval -m /dev/zero", []string{"eval", "-g", tiny, "-h", "4", "-d", "1", "-m", "/dev/zero"}, exitFailure, "line 1: longer than 65536 bytes"},
		{"D7 vertex weights", []string{"map", "-g", heavy, "-h", "2", "-d", "1", "-m", m}, exitFailure, "line 2 (vertex 1): the vertex weights sum to more than 2305843009213693952"},
		{"D7 eval", []string{"eval", "-g", heavy, "-h", "2", "-d", "1", "-m", m}, exitFailure, "the vertex weights sum"},
		{"D9 edge weights", []string{"map", "-g", heavyEdges, "-h", "2", "-d", "1", "-m", m}, exitFailure, "the edge weights sum to more than"},
		{"D9 J bound", []string{"map", "-g", bigEdges, "-h", "2", "-d", "1099511627776", "-m", m}, exitFailure, "the largest distance is 1099511627776"},
		{"D9 J bound, eval", []string{"eval", "-g", bigEdges, "-h", "2", "-d", "1099511627776", "-m", m}, exitFailure, "the largest distance is 1099511627776"},
		{"D8 tiny on -h 10000", []string{"map", "-q", "-g", tiny, "-h", "10000", "-d", "1", "-m", m}, exitOK, "J=3"},
		{"D8 tiny on -h 2147483647", []string{"map", "-q", "-g", tiny, "-h", "2147483647", "-d", "5", "-m", m}, exitOK, "J=15"},
		{"D8 eval on -h 2147483647", []string{"eval", "-g", tiny, "-h", "2147483647", "-d", "5", "-m", m}, exitOK, "J=15"},
		{"D13 map -e -1", []string{"map", "-g", good, "-h", "4:4", "-d", "1:10", "-e", "-1", "-m", m}, exitUsage, "-e -1: the imbalance must be a finite number"},
		{"D13 map -e NaN", []string{"map", "-g", good, "-h", "4:4", "-d", "1:10", "-e", "NaN", "-m", m}, exitUsage, "-e NaN: the imbalance"},
		{"D13 map -e Inf", []string{"map", "-g", good, "-h", "4:4", "-d", "1:10", "-e", "Inf", "-m", m}, exitUsage, "-e +Inf: the imbalance"},
		{"D13 eval -e -1", []string{"eval", "-g", good, "-h", "4:4", "-d", "1:10", "-e", "-1", "-m", m}, exitUsage, "-e -1: the imbalance"},
		{"D13 eval -e NaN", []string{"eval", "-g", good, "-h", "4:4", "-d", "1:10", "-e", "NaN", "-m", m}, exitUsage, "-e NaN: the imbalance"},
		{"D13 map -help", []string{"map", "-help"}, exitOK, "-max-graph-bytes"},
		{"D13 eval -help", []string{"eval", "-help"}, exitOK, "-e float"},
		{"D13 gen -help", []string{"gen", "-help"}, exitOK, "-dims"},
		{"threads beyond the limit", []string{"map", "-g", good, "-h", "4:4", "-d", "1:10", "-t", "2147483647", "-m", m}, exitUsage, "-t 2147483647: thread count must be in [0, 4096]"},
		{"gen beyond memory", []string{"gen", "-t", "grid", "-dims", "46340x46340", "-o", m}, exitFailure, "more than the"},
		{"gen rgg beyond memory", []string{"gen", "-t", "rgg", "-n", "2147483647", "-o", m}, exitFailure, "more than the"},
		{"gen rmat beyond memory", []string{"gen", "-t", "rmat", "-n", "1073741824", "-ef", "1024", "-o", m}, exitFailure, "more than the"},
		{"gen rmat beyond int32 ids", []string{"gen", "-t", "rmat", "-n", "2147483647", "-o", m}, exitUsage, "2^31 ids are too many"},
		{"gen rmat no draws", []string{"gen", "-t", "rmat", "-n", "1000", "-ef", "0", "-o", m}, exitUsage, "-ef 0 out of range"},
		{"D13 unknown flag", []string{"map", "-frobnicate"}, exitUsage, "flag provided but not defined"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		msg := out + errs
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%s: exit %d, want %d; output %q does not contain %q", c.name, code, c.code, msg, c.want)
		}
	}
	// An infeasible mapping: exit 3 with a message on stderr.
	all0 := writeFile(t, dir, "zero.map", strings.Repeat("0\n", 144))
	if code, _, errs := runCLI("eval", "-g", good, "-h", "4:4", "-d", "1:10", "-m", all0); code != exitInfeasible || !strings.Contains(errs, "infeasible: heaviest PE 144 > Lmax 10") {
		t.Errorf("infeasible eval: exit %d, stderr %q", code, errs)
	}
	os.Remove(m)
}
