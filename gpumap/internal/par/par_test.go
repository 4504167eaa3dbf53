package par

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

func TestScanAndSum(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		x := New(threads)
		for _, n := range []int{0, 1, 5, MinGrain - 1, MinGrain*3 + 7, 100000} {
			a := make([]int64, n)
			want := make([]int64, n)
			var s int64
			for i := range a {
				a[i] = rand.Int64N(100)
				want[i] = s
				s += a[i]
			}
			sum := x.SumInt64(n, func(lo, hi int) int64 {
				var t int64
				for _, v := range a[lo:hi] {
					t += v
				}
				return t
			})
			if got := ExclusiveScan(x, a); got != s || sum != s {
				t.Fatalf("threads=%d n=%d: total %d, sum %d, want %d", threads, n, got, sum, s)
			}
			for i := range a {
				if a[i] != want[i] {
					t.Fatalf("threads=%d n=%d: a[%d]=%d want %d", threads, n, i, a[i], want[i])
				}
			}
		}
	}
}

func TestForCoversRange(t *testing.T) {
	x := New(4)
	n := 50000
	seen := make([]int32, n)
	x.For(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			seen[i]++
		}
	})
	for i, s := range seen {
		if s != 1 {
			t.Fatalf("index %d visited %d times", i, s)
		}
	}
}

func TestEachRunsEveryTaskOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 5} {
		for _, n := range []int{0, 1, 3, 100} {
			hits := make([]int32, n)
			New(threads).Each(n, func(w, i int) {
				if w < 0 || w >= New(threads).Workers(n) {
					t.Errorf("worker %d", w)
				}
				atomic.AddInt32(&hits[i], 1)
			})
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("threads=%d n=%d: task %d ran %d times", threads, n, i, h)
				}
			}
		}
	}
}

// BenchmarkForShort: loops of about 2 x 50 us separated by as much
// sequential work, the shape of most of a mapping's thousands of parallel
// loops (see helpers.go): at -t 2 the second core idles between them.
func BenchmarkForShort(b *testing.B) {
	a := make([]float64, 2*MinGrain*20)
	serial := make([]float64, MinGrain*20)
	step := func(s []float64) {
		for j := range s {
			s[j] = s[j]*1.0000001 + 1e-9
		}
	}
	for _, threads := range []int{1, 2} {
		x := New(threads)
		b.Run(fmt.Sprintf("t%d", threads), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x.For(len(a), func(_, lo, hi int) { step(a[lo:hi]) })
				step(serial)
			}
		})
	}
}
