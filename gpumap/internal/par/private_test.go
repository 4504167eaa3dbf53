package par

import (
	"testing"
	"unsafe"
)

// TestPrivateOwnsItsLines checks that consecutive private allocations
// (what a loop over workers makes) never share a cache line, for element
// sizes that do and do not divide a line.
func TestPrivateOwnsItsLines(t *testing.T) {
	type odd struct {
		a, b, c int32
		d       [17]byte
	}
	check := func(name string, first, last func(i int) unsafe.Pointer) {
		t.Helper()
		for i := 1; i < 64; i++ {
			a, b := first(i-1), first(i)
			if SharesLine(a, uintptr(last(i-1))-uintptr(a)+1, b, uintptr(last(i))-uintptr(b)+1) {
				t.Fatalf("%s: allocations %d and %d share a cache line", name, i-1, i)
			}
		}
	}
	for _, n := range []int{1, 3, 6, 8, 9, 100} {
		ints := make([][]int64, 64)
		odds := make([][]odd, 64)
		for i := range ints {
			ints[i] = Private[int64](n)
			odds[i] = Private[odd](n)
			if len(ints[i]) != n || len(odds[i]) != n {
				t.Fatalf("n=%d: lengths %d, %d", n, len(ints[i]), len(odds[i]))
			}
		}
		check("int64", func(i int) unsafe.Pointer { return unsafe.Pointer(&ints[i][0]) },
			func(i int) unsafe.Pointer { return unsafe.Pointer(&ints[i][n-1]) })
		check("odd", func(i int) unsafe.Pointer { return unsafe.Pointer(&odds[i][0]) },
			func(i int) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(&odds[i][n-1]), unsafe.Sizeof(odd{})-1) })
	}
	type header struct { // 80 bytes, as a contraction's neighbour set
		a, b, c []int32
		n       int
	}
	hs := make([]*header, 64)
	for i := range hs {
		hs[i] = NewPrivate[header]()
	}
	check("struct", func(i int) unsafe.Pointer { return unsafe.Pointer(hs[i]) },
		func(i int) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(hs[i]), unsafe.Sizeof(header{})-1) })
}
