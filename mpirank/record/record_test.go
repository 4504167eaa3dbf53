package record

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
)

func TestEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(50)
		perm := rng.Perm(1000)
		r := Rank{Host: strings.Repeat("h", rng.IntN(5)), Lost: rng.Uint64N(3)}
		for i := 0; i < n; i++ {
			r.Peers = append(r.Peers, int32(perm[i]))
			r.Bytes = append(r.Bytes, rng.Uint64()>>rng.IntN(64))
			r.Msgs = append(r.Msgs, rng.Uint64N(1<<40))
		}
		b, err := EncodeRank(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRank(b)
		if err != nil {
			t.Fatal(err)
		}
		// Decoding yields peers in increasing order: compare as maps.
		want := map[int32][2]uint64{}
		for i, p := range r.Peers {
			want[p] = [2]uint64{r.Bytes[i], r.Msgs[i]}
		}
		have := map[int32][2]uint64{}
		for i, p := range got.Peers {
			if i > 0 && got.Peers[i-1] >= p {
				t.Fatalf("peers not increasing: %v", got.Peers)
			}
			have[p] = [2]uint64{got.Bytes[i], got.Msgs[i]}
		}
		if got.Host != r.Host || got.Lost != r.Lost || !reflect.DeepEqual(want, have) {
			t.Fatalf("round trip: %+v -> %+v", r, got)
		}
		for cut := 0; cut < len(b); cut++ {
			if _, err := DecodeRank(b[:cut]); err == nil {
				t.Fatalf("a record cut to %d of %d bytes decoded", cut, len(b))
			}
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, r := range []Rank{
		{Peers: []int32{1}, Bytes: []uint64{1}},
		{Peers: []int32{-1}, Bytes: []uint64{1}, Msgs: []uint64{1}},
		{Peers: []int32{3, 3}, Bytes: []uint64{1, 1}, Msgs: []uint64{1, 1}},
	} {
		if _, err := EncodeRank(r); err == nil {
			t.Errorf("%+v encoded", r)
		}
	}
}

// Three ranks: 0 sends 10 bytes (2 messages) to 1, 1 sends 5 bytes back
// and 7 to itself, 2 sends 3 zero-byte messages to 0 and 4 bytes to 1.
func handPattern(t *testing.T) *Pattern {
	t.Helper()
	p, err := Build([]Rank{
		{Host: "nodeA", Peers: []int32{1}, Bytes: []uint64{10}, Msgs: []uint64{2}},
		{Host: "node B", Peers: []int32{0, 1}, Bytes: []uint64{5, 7}, Msgs: []uint64{1, 1}, Lost: 2},
		{Host: "nodeA", Peers: []int32{0, 1}, Bytes: []uint64{0, 4}, Msgs: []uint64{3, 1}},
	}, "./prog  4\n4")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuildByHand(t *testing.T) {
	p := handPattern(t)
	edges := func(g *graph.Graph) map[[2]int32]int64 {
		m := map[[2]int32]int64{}
		for v := int32(0); int(v) < g.N(); v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if v < g.Adj[e] {
					m[[2]int32{v, g.Adj[e]}] = g.W(e)
				}
			}
		}
		return m
	}
	if got, want := edges(p.Bytes), map[[2]int32]int64{{0, 1}: 15, {1, 2}: 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("byte edges %v, want %v (the zero-byte edge {0,2} belongs to the message graph only)", got, want)
	}
	if got, want := edges(p.Msgs), map[[2]int32]int64{{0, 1}: 3, {0, 2}: 3, {1, 2}: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("message edges %v, want %v", got, want)
	}
	if p.SentBytes != 19 || p.SentMsgs != 7 || p.SelfBytes != 7 || p.SelfMsgs != 1 || p.Lost != 2 {
		t.Errorf("totals %+v", p)
	}
	if !reflect.DeepEqual(p.Hosts, []string{"nodeA", "node_B"}) || !reflect.DeepEqual(p.RankHost, []int32{0, 1, 0}) {
		t.Errorf("hosts %v %v", p.Hosts, p.RankHost)
	}
	if p.Program != "./prog 4 4" {
		t.Errorf("program %q", p.Program)
	}
}

