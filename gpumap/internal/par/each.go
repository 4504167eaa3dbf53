package par

import (
	"sync"
	"sync/atomic"
)

// Each calls f(i, x) for i in [0,n) on up to threads goroutines that take
// the next index as they finish, for independent tasks of uneven size
// (candidate solutions, sibling sub-problems). When several run at once
// each gets a one-thread executor x; alone (threads or n at most 1), f runs
// on the caller's goroutine with a threads-thread executor. Results must
// not depend on which goroutine ran what: write them by index.
func Each(threads, n int, f func(i int, x *Exec)) {
	all := New(threads)
	threads = min(all.Threads(), n)
	if threads <= 1 {
		for i := 0; i < n; i++ {
			f(i, all)
		}
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := New(1)
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i, x)
			}
		}()
	}
	wg.Wait()
}
