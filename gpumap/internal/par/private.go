package par

import "unsafe"

// CacheLine is the size of the unit of memory that cores pass between
// them when one writes it: two threads that write to the same line, even
// to different bytes, take turns owning it.
const CacheLine = 64

// Private returns a zeroed slice of n elements (capacity possibly larger)
// that shares no cache line with any other object. Go's allocator puts
// small objects of one size next to each other, so per-thread scratch
// allocated in a loop (a hash table header, an array of k block weights)
// lands on the lines of its neighbours, and threads writing their own
// scratch slow each other down (false sharing: a contraction's hot loop
// took 50% more CPU on two threads than on one). An allocation whose size
// is a multiple of CacheLine starts on a line boundary and owns its lines:
// size classes are line multiples from there on, and spans are page
// aligned.
func Private[T any](n int) []T {
	var zero T
	sz := int(unsafe.Sizeof(zero))
	if sz == 0 {
		return make([]T, n)
	}
	unit := CacheLine / gcd(CacheLine, sz) // elements per whole number of lines
	c := max((n+unit-1)/unit*unit, unit)
	return make([]T, n, c)
}

// NewPrivate returns a zeroed *T alone on its cache lines (see Private),
// for a struct that one thread updates while others update theirs.
func NewPrivate[T any]() *T {
	return &Private[T](1)[0]
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// SharesLine reports whether the a bytes at p and the b bytes at q touch
// a common cache line (for tests of line-private scratch).
func SharesLine(p unsafe.Pointer, a uintptr, q unsafe.Pointer, b uintptr) bool {
	lo1, hi1 := uintptr(p)/CacheLine, (uintptr(p)+a-1)/CacheLine
	lo2, hi2 := uintptr(q)/CacheLine, (uintptr(q)+b-1)/CacheLine
	return lo1 <= hi2 && lo2 <= hi1
}

// Zeroed returns a slice of n zero elements whose memory has been written.
// Memory fresh from the kernel that is read before it is written is mapped
// to the shared zero page, and the first write faults again to replace it;
// with more than one thread that replacement flushes the page from every
// core's TLB, an interrupt to the other cores per page (on the 2-core VM,
// a 120x90x97 grid's connectivity records and FM views at -t 2: about 3%
// of the run's CPU samples in those interrupts, 16k page faults read and
// again written). A per-vertex array that is read before it is
// written (stamps compared before they are set, records looked up before
// they are built) should come from here: its pages then fault once, for
// writing. Go does not zero fresh memory, so the clear here is the write;
// reused memory is cleared twice, which costs a pass over it.
func Zeroed[T any](n int) []T {
	a := make([]T, n)
	clear(a)
	return a
}
