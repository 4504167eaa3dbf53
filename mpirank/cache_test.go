package mpirank

import (
	"crypto/sha256"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/hwdetect"
)

// reduceMax is what MPI_Allreduce with MPI_MAX makes of the ranks' votes.
func reduceMax(votes ...[]int32) []int32 {
	out := append([]int32(nil), votes[0]...)
	for _, v := range votes[1:] {
		for i := range out {
			out[i] = max(out[i], v[i])
		}
	}
	return out
}

func TestEqualVotes(t *testing.T) {
	vote := func(id uint64) []int32 {
		v := make([]int32, 8)
		castEqual(v, idBytes(id))
		return v
	}
	if !allEqual(reduceMax(vote(0x1234_5678_9abc_def0), vote(0x1234_5678_9abc_def0))) {
		t.Error("equal ids: not all equal")
	}
	// Ids that differ in one bit, and ids whose pieces are each someone's maximum.
	for _, p := range [][2]uint64{{1, 3}, {0xffff, 0xfffe}, {0x0001_ffff, 0xffff_0001}, {1 << 63, 1}} {
		if allEqual(reduceMax(vote(p[0]), vote(p[1]), vote(p[0]))) {
			t.Errorf("%#x and %#x: all equal", p[0], p[1])
		}
	}
}

func TestCacheLRU(t *testing.T) {
	var m mapCache
	d := func(i int) (x [sha256.Size]byte) { x[0] = byte(i); return }
	for i := 1; i <= CacheEntries; i++ {
		m.store(cacheEntry{digest: d(i), id: uint64(i)})
	}
	if _, ok := m.lookup(d(1)); !ok { // 1 becomes the most recently used
		t.Fatal("entry 1 lost")
	}
	m.store(cacheEntry{digest: d(100), id: 100}) // evicts 2, the least recently used
	if _, ok := m.lookup(d(2)); ok {
		t.Error("entry 2 kept beyond CacheEntries")
	}
	for _, i := range []int{1, 3, CacheEntries, 100} {
		if e, ok := m.lookup(d(i)); !ok || e.id != uint64(i) {
			t.Errorf("entry %d: %v %v", i, e.id, ok)
		}
	}
	m.store(cacheEntry{digest: d(3), id: 33}) // replaces, does not add
	if e, _ := m.lookup(d(3)); e.id != 33 || len(m.entries) != CacheEntries {
		t.Errorf("replaced entry: id %d, %d entries", e.id, len(m.entries))
	}
}

// TestDigestChanges: everything a mapping depends on changes the digest
// that keys the cache.
func TestDigestChanges(t *testing.T) {
	cn, e := canonical(callReorder, Options{})
	if e != nil {
		t.Fatal(e)
	}
	rec := hwdetect.Record{Host: "n1", BootID: "b", Socket: 0, Core: 3}
	nb, vol := []int32{1, 2}, []float64{8, 8}
	base := digest(cn, Options{}, 4, 0, rec, nb, vol)
	if digest(cn, Options{}, 4, 0, rec, nb, vol) != base {
		t.Fatal("the digest of the same call differs")
	}
	hier, e := canonical(callReorder, Options{Hierarchy: "2:2"})
	if e != nil {
		t.Fatal(e)
	}
	moved := rec
	moved.Core = 2
	other := rec
	other.Host = "n2"
	for name, d := range map[string][sha256.Size]byte{
		"volume":    digest(cn, Options{}, 4, 0, rec, nb, []float64{8, 9}),
		"neighbour": digest(cn, Options{}, 4, 0, rec, []int32{1, 3}, vol),
		"rank":      digest(cn, Options{}, 4, 1, rec, nb, vol),
		"size":      digest(cn, Options{}, 5, 0, rec, nb, vol),
		"core":      digest(cn, Options{}, 4, 0, moved, nb, vol),
		"host":      digest(cn, Options{}, 4, 0, other, nb, vol),
		"hierarchy": digest(hier, Options{}, 4, 0, rec, nb, vol),
		"threads":   digest(cn, Options{Threads: 2}, 4, 0, rec, nb, vol),
	} {
		if d == base {
			t.Errorf("changing the %s keeps the digest", name)
		}
	}
	t.Setenv("GPUMAP_SOMETHING_NEW", "1") // os.Setenv reaches C's environ under cgo
	if digest(cn, Options{}, 4, 0, rec, nb, vol) == base {
		t.Error("a new GPUMAP_ variable keeps the digest")
	}
}

// TestPayloadBound: the bound on which the gather skips its 2 GiB check
// holds for incompressible patterns (random neighbours and volumes) and
// long names.
func TestPayloadBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, deg := range []int{0, 1, 7, 1000, 200000} {
		nb, vol := make([]int32, deg), make([]float64, deg)
		for i := range nb {
			nb[i], vol[i] = rng.Int32N(math.MaxInt32), math.Float64frombits(rng.Uint64()>>2)
		}
		rec := hwdetect.Record{Host: strings.Repeat("h", 300), BootID: "0123-4567", Socket: -1 << 40, Core: math.MaxInt}
		if n, b := len(encodePayload(payload{Rec: rec, Neighbors: nb, Volumes: vol})), payloadBound(rec, deg); int64(n) > b {
			t.Errorf("degree %d: %d bytes, bound %d", deg, n, b)
		}
	}
}
