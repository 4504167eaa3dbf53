package graph

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/topology"
	"github.com/klauspost/compress/zstd"
)

// D6 (issue 8): a zstd bomb, /dev/zero or garbage must not be read whole.
func TestReadLimits(t *testing.T) {
	// 16 MiB of newlines after a valid header compress to a few hundred
	// bytes: far beyond 64 x the compressed size (and 1 MiB).
	text := append([]byte("2 1\n2\n1\n"), bytes.Repeat([]byte("\n"), 16<<20)...)
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	zw.Write(text)
	zw.Close()
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.graph.zst")
	os.WriteFile(bomb, zb.Bytes(), 0o644)
	_, err := ReadFile(bomb)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "64 x the") {
		t.Fatalf("bomb of %d bytes: %v", zb.Len(), err)
	}
	if _, err := ReadMETIS(bytes.NewReader(zb.Bytes())); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("bomb as a stream: %v", err)
	}
	// An explicit limit lets it through.
	if g, err := ReadFileLimit(bomb, 32<<20); err != nil || g.N() != 2 {
		t.Fatalf("explicit limit: %v", err)
	}
	if _, err := ReadFileLimit(bomb, 1000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 1000 bytes") {
		t.Fatalf("small explicit limit: %v", err)
	}
	// /dev/zero: binary, rejected at the first read.
	if _, err := ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "byte 0 is NUL") {
		t.Fatalf("/dev/zero: %v", err)
	}
	// A stream without a header: rejected once the first line is complete
	// (or too long to be a header), not at the end of the stream.
	for _, r := range []*endless{{unit: "y\n"}, {unit: "        "}} {
		if _, err := ReadMETIS(r); err == nil || !strings.Contains(err.Error(), "bad header") || r.n > 1<<20 {
			t.Fatalf("endless %q: read %d bytes, %v", r.unit, r.n, err)
		}
	}
}

// endless repeats unit forever.
type endless struct {
	unit string
	n    int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.unit[(e.n+i)%len(e.unit)]
	}
	e.n += len(p)
	return len(p), nil
}

