package distmap

import (
	"math/rand/v2"
	"testing"
)

// idTable (as the ghosts' numbering and the far clusters' weights use
// it) against Go maps, on keys that stress open addressing: multiples of large powers of two, ids above 2^31 and near
// 2^62, 0, and enough keys to grow the tables many times.
func hashKeys() []int64 {
	var ks []int64
	for i := int64(0); i < 5000; i++ {
		ks = append(ks, i<<20, i<<33, 1<<62+i*(1<<16), i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		ks = append(ks, r.Int64N(1<<40))
	}
	return ks
}

func TestIdTableLikeMap(t *testing.T) {
	ks := hashKeys()
	var tb idTable[int32]
	tb.init(32)
	m := map[int64]bool{}
	for _, k := range ks {
		tb.at(k)
		tb.at(k) // twice: still one entry
		m[k] = true
	}
	if tb.n != len(m) {
		t.Fatalf("n = %d, want %d", tb.n, len(m))
	}
	if 2*tb.n > len(tb.key) {
		t.Fatalf("%d keys in %d slots: more than half full", tb.n, len(tb.key))
	}
	i := int32(0)
	for k := range m {
		tb.val[tb.slot(k)] = i
		i++
	}
	seen := map[int32]bool{}
	for k := range m {
		s := tb.slot(k)
		if tb.key[s] != k || seen[tb.val[s]] {
			t.Fatalf("key %d: slot %d holds %d, value %d", k, s, tb.key[s], tb.val[s])
		}
		seen[tb.val[s]] = true
	}
	for _, k := range []int64{3 << 50, 1<<62 - 1} {
		if tb.key[tb.slot(k)] >= 0 {
			t.Fatalf("absent key %d found", k)
		}
	}
}

func TestFarWeightsLikeMaps(t *testing.T) {
	ks := hashKeys()
	ghosts, vw := ks[:7000], make([]int64, 7000)
	seen := map[int64]bool{}
	w, base := map[int64]int64{}, map[int64]int64{}
	var g []int64
	for i, k := range ghosts {
		if !seen[k] {
			seen[k] = true
			g = append(g, k)
			vw[len(g)-1] = int64(i%7 + 1)
			w[k], base[k] = vw[len(g)-1], vw[len(g)-1]
		}
	}
	var f idTable[farWeight]
	f.init(len(g))
	for i, k := range g {
		*f.at(k) = farWeight{vw[i], vw[i]}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		k := ks[r.IntN(len(ks))]
		x := r.Int64N(9) - 4
		f.at(k).w += x
		w[k] += x
		if r.IntN(4) == 0 {
			k = ks[r.IntN(len(ks))]
			gw, gb := f.get(k).w, f.get(k).base
			if gw != w[k] || gb != base[k] {
				t.Fatalf("key %d: get = %d, %d, want %d, %d", k, gw, gb, w[k], base[k])
			}
		}
	}
	for k := range w {
		if gw, gb := f.get(k).w, f.get(k).base; gw != w[k] || gb != base[k] {
			t.Fatalf("key %d: get = %d, %d, want %d, %d", k, gw, gb, w[k], base[k])
		}
	}
	if gw, gb := f.get(5<<55).w, f.get(5<<55).base; gw != 0 || gb != 0 {
		t.Fatalf("absent key: %d, %d", gw, gb)
	}
}
