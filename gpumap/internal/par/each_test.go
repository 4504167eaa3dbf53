package par

import (
	"sync/atomic"
	"testing"
)

func TestEachRunsEveryIndexOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 5} {
		for _, n := range []int{0, 1, 7, 100} {
			var hits = make([]atomic.Int32, n)
			Each(threads, n, func(i int, x *Exec) {
				hits[i].Add(1)
				if want := 1; n > 1 && threads > 1 && x.Threads() != want {
					t.Errorf("threads %d n %d: executor has %d threads, want %d", threads, n, x.Threads(), want)
				}
				if (n <= 1 || threads <= 1) && x.Threads() != threads {
					t.Errorf("threads %d n %d: a lone task got %d threads", threads, n, x.Threads())
				}
			})
			for i := range hits {
				if hits[i].Load() != 1 {
					t.Fatalf("threads %d n %d: index %d ran %d times", threads, n, i, hits[i].Load())
				}
			}
		}
	}
}
