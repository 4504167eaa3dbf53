package mpirank

import (
	"runtime"
	"testing"

	"github.com/gpumap/gpumap/mpirank/record"
)

// Rank 0's memory at MPI_Finalize: 65,536 ranks of 64 peers each (a ring,
// 10 d bytes in d messages to the rank d away, d = 1..32 each way) merged
// through patternOnRoot, the function gpumap_record_write runs on rank 0.
// The pattern comes out exact, and rank 0 allocates at most 64 bytes per
// recorded arc (it measures 48; decoding every rank first and building
// the two graphs from edge lists, as before, allocated 325).
func TestPatternOnRootMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("4 million recorded arcs")
	}
	const n, k = 1 << 16, 64
	var all []byte
	sizes, displs := make([]int32, n), make([]int32, n)
	r := record.Rank{Host: "node"}
	for a := 0; a < n; a++ {
		r.Peers, r.Bytes, r.Msgs = r.Peers[:0], r.Bytes[:0], r.Msgs[:0]
		for d := 1; d <= k/2; d++ {
			for _, p := range []int{(a + d) % n, (a - d + n) % n} {
				r.Peers = append(r.Peers, int32(p))
				r.Bytes = append(r.Bytes, uint64(10*d))
				r.Msgs = append(r.Msgs, uint64(d))
			}
		}
		raw, err := record.EncodeRank(r)
		if err != nil {
			t.Fatal(err)
		}
		b := compress(raw)
		displs[a], sizes[a] = int32(len(all)), int32(len(b))
		all = append(all, b...)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := patternOnRoot(all, sizes, displs, "ring")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	perArc := float64(after.TotalAlloc-before.TotalAlloc) / (n * k)
	t.Logf("%.1f bytes allocated per recorded arc", perArc)
	if perArc > 64 {
		t.Errorf("rank 0 allocated %.1f bytes per recorded arc, more than 64", perArc)
	}

	// 10 d bytes and d messages each way on every edge {v, v±d}.
	const sum = k / 2 * (k/2 + 1) / 2 // 1 + ... + 32
	if p.SentBytes != n*2*10*sum || p.SentMsgs != n*2*sum || p.Lost != 0 || p.SelfMsgs != 0 || len(p.Hosts) != 1 {
		t.Fatalf("totals %d bytes in %d messages, %d lost, %d hosts", p.SentBytes, p.SentMsgs, p.Lost, len(p.Hosts))
	}
	for _, g := range []struct {
		what string
		unit int64
		xadj []int64
		adj  []int32
		w    func(int64) int64
	}{{"bytes", 20, p.Bytes.XAdj, p.Bytes.Adj, p.Bytes.W}, {"messages", 2, p.Msgs.XAdj, p.Msgs.Adj, p.Msgs.W}} {
		if len(g.adj) != n*k {
			t.Fatalf("%s: %d stored edges, want %d", g.what, len(g.adj), n*k)
		}
		for v := 0; v < n; v++ {
			if g.xadj[v+1]-g.xadj[v] != k {
				t.Fatalf("%s: vertex %d has %d neighbours", g.what, v, g.xadj[v+1]-g.xadj[v])
			}
			for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
				d := (int(g.adj[e]) - v + n) % n
				d = min(d, n-d)
				if d < 1 || d > k/2 || g.w(e) != g.unit*int64(d) {
					t.Fatalf("%s: edge {%d,%d} of weight %d", g.what, v, g.adj[e], g.w(e))
				}
			}
		}
	}
}
