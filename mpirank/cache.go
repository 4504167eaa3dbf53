package mpirank

/*
#include <stdlib.h>
extern char **environ;
static char *g_environ(int i) { return environ[i]; }
*/
import "C"

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"github.com/gpumap/gpumap/hwdetect"
)

// The mapping cache. Codes that build a topology every time step, or per
// solver call, would otherwise gather and map the same pattern again and
// again. Every rank keeps, per process, the outcome of its last
// CacheEntries calls (least recently used first out): its own new rank and
// the call's Result, under a digest of everything the call depended on
// that this rank contributed (the call and options in canonical form with
// the environment applied, Threads, the size and rank, this process's
// location, its pattern, and the GPUMAP_* and HWLOC_* environment). Rank 0
// gives each mapping a random id, which every rank stores with its entry.
//
// A later call looks its digest up. The call is a hit when every rank
// found an entry and all entries carry the same id: every rank then made
// exactly the contribution it made to that one earlier call, so the whole
// input, and with it the mapping, is the same. Whether it is a hit rides
// on the reduction of the agreement that every call already makes (see
// agree): a hit costs no extra collective, and skips the gather, the
// mapping and the broadcasts of the outcome. A digest that collides
// (SHA-256) is the only way to a wrong hit.

// CacheEntries bounds the mapping cache of a process.
const CacheEntries = 8

type cacheEntry struct {
	digest [sha256.Size]byte
	id     uint64 // the mapping's id, the same on every rank; never 0
	key    int32  // this process's new rank
	res    Result
}

type mapCache struct {
	mu      sync.Mutex
	entries []cacheEntry // least recently used first
}

// cache is the process's cache: every communicator and thread shares it
// (a hit needs the same id on every rank, so entries of other
// communicators never match by accident).
var cache mapCache

// lookup returns the entry stored under digest and marks it used.
func (m *mapCache) lookup(digest [sha256.Size]byte) (cacheEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if e.digest == digest {
			m.entries = append(append(m.entries[:i:i], m.entries[i+1:]...), e)
			return e, true
		}
	}
	return cacheEntry{}, false
}

// store adds e, replacing an entry of the same digest and dropping the
// least recently used beyond CacheEntries.
func (m *mapCache) store(e cacheEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, o := range m.entries {
		if o.digest == e.digest {
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			break
		}
	}
	if len(m.entries) >= CacheEntries {
		m.entries = append(m.entries[:0], m.entries[len(m.entries)-CacheEntries+1:]...)
	}
	m.entries = append(m.entries, e)
}

// newMappingID draws the id of a mapping on rank 0.
func newMappingID() uint64 {
	for {
		if id := rand.Uint64(); id != 0 {
			return id
		}
	}
}

// digest hashes what this rank contributes to a call (see the cache).
func digest(cn canon, opt Options, size, rank int, rec hwdetect.Record, neighbors []int32, volumes []float64) [sha256.Size]byte {
	h := sha256.New()
	h.Write(cn.encode())
	num := func(v uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	str := func(s string) { num(uint64(len(s))); h.Write([]byte(s)) }
	num(uint64(opt.Threads))
	num(uint64(size))
	num(uint64(rank))
	str(rec.Host)
	str(rec.BootID)
	str(rec.Switch)
	num(uint64(rec.Socket))
	num(uint64(rec.Core))
	num(uint64(len(neighbors)))
	for _, n := range neighbors {
		num(uint64(uint32(n)))
	}
	num(uint64(len(volumes)))
	for _, v := range volumes {
		num(math.Float64bits(v))
	}
	hashEnv(h)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// hashEnv adds the GPUMAP_* and HWLOC_* variables of the environment as
// it is now (C's environ: Go's copy misses a later setenv), sorted.
func hashEnv(h hash.Hash) {
	var vars []string
	for i := 0; ; i++ {
		p := C.g_environ(C.int(i))
		if p == nil {
			break
		}
		if s := C.GoString(p); strings.HasPrefix(s, "GPUMAP_") || strings.HasPrefix(s, "HWLOC_") {
			vars = append(vars, s)
		}
	}
	sort.Strings(vars)
	for _, s := range vars {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
}

// Votes for equality. A rank adds a byte string to the agreement's
// MPI_MAX reduction as 16-bit pieces, each as p and 0xffff-p: the maximum
// of both is the maximum and the complement of the minimum, so every rank
// passed the same string when each pair adds up to 0xffff. One reduction
// thus checks equality without a broadcast of rank 0's string first.

// castEqual fills v (len(b) ints; len(b) even) with b's votes.
func castEqual(v []int32, b []byte) {
	for i := 0; i+1 < len(b); i += 2 {
		p := int32(b[i]) | int32(b[i+1])<<8
		v[i], v[i+1] = p, 0xffff-p
	}
}

// allEqual reports whether the reduced votes v say every rank cast the
// same string.
func allEqual(v []int32) bool {
	for i := 0; i+1 < len(v); i += 2 {
		if v[i]+v[i+1] != 0xffff {
			return false
		}
	}
	return true
}

// idBytes is a mapping id as the string the ranks vote on.
func idBytes(id uint64) []byte { return binary.LittleEndian.AppendUint64(nil, id) }
