package refinement

// gainHeap is an addressable max-heap of vertices keyed by (gain, tie).
type gainHeap struct {
	items []heapItem
	pos   []int32 // pos[v] = index in items, -1 when absent
}

type heapItem struct {
	gain int64
	tie  uint32
	v    int32
}

func newGainHeap(n int) *gainHeap {
	h := &gainHeap{pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *gainHeap) len() int { return len(h.items) }

// reserve makes room for vertices 0..n-1 (the heap must be empty).
func (h *gainHeap) reserve(n int) {
	if cap(h.pos) < n {
		h.pos = make([]int32, n)
		for i := range h.pos {
			h.pos[i] = -1
		}
		return
	}
	old := len(h.pos)
	h.pos = h.pos[:n]
	for i := old; i < n; i++ {
		h.pos[i] = -1
	}
}

func (h *gainHeap) contains(v int32) bool { return h.pos[v] >= 0 }

func (h *gainHeap) clear() {
	for _, it := range h.items {
		h.pos[it.v] = -1
	}
	h.items = h.items[:0]
}

func less(a, b heapItem) bool { // a ranks below b
	return a.gain < b.gain || a.gain == b.gain && a.tie < b.tie
}

// push inserts v or updates its key.
func (h *gainHeap) push(v int32, gain int64, tie uint32) {
	if i := h.pos[v]; i >= 0 {
		old := h.items[i]
		h.items[i].gain, h.items[i].tie = gain, tie
		if less(old, h.items[i]) {
			h.up(int(i))
		} else {
			h.down(int(i))
		}
		return
	}
	h.items = append(h.items, heapItem{gain, tie, v})
	h.pos[v] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

func (h *gainHeap) top() heapItem { return h.items[0] }

func (h *gainHeap) pop() heapItem {
	it := h.items[0]
	h.remove(it.v)
	return it
}

func (h *gainHeap) remove(v int32) {
	i := int(h.pos[v])
	if i < 0 {
		return
	}
	last := len(h.items) - 1
	h.swap(i, last)
	h.items = h.items[:last]
	h.pos[v] = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

func (h *gainHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i].v] = int32(i)
	h.pos[h.items[j].v] = int32(j)
}

func (h *gainHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h.items[p], h.items[i]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *gainHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && less(h.items[l], h.items[r]) {
			c = r
		}
		if !less(h.items[i], h.items[c]) {
			return
		}
		h.swap(i, c)
		i = c
	}
}