func TestWriteReadBack(t *testing.T) {
	p := handPattern(t)
	for _, messages := range []bool{false, true} {
		var buf bytes.Buffer
		if err := p.Write(&buf, messages); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		g, err := graph.ReadMETIS(strings.NewReader(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		want := p.Bytes
		if messages {
			want = p.Msgs
		}
		if !reflect.DeepEqual(g.Adj, want.Adj) || !reflect.DeepEqual(g.EdgeWeights(), want.EdgeWeights()) {
			t.Errorf("read back %v %v, want %v %v", g.Adj, g.EdgeWeights(), want.Adj, want.EdgeWeights())
		}
		h, err := ReadHeader(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(h, p.Header) {
			t.Errorf("header %+v, want %+v\n%s", h, p.Header, text)
		}
		for _, line := range []string{"% ranks: 3\n", "% hosts: nodeA node_B\n", "% rank-hosts: 0 1 0\n",
			"% sent: 19 bytes in 7 messages (to self: 7 bytes in 1 messages)\n", "% not recorded: 2 messages"} {
			if !strings.Contains(text, line) {
				t.Errorf("no %q in\n%s", line, text)
			}
		}
	}
}

func TestBuildErrors(t *testing.T) {
	for _, c := range []struct {
		ranks []Rank
		want  string
	}{
		{[]Rank{{Peers: []int32{2}, Bytes: []uint64{1}, Msgs: []uint64{1}}, {}}, "rank 0 sent to rank 2, outside the 2 ranks"},
		{[]Rank{{Peers: []int32{1}, Bytes: []uint64{1 << 63}, Msgs: []uint64{1}}, {}}, "too many to record"},
		{[]Rank{{Peers: []int32{1}, Bytes: []uint64{1}}, {}}, "1 peers but 1 byte and 0 message counts"},
		{[]Rank{{Peers: []int32{1}, Bytes: []uint64{1 << 62}, Msgs: []uint64{1}}, {Peers: []int32{0}, Bytes: []uint64{1 << 62}, Msgs: []uint64{1}}}, "overflows"},
	} {
		if _, err := Build(c.ranks, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build: %v, want %q", err, c.want)
		}
	}
}

func TestReadHeaderErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"% ranks: x\n", `line 1 (ranks): "x" is not a rank count`},
		{"% ranks: 2\n% hosts: a\n% rank-hosts: 0 1\n", `line 3 (rank-hosts): rank 1: host index "1" is not one of the 1 hosts`},
		{"% ranks: 3\n% hosts: a\n% rank-hosts: 0 0\n", "line 3 (rank-hosts): 2 entries for 3 ranks"},
	} {
		if _, err := ReadHeader(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	h, err := ReadHeader(strings.NewReader("% any comment\n2 1\n2\n1\n"))
	if err != nil || h.RankHost != nil || h.Ranks != 0 {
		t.Errorf("plain METIS file: %+v %v", h, err)
	}
}

// A pattern given as a FIFO (gpumap place -g <(zcat ...)) is read once:
// ReadFile opened the path twice, and the second open waited forever for a
// writer.
func TestReadFileFIFO(t *testing.T) {
	p := handPattern(t)
	var buf bytes.Buffer
	if err := p.Write(&buf, false); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "pattern")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(buf.Bytes())
		f.Close()
	}()
	done := make(chan error, 1)
	var h Header
	go func() {
		var err error
		_, h, err = ReadFile(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(h, p.Header) {
			t.Errorf("header %+v, want %+v", h, p.Header)
		}
	case <-time.After(20 * time.Second):
		// Unblock the second open so the test binary can finish.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("ReadFile on a FIFO did not return: the file was opened twice")
	}
}