// D7 (issue 8): sums of weights are checked, naming the line.
func TestWeightOverflow(t *testing.T) {
	max := "9223372036854775807"
	cases := []struct{ text, want string }{
		{"4 0 10\n" + max + "\n" + max + "\n1\n1\n", "line 2 (vertex 1): the vertex weights sum to more than 2305843009213693952"},
		{"3 0 10\n2305843009213693952\n1\n1\n", "line 3 (vertex 2): the vertex weights sum"},
		{"2 1 1\n2 " + max + "\n1 " + max + "\n", "the edge weights sum to more than 2305843009213693952"},
	}
	for _, c := range cases {
		if _, err := ParseMETIS([]byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	// 2^61 exactly is allowed.
	if _, err := ParseMETIS([]byte("2 0 10\n2305843009213693951\n1\n")); err != nil {
		t.Errorf("2^61: %v", err)
	}
}

// D9 (issue 8): J's bound is the total edge weight times the largest distance.
func TestCheckCost(t *testing.T) {
	g, err := FromCSR([]int64{0, 1, 2}, []int32{1, 0}, nil, []int64{1 << 30, 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCost(g, 1<<32); err != nil {
		t.Errorf("2^62 exactly: %v", err)
	}
	if err := CheckCost(g, 1<<32+1); err == nil || !strings.Contains(err.Error(), "edge weights sum to 1073741824 and the largest distance is 4294967297") {
		t.Errorf("above 2^62: %v", err)
	}
}

// D14 (issue 8): CSR input is 0-based, and so are its messages.
func TestFromCSRMessages(t *testing.T) {
	path := func(adj []int32, w []int64) error {
		_, err := FromCSR([]int64{0, 1, 3, 5, 6}, adj, nil, w)
		return err
	}
	cases := []struct {
		adj  []int32
		w    []int64
		want string
	}{
		{[]int32{1, 0, 2, 1, 4, 2}, nil, "vertex 2: neighbour 4 is out of range [0,3]"},
		{[]int32{1, 0, 2, 1, -1, 2}, nil, "vertex 2: neighbour -1 is out of range [0,3]"},
		{[]int32{1, 0, 2, 1, 3, 2}, []int64{1, 1, 1, 1, 1, -3}, "vertex 3: edge to 2 has negative weight -3"},
		{[]int32{1, 0, 2, 1, 3, 1}, nil, "vertex 3 lists neighbour 1, but vertex 1 does not list 3"},
		{[]int32{1, 0, 2, 1, 3, 2}, []int64{1, 1, 1, 1, 5, 6}, "vertex 2 gives edge to 3 weight 5, but vertex 3 gives it weight 6"},
	}
	for _, c := range cases {
		if err := path(c.adj, c.w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want %q", c.adj, c.w, err, c.want)
		}
	}
	if err := path([]int32{1, 0, 2, 1, 3, 2}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := FromCSR([]int64{0, 2, 4}, []int32{1, 1, 0, 0}, nil, nil); err == nil || !strings.Contains(err.Error(), "vertex 0: duplicate edge to neighbour 1") {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := FromCSR([]int64{0, 1}, []int32{0}, nil, nil); err == nil || !strings.Contains(err.Error(), "vertex 0: self loop (vertex lists itself as neighbour 0)") {
		t.Errorf("self loop: %v", err)
	}
	shape := []struct {
		xadj []int64
		want string
	}{
		{[]int64{0}, "at least one vertex"},
		{[]int64{1, 1}, "xadj[0] = 1"},
		{[]int64{0, 2, 1}, "xadj decreases at vertex 1"},
		{[]int64{0, 1 << 41}, "exceed the limit"},
		{[]int64{0, 3}, "adjncy has 0 entries, xadj[n] says 3"},
	}
	for _, c := range shape {
		if _, err := FromCSR(c.xadj, nil, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("xadj %v: %v, want %q", c.xadj, err, c.want)
		}
	}
	if _, err := FromCSR([]int64{0, 0, 0}, nil, []int64{math.MaxInt64, math.MaxInt64}, nil); err == nil || !strings.Contains(err.Error(), "vertex 0: the vertex weights sum") {
		t.Errorf("INT64_MAX vertex weights: %v", err)
	}
}

func TestLmaxLarge(t *testing.T) {
	cases := []struct {
		total int64
		k     int
		eps   float64
		want  int64
	}{
		{10, 1, 0.1, 11},
		{64, 64, 0, 1},
		{1 << 53, 1, 0, 1 << 53},           // the 1e-12 tolerance must not cut below the exact bound
		{1<<61 - 1, 3, 0, (1<<61 + 1) / 3}, // ceil, in integers
		{1 << 61, 2, 1e6, 1 << 61},         // saturates at 2^62/k
		{5, 1<<31 - 1, 0.03, 1},
	}
	for _, c := range cases {
		if got := Lmax(c.total, c.k, c.eps); got != c.want {
			t.Errorf("Lmax(%d, %d, %g) = %d, want %d", c.total, c.k, c.eps, got, c.want)
		}
	}
}

// Evaluate on a machine with far more PEs than vertices uses O(n) memory.
func TestEvaluateHugeMachine(t *testing.T) {
	top, err := topology.Parse("2147483647", "7")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := FromCSR([]int64{0, 1, 3, 4}, []int32{1, 0, 2, 1}, []int64{2, 3, 4}, []int64{5, 5, 6, 6})
	m, err := Evaluate(g, top, []int32{0, 2147483646, 2147483646}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.J != 5*7 || m.MaxBlock != 7 || m.Lmax != 1 || m.Feasible {
		t.Fatalf("%+v", m)
	}
}

// xz and bzip2 files are named as such, not parsed as a garbled header.
func TestReadOtherCompression(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"xz":    {0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 0xe6, 0xd6},
		"bzip2": []byte("BZh91AY&SY\x00\x00"),
	} {
		path := filepath.Join(dir, "g."+name)
		os.WriteFile(path, data, 0o644)
		_, err := ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), name+"-compressed input") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestEpsFor: the imbalance gives the limit asked for, down to the
// average (eps 0), and is negative below it.
func TestEpsFor(t *testing.T) {
	for _, c := range []struct {
		total int64
		k     int
		lmax  int64
	}{{6897, 32, 216}, {6912, 32, 216}, {10, 10, 1}, {10, 10, 2}, {40172, 192, 216}, {1000003, 7, 150000}, {1 << 50, 3, 1<<50/3 + 5}} {
		eps := EpsFor(c.total, c.k, c.lmax)
		if eps < 0 || Lmax(c.total, c.k, eps) != c.lmax {
			t.Errorf("%+v: eps %v gives Lmax %d", c, eps, Lmax(c.total, c.k, eps))
		}
	}
	if eps := EpsFor(6913, 32, 216); eps >= 0 {
		t.Errorf("a limit below the average: eps %v", eps)
	}
}
