package mpirank

import (
	"encoding/binary"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/hwdetect"
)

// gathered lays the payloads out as rank 0 receives them.
func gathered(pats []payload) ([]byte, []int32, []int32) {
	var all []byte
	sizes := make([]int32, len(pats))
	displs := make([]int32, len(pats))
	for r, p := range pats {
		if p.Rec.Host == "" {
			p.Rec = hwdetect.Record{Host: "n0", Socket: hwdetect.UnknownSocket, Core: -1}
		}
		b := encodePayload(p)
		displs[r], sizes[r] = int32(len(all)), int32(len(b))
		all = append(all, b...)
	}
	return all, sizes, displs
}

// crossed: ranks 0-2 and 1-3 exchange much, on a 2:2 machine where ranks
// 0,1 and 2,3 share sockets: reordering pays.
func crossed(vol float64) []payload {
	return []payload{
		{Neighbors: []int32{2, 1}, Volumes: []float64{vol, 1}},
		{Neighbors: []int32{3, 0}, Volumes: []float64{vol, 1}},
		{Neighbors: []int32{0}, Volumes: []float64{vol}},
		{Neighbors: []int32{1}, Volumes: []float64{vol}},
	}
}

// D9 (issue 8): the largest distance the parser takes (2^40) maps, with
// the cost computed from the real distances.
func TestHugeDistance(t *testing.T) {
	all, sizes, displs := gathered(crossed(1 << 20))
	keys, res, e := mapOnRoot(all, sizes, displs, Options{Hierarchy: "2:2", Distance: "1:1099511627776"}, false)
	if e != nil {
		t.Fatal(e)
	}
	// Ranks 1 and 2 swap: the heavy pairs share sockets, the light ones
	// (2 bytes each way) cross at 2^40.
	if res.Changed != 2 || res.JAfter != 2*1099511627776+4<<20 || keys[1] != 2 || keys[2] != 1 {
		t.Fatalf("keys %v, %+v", keys, res)
	}
}

// D10 (issue 8): a cost beyond the largest double is an input error, not
// +Inf.
func TestCostOverflow(t *testing.T) {
	// DBL_MAX bytes one way to a rank in the other socket (distance 10).
	pats := []payload{{Neighbors: []int32{2}, Volumes: []float64{math.MaxFloat64}}, {}, {}, {}}
	all, sizes, displs := gathered(pats)
	for _, evalOnly := range []bool{true, false} {
		_, _, e := mapOnRoot(all, sizes, displs, Options{Hierarchy: "2:2"}, evalOnly)
		if e == nil || e.Code != ErrVolume || !strings.Contains(e.Msg, "the cost of the placement overflows a double") {
			t.Errorf("evalOnly %v: %v", evalOnly, e)
		}
	}
}

// A mapping that is not at least MinGain cheaper keeps the order: a ring
// of four in launch order is already optimal on 2:2.
func TestKeepOrderUnlessCheaper(t *testing.T) {
	ring := []payload{
		{Neighbors: []int32{1, 3}, Volumes: []float64{5, 5}},
		{Neighbors: []int32{2, 0}, Volumes: []float64{5, 5}},
		{Neighbors: []int32{3, 1}, Volumes: []float64{5, 5}},
		{Neighbors: []int32{0, 2}, Volumes: []float64{5, 5}},
	}
	all, sizes, displs := gathered(ring)
	keys, res, e := mapOnRoot(all, sizes, displs, Options{Hierarchy: "2:2"}, false)
	if e != nil {
		t.Fatal(e)
	}
	for r, k := range keys {
		if int(k) != r {
			t.Fatalf("order changed: %v (%+v)", keys, res)
		}
	}
	if res.Changed != 0 || res.JAfter != res.JBefore {
		t.Fatalf("%+v", res)
	}
	all, sizes, displs = gathered(crossed(1000))
	if _, res, _ := mapOnRoot(all, sizes, displs, Options{Hierarchy: "2:2"}, false); res.Changed == 0 || res.JAfter >= res.JBefore {
		t.Fatalf("crossed pattern not reordered: %+v", res)
	}
}

// FuzzDecodePayload: the pattern decoder never panics and never allocates
// beyond its limit; what it accepts encodes back to a payload that decodes
// to the same thing.
func FuzzDecodePayload(f *testing.F) {
	f.Add(encodePayload(payload{Rec: hwdetect.Record{Host: "n", BootID: "b", Socket: 1, Core: 2}, Neighbors: []int32{3, 1}, Volumes: []float64{1, 2}}))
	f.Add(encodePayload(payload{}))
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x10})
	f.Add([]byte("\x09not zstd"))
	// Lengths announced above the limit: 2^24 (allocatable, so that a
	// decoder that ignored the limit would show in the count below) and
	// one over it, with a payload of the announced length behind the first.
	big := compress(make([]byte, 1<<24))
	f.Add(big)
	f.Add(binary.AppendUvarint(nil, 1<<16+1))
	codecs() // their one-time allocations are not the decoder's
	f.Fuzz(func(t *testing.T, data []byte) {
		// What decodePayload may allocate for a limit of 2^16 decoded
		// bytes: the decoded bytes, the strings (at most as many), and
		// 12 bytes per neighbour (at most one per decoded byte), plus
		// the decoder's own state; a length taken from the input without
		// the limit costs more.
		const limit = 1 << 16
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p, err := decodePayload(data, limit)
		runtime.ReadMemStats(&after)
		if a := after.TotalAlloc - before.TotalAlloc; a > 14*limit+1<<20 {
			t.Fatalf("decoding %d bytes allocated %d bytes (limit %d decoded bytes): %v", len(data), a, limit, err)
		}
		if err != nil {
			return
		}
		if len(p.Neighbors) != len(p.Volumes) {
			t.Fatal("lengths differ")
		}
		q, err := decodePayload(encodePayload(p), 1<<20)
		if err != nil || q.Rec != p.Rec || len(q.Neighbors) != len(p.Neighbors) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range q.Neighbors {
			if q.Neighbors[i] != p.Neighbors[i] || math.Float64bits(q.Volumes[i]) != math.Float64bits(p.Volumes[i]) {
				t.Fatalf("entry %d changed", i)
			}
		}
	})
}
