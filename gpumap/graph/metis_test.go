package graph

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A 4-cycle 1-2-3-4-1 with a chord 1-3.
const square = `% a comment
4 5
2 3 4
1 3
1 2 4
1 3
`

func TestParseSquare(t *testing.T) {
	g, err := ParseMETIS([]byte(square))
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 4 || g.M() != 5 {
		t.Fatalf("n=%d m=%d", g.N(), g.M())
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if d := g.Degree(0); d != 3 {
		t.Fatalf("deg(1) = %d", d)
	}
}

func TestFmtVariants(t *testing.T) {
	// The same weighted path 1-2-3 (vertex weights 5,6,7; edge weights 8,9)
	// in every fmt variant that carries those weights.
	files := map[string]string{
		"11":   "3 2 11\n5 2 8\n6 1 8 3 9\n7 2 9\n",
		"011":  "3 2 011\n5 2 8\n6 1 8 3 9\n7 2 9\n",
		"111":  "3 2 111\n1 5 2 8\n2 6 1 8 3 9\n3 7 2 9\n",
		"11 1": "3 2 11 1\n5 2 8\n6 1 8 3 9\n7 2 9\n",
	}
	for name, text := range files {
		g, err := ParseMETIS([]byte(text))
		if err != nil {
			t.Fatalf("fmt %s: %v", name, err)
		}
		if g.VW[2] != 7 || g.W(g.XAdj[1]+1) != 9 {
			t.Fatalf("fmt %s: weights %v %v", name, g.VW, g.EdgeWeights())
		}
	}
	unit := map[string]string{
		"none": "3 2\n2\n1 3\n2\n",
		"0":    "3 2 0\n2\n1 3\n2\n",
		"000":  "3 2 000\n2\n1 3\n2\n",
		"100":  "3 2 100\n4 2\n4 1 3\n4 2\n",
		"1":    "3 2 1\n2 1\n1 1 3 1\n2 1\n",
		"10":   "3 2 10\n1 2\n1 1 3\n1 2\n",
		"110":  "3 2 110\n9 1 2\n9 1 1 3\n9 1 2\n",
		"101":  "3 2 101\n9 2 1\n9 1 1 3 1\n9 2 1\n",
	}
	for name, text := range unit {
		g, err := ParseMETIS([]byte(text))
		if err != nil {
			t.Fatalf("fmt %s: %v", name, err)
		}
		if v, e := g.UnitWeights(); !v || !e || g.M() != 2 {
			t.Fatalf("fmt %s: not the unit path: %+v", name, g)
		}
	}
}

func TestIsolatedVerticesAndComments(t *testing.T) {
	g, err := ParseMETIS([]byte("%c\n4 1\n\n3\n% inside\n2\n\n\n% trailing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 4 || g.Degree(0) != 0 || g.Degree(3) != 0 || g.Degree(1) != 1 {
		t.Fatalf("%+v", g)
	}
}

func TestMalformed(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"empty", "", "bad header: the file has no header line"},
		{"one field", "3\n", "bad header: want \"n m [fmt [ncon]]\""},
		{"letters", "3 x\n", `line 1: bad header: "x" is not an integer`},
		{"negative n", "-3 2\n", "negative vertex or edge count"},
		{"bad fmt", "3 2 12\n", `fmt "12" must be up to three binary digits`},
		{"long fmt", "3 2 0011\n", `fmt "0011"`},
		{"ncon", "3 2 10 2\n1 1 2\n", "multi-constraint"},
		{"huge n", "1000000 0\n\n", "only 1 lines follow"},
		{"one short", "3 0\n\n\n", "only 2 lines follow"},
		{"out of range", "3 2\n2\n1 4\n2\n", "line 3 (vertex 2): neighbour 4 is out of range [1,3]"},
		{"zero neighbour", "3 2\n2\n0 3\n2\n", "neighbour 0 is out of range"},
		{"self loop", "3 2\n2\n2 3\n2\n", "line 3 (vertex 2): self loop"},
		{"asymmetric", "3 2\n2 3\n1\n2\n", "asymmetric edge: line 2 (vertex 1) lists neighbour 3, but line 4 (vertex 3) does not list 1"},
		{"asymmetric weight", "2 1 1\n2 5\n1 6\n", "asymmetric edge weight: line 2 (vertex 1) gives edge to 2 weight 5, but line 3 (vertex 2) gives it weight 6"},
		{"duplicate", "3 4\n2 2 3\n1 1 3\n1 2\n", "line 2 (vertex 1): duplicate edge to neighbour 2"},
		{"negative edge weight", "2 1 1\n2 -5\n1 -5\n", "line 2 (vertex 1): edge to 2 has negative weight -5"},
		{"negative vertex weight", "2 1 10\n-1 2\n1 1\n", "line 2 (vertex 1): negative vertex weight -1"},
		{"missing edge weight", "2 1 1\n2\n1 1\n", "line 2 (vertex 1): neighbour 2 has no edge weight"},
		{"too few lines", "3 2\n2\n1 3\n% c\n", "file ends after 2 of 3 vertex lines"},
		{"too few lines counted", "3 2\n2\n1 3\n", "only 2 lines follow"},
		{"too many lines", "2 1\n2\n1\n1\n", "line 4: more than the header's n=2 vertex lines"},
		{"m too small", "3 1\n2\n1 3\n2\n", "more edges than the header's m=1"},
		{"m too large", "3 5\n2\n1 3\n2\n", "m=5 edges, but the vertex lines list 4 neighbour entries"},
		{"float", "2 1\n2.5\n1\n", `line 2 (vertex 1): neighbour: "2.5" is not an integer`},
		{"overflow", "2 1\n99999999999999999999\n1\n", "too large"},
	}
	for _, c := range cases {
		_, err := ParseMETIS([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", c.name, err, c.want)
		}
	}
}

func TestRoundTripAndCompression(t *testing.T) {
	b := NewBuilder(5)
	b.AddEdge(0, 1, 3)
	b.AddEdge(1, 2, 4)
	b.AddEdge(2, 0, 1)
	b.AddEdge(3, 4, 7)
	b.SetVertexWeight(4, 9)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteMETIS(&buf, g); err != nil {
		t.Fatal(err)
	}
	plain := append([]byte(nil), buf.Bytes()...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	var zs bytes.Buffer
	enc, _ := zstd.NewWriter(&zs)
	enc.Write(plain)
	enc.Close()
	for name, data := range map[string][]byte{"plain": plain, "gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		h, err := ReadMETIS(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equalGraphs(g, h) {
			t.Fatalf("%s: round trip changed the graph:\n%s", name, plain)
		}
	}
}

func equalGraphs(a, b *Graph) bool {
	if a.N() != b.N() || len(a.Adj) != len(b.Adj) {
		return false
	}
	for i := range a.XAdj {
		if a.XAdj[i] != b.XAdj[i] {
			return false
		}
	}
	for i := range a.Adj {
		if a.Adj[i] != b.Adj[i] || a.W(int64(i)) != b.W(int64(i)) {
			return false
		}
	}
	for i := range a.VW {
		if a.VW[i] != b.VW[i] {
			return false
		}
	}
	return true
}

func FuzzReadMETIS(f *testing.F) {
	f.Add([]byte(square))
	f.Add([]byte("3 2 11\n5 2 8\n6 1 8 3 9\n7 2 9\n"))
	f.Add([]byte("3 2 111\n1 5 2 8\n2 6 1 8 3 9\n3 7 2 9\n"))
	f.Add([]byte("%c\n4 1\n\n3\n% inside\n2\n\n"))
	f.Add([]byte("2 1 1\n2 5\n1 6\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadMETIS(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteMETIS(&buf, g); err != nil {
			t.Fatal(err)
		}
		h, err := ParseMETIS(buf.Bytes())
		if err != nil {
			t.Fatalf("cannot read back what was written: %v\n%s", err, buf.Bytes())
		}
		if !equalGraphs(g, h) {
			t.Fatal("round trip changed the graph")
		}
	})
}
