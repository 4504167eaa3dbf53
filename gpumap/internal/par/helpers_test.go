package par

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoopsShareHelpers: loops started from many goroutines at once, nested
// loops, and loops after the helpers have blocked (longer than spinFor
// apart) each run every chunk and task exactly once, and no worker id of
// Each is used by two goroutines at the same time.
func TestLoopsShareHelpers(t *testing.T) {
	check := func(threads, n int) {
		x := New(threads)
		seen := make([]int32, n)
		x.For(n, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
			// A nested loop inside a chunk.
			inner := make([]int32, MinGrain*2)
			New(2).For(len(inner), func(_, lo, hi int) {
				for i := lo; i < hi; i++ {
					inner[i]++
				}
			})
			for i, v := range inner {
				if v != 1 {
					t.Errorf("nested loop: index %d visited %d times", i, v)
					return
				}
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Errorf("threads=%d n=%d: index %d visited %d times", threads, n, i, s)
				return
			}
		}
		tasks := 64
		ran := make([]int32, tasks)
		inUse := make([]atomic.Int32, x.Workers(tasks))
		x.Each(tasks, func(w, i int) {
			if inUse[w].Add(1) != 1 {
				t.Errorf("threads=%d: worker %d used by two goroutines at once", threads, w)
			}
			atomic.AddInt32(&ran[i], 1)
			time.Sleep(10 * time.Microsecond)
			inUse[w].Add(-1)
		})
		for i, r := range ran {
			if r != 1 {
				t.Errorf("threads=%d: task %d ran %d times", threads, i, r)
				return
			}
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				check(1+(g+r)%4, MinGrain*(1+r%5)+g)
			}
		}()
	}
	wg.Wait()
	for r := 0; r < 3; r++ {
		time.Sleep(3 * spinFor) // the helpers block
		check(2, MinGrain*4)
	}
}
