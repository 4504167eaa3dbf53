package mpirank

import (
	"math"
	"sort"
)

// Pattern tells how the volumes of different ranks combine.
type Pattern int32

const (
	// PatternSend: volumes are bytes sent; edge {a,b} carries the sum of
	// both directions.
	PatternSend Pattern = 0
	// PatternExchange: volumes are bytes exchanged (a symmetric halo
	// swap); both sides must report the same value, counted once.
	PatternExchange Pattern = 1
)

// checkLocal validates one rank's arguments.
func checkLocal(rank, size int, neighbors []int32, volumes []float64) *Error {
	if len(neighbors) != len(volumes) {
		return errorf(ErrArgument, "rank %d: %d neighbours but %d volumes", rank, len(neighbors), len(volumes))
	}
	for i, nb := range neighbors {
		switch {
		case nb < 0 || int(nb) >= size:
			return errorf(ErrNeighbor, "rank %d: neighbour %d (entry %d) is out of range [0,%d)", rank, nb, i, size)
		case int(nb) == rank:
			return errorf(ErrNeighbor, "rank %d: lists itself as neighbour (entry %d)", rank, i)
		}
		v := volumes[i]
		switch {
		case math.IsNaN(v):
			return errorf(ErrVolume, "rank %d: volume to neighbour %d is NaN", rank, nb)
		case math.IsInf(v, 0):
			return errorf(ErrVolume, "rank %d: volume to neighbour %d is infinite", rank, nb)
		case v < 0:
			return errorf(ErrVolume, "rank %d: volume to neighbour %d is negative (%g)", rank, nb, v)
		}
	}
	return nil
}

// weighted is the merged pattern: undirected edges with float volumes.
type weighted struct {
	n    int
	u, v []int32
	vol  []float64
	maxV float64
}

// merge combines every rank's pattern into undirected edges. Within one
// rank, repeated neighbours add up.
func merge(pats []payload, kind Pattern) (*weighted, *Error) {
	type key struct{ a, b int32 }
	type val struct {
		ab, ba       float64
		hasAB, hasBA bool
	}
	m := map[key]*val{}
	var keys []key
	for r, p := range pats {
		for i, nb := range p.Neighbors {
			a, b := int32(r), nb
			k := key{min(a, b), max(a, b)}
			e := m[k]
			if e == nil {
				e = &val{}
				m[k] = e
				keys = append(keys, k)
			}
			if a < b {
				e.ab += p.Volumes[i]
				e.hasAB = true
			} else {
				e.ba += p.Volumes[i]
				e.hasBA = true
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].a < keys[j].a || keys[i].a == keys[j].a && keys[i].b < keys[j].b
	})
	w := &weighted{n: len(pats)}
	for _, k := range keys {
		e := m[k]
		vol := e.ab + e.ba
		if kind == PatternExchange {
			if !e.hasAB || !e.hasBA {
				from, to := k.a, k.b
				if !e.hasAB {
					from, to = k.b, k.a
				}
				return nil, errorf(ErrInconsistent, "rank %d lists neighbour %d but rank %d does not list %d (exchange patterns must be symmetric)", from, to, to, from)
			}
			if math.Abs(e.ab-e.ba) > 1e-9*math.Max(e.ab, e.ba) {
				return nil, errorf(ErrInconsistent, "rank %d exchanges %g bytes with rank %d, which reports %g", k.a, e.ab, k.b, e.ba)
			}
			vol = e.ab
		}
		if math.IsInf(vol, 0) {
			return nil, errorf(ErrVolume, "volume between ranks %d and %d overflows", k.a, k.b)
		}
		w.u, w.v, w.vol = append(w.u, k.a), append(w.v, k.b), append(w.vol, vol)
		w.maxV = math.Max(w.maxV, vol)
	}
	return w, nil
}
