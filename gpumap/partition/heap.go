package partition

// maxHeap is a small addressable max-heap of vertices by int64 key.
type maxHeap struct {
	v   []int32
	key []int64
	pos []int32
}

func newMaxHeap(n int) *maxHeap {
	h := &maxHeap{pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *maxHeap) len() int { return len(h.v) }

func (h *maxHeap) contains(v int32) bool { return h.pos[v] >= 0 }

func (h *maxHeap) clear() {
	for _, v := range h.v {
		h.pos[v] = -1
	}
	h.v, h.key = h.v[:0], h.key[:0]
}

func (h *maxHeap) push(v int32, key int64) {
	if i := h.pos[v]; i >= 0 {
		old := h.key[i]
		h.key[i] = key
		if key > old {
			h.up(int(i))
		} else {
			h.down(int(i))
		}
		return
	}
	h.v = append(h.v, v)
	h.key = append(h.key, key)
	h.pos[v] = int32(len(h.v) - 1)
	h.up(len(h.v) - 1)
}

func (h *maxHeap) pop() (int32, int64) {
	v, k := h.v[0], h.key[0]
	last := len(h.v) - 1
	h.swap(0, last)
	h.v, h.key = h.v[:last], h.key[:last]
	h.pos[v] = -1
	if last > 0 {
		h.down(0)
	}
	return v, k
}

func (h *maxHeap) swap(i, j int) {
	h.v[i], h.v[j] = h.v[j], h.v[i]
	h.key[i], h.key[j] = h.key[j], h.key[i]
	h.pos[h.v[i]], h.pos[h.v[j]] = int32(i), int32(j)
}

func (h *maxHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h.key[p] >= h.key[i] {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *maxHeap) down(i int) {
	n := len(h.v)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.key[r] > h.key[l] {
			c = r
		}
		if h.key[i] >= h.key[c] {
			return
		}
		h.swap(i, c)
		i = c
	}
}
