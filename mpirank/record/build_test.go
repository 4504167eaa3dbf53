package record

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// reference merges ranks the slow, obvious way: maps of undirected edges.
func reference(ranks []Rank) (bytes, msgs map[[2]int32]int64) {
	bytes, msgs = map[[2]int32]int64{}, map[[2]int32]int64{}
	for a, r := range ranks {
		for j, p := range r.Peers {
			if int(p) == a {
				continue
			}
			k := [2]int32{min(int32(a), p), max(int32(a), p)}
			if r.Bytes[j] > 0 {
				bytes[k] += int64(r.Bytes[j])
			}
			if r.Msgs[j] > 0 {
				msgs[k] += int64(r.Msgs[j])
			}
		}
	}
	return bytes, msgs
}

// edgesOf lists a graph's edges, checking that it is valid and each row
// sorted.
func edgesOf(t *testing.T, g *graph.Graph) map[[2]int32]int64 {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	m := map[[2]int32]int64{}
	for v := int32(0); int(v) < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if e > g.XAdj[v] && g.Adj[e-1] >= g.Adj[e] {
				t.Fatalf("row %d not increasing: %v", v, g.Adj[g.XAdj[v]:g.XAdj[v+1]])
			}
			if v < g.Adj[e] {
				m[[2]int32{v, g.Adj[e]}] = g.W(e)
			}
		}
	}
	return m
}

func randomRanks(rng *rand.Rand, n, peers int) []Rank {
	ranks := make([]Rank, n)
	for a := range ranks {
		r := &ranks[a]
		r.Host = []string{"h0", "h 1", "", "h0"}[rng.IntN(4)]
		r.Lost = rng.Uint64N(3)
		for _, p := range rng.Perm(n)[:rng.IntN(min(peers, n)+1)] {
			r.Peers = append(r.Peers, int32(p))
			b := rng.Uint64N(1 << uint(rng.IntN(40)))
			if rng.IntN(5) == 0 {
				b = 0 // zero-byte messages: an edge of the message graph only
			}
			r.Bytes = append(r.Bytes, b)
			r.Msgs = append(r.Msgs, 1+rng.Uint64N(100))
		}
	}
	return ranks
}

// Build and BuildEncoded give exactly the reference's edges (symmetric,
// duplicates summed, zero-byte edges only in the message graph) and the
// same header and totals.
func TestBuildEncodedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		ranks := randomRanks(rng, 1+rng.IntN(40), 12)
		enc := make([][]byte, len(ranks))
		for a, r := range ranks {
			var err error
			if enc[a], err = EncodeRank(r); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Build(ranks, "prog")
		if err != nil {
			t.Fatal(err)
		}
		q, err := BuildEncoded(len(ranks), "prog", func(r int) ([]byte, error) { return enc[r], nil })
		if err != nil {
			t.Fatal(err)
		}
		wb, wm := reference(ranks)
		for _, x := range []*Pattern{p, q} {
			if got := edgesOf(t, x.Bytes); !reflect.DeepEqual(got, wb) && len(got)+len(wb) > 0 {
				t.Fatalf("trial %d: byte edges\n%v\nwant\n%v", trial, got, wb)
			}
			if got := edgesOf(t, x.Msgs); !reflect.DeepEqual(got, wm) && len(got)+len(wm) > 0 {
				t.Fatalf("trial %d: message edges\n%v\nwant\n%v", trial, got, wm)
			}
		}
		p.Bytes, p.Msgs, q.Bytes, q.Msgs = nil, nil, nil, nil
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("trial %d: Build %+v, BuildEncoded %+v", trial, p, q)
		}
	}
}

func TestBuildEncodedErrors(t *testing.T) {
	rec, _ := EncodeRank(Rank{Host: "h", Peers: []int32{1, 5}, Bytes: []uint64{1, 2}, Msgs: []uint64{1, 1}})
	for cut := 0; cut < len(rec); cut++ {
		if _, err := BuildEncoded(6, "", func(int) ([]byte, error) { return rec[:cut], nil }); err == nil {
			t.Errorf("a record cut to %d of %d bytes was accepted", cut, len(rec))
		}
	}
	if _, err := BuildEncoded(3, "", func(int) ([]byte, error) { return rec, nil }); err == nil || err.Error() != "traffic of rank 0: rank 0 sent to rank 5, outside the 3 ranks" {
		t.Errorf("a peer outside: %v", err)
	}
	if _, err := BuildEncoded(6, "", func(int) ([]byte, error) { return append(rec, 0), nil }); err == nil {
		t.Error("a byte after the record was accepted")
	}
}

// ringRecords is a synthetic pattern: n ranks, each sending to its k
// nearest ranks on a ring (k/2 each way), 10 d bytes in d messages to the
// rank d away.
func ringRecords(n, k int) [][]byte {
	out := make([][]byte, n)
	for a := range out {
		r := Rank{Host: "node" + string(rune('0'+a%4))}
		for d := 1; d <= k/2; d++ {
			for _, p := range []int{(a + d) % n, (a - d + n) % n} {
				r.Peers = append(r.Peers, int32(p))
				r.Bytes = append(r.Bytes, uint64(10*d))
				r.Msgs = append(r.Msgs, uint64(d))
			}
		}
		out[a], _ = EncodeRank(r)
	}
	return out
}

// BenchmarkBuildEncoded reports what rank 0 allocates per recorded arc
// (one rank's entry for one peer) while merging a 4096-rank ring of 64
// peers each: the bound of its memory at MPI_Finalize.
func BenchmarkBuildEncoded(b *testing.B) {
	const n, k = 4096, 64
	recs := ringRecords(n, k)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := BuildEncoded(n, "ring", func(r int) ([]byte, error) { return recs[r], nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(n*k), "B/arc")
}
