package distmap

import "math/bits"

// idTable maps global ids (>= 0) to values of type V by open addressing
// (linear probing from a Fibonacci hash), kept at most half full. The
// ghosts of a rank and the clusters named outside its range are looked
// up in the innermost loops, where Go maps were the cost: sorting every
// ghost entry and a binary search for each were 0.18 s of rank 1's 0.32 s
// in buildPieces on dbic1 at P=2, and two map lookups a candidate label
// 0.2 s of rank 0's 0.49 s in bestCluster (profiles).
type idTable[V any] struct {
	key   []int64 // -1: empty
	val   []V
	n     int
	shift uint
}

// init empties t, sized for n ids without growing.
func (t *idTable[V]) init(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	t.key, t.val = make([]int64, size), make([]V, size)
	for i := range t.key {
		t.key[i] = -1
	}
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
}

// slot is where k is, or the empty slot where it would go.
func (t *idTable[V]) slot(k int64) int {
	mask := len(t.key) - 1
	for i := int(uint64(k) * 0x9e3779b97f4a7c15 >> t.shift); ; i = (i + 1) & mask {
		if t.key[i] == k || t.key[i] < 0 {
			return i
		}
	}
}

// get returns k's value, the zero value where t does not hold k.
func (t *idTable[V]) get(k int64) V { return t.val[t.slot(k)] }

// at returns k's value to change, adding k with the zero value where t
// does not hold it (valid until the next at).
func (t *idTable[V]) at(k int64) *V {
	i := t.slot(k)
	if t.key[i] >= 0 {
		return &t.val[i]
	}
	if 2*(t.n+1) > len(t.key) {
		key, val := t.key, t.val
		t.init(len(key))
		for j, x := range key {
			if x >= 0 {
				s := t.slot(x)
				t.key[s], t.val[s] = x, val[j]
				t.n++
			}
		}
		i = t.slot(k)
	}
	t.key[i] = k
	t.n++
	return &t.val[i]
}
