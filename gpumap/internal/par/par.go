// Package par holds the data-parallel primitives of gpumap's CPU backend:
// parallel for over index ranges, reductions and prefix sums, all
// deterministic for a given thread count (work is cut into the same chunks
// and combined in the same order every time).
package par

import (
	"runtime"
	"sync/atomic"
)

// Exec runs data-parallel loops on a fixed number of goroutines: the
// caller's and helpers that poll between loops (helpers.go).
type Exec struct {
	threads int
	own     int    // a team member's threads before it grew
	team    *Team  // nil: a fixed thread count
	share   *Share // a worker of a Share (team is nil then)
}

// New returns an executor for the given thread count; threads <= 0 means
// all cores (GOMAXPROCS).
func New(threads int) *Exec {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return &Exec{threads: threads}
}

// Threads is the executor's thread count.
func (x *Exec) Threads() int { return x.threads }

// MinGrain is the smallest chunk worth a goroutine: below it loops run
// serially, which keeps small graphs free of scheduling overhead.
const MinGrain = 4096

// Chunks splits [0,n) into at most Threads() contiguous chunks of at least
// MinGrain items (the last may be shorter); the split depends only on n and
// the thread count.
func (x *Exec) Chunks(n int) int {
	c := min(x.threads, (n+MinGrain-1)/MinGrain)
	return max(c, 1)
}

func bounds(n, chunks, i int) (int, int) {
	return n * i / chunks, n * (i + 1) / chunks
}

// For calls body(chunk, lo, hi) for the chunks of [0,n), in parallel.
func (x *Exec) For(n int, body func(chunk, lo, hi int)) {
	c := x.Chunks(n)
	if c == 1 {
		body(0, 0, n)
		return
	}
	run(c, func(i int) {
		lo, hi := bounds(n, c, i)
		body(i, lo, hi)
	})
}

// SumInt64 is a deterministic parallel reduction of f over [0,n).
func (x *Exec) SumInt64(n int, f func(lo, hi int) int64) int64 {
	c := x.Chunks(n)
	part := make([]int64, c)
	x.For(n, func(chunk, lo, hi int) { part[chunk] = f(lo, hi) })
	var s int64
	for _, p := range part {
		s += p
	}
	return s
}

// ExclusiveScan replaces a[i] by a[0]+...+a[i-1] and returns the total.
func ExclusiveScan[T int32 | int64 | int](x *Exec, a []T) T {
	n := len(a)
	c := x.Chunks(n)
	if c == 1 {
		var s T
		for i, v := range a {
			a[i] = s
			s += v
		}
		return s
	}
	sums := make([]T, c)
	x.For(n, func(chunk, lo, hi int) {
		var s T
		for _, v := range a[lo:hi] {
			s += v
		}
		sums[chunk] = s
	})
	var total T
	for i, s := range sums {
		sums[i] = total
		total += s
	}
	x.For(n, func(chunk, lo, hi int) {
		s := sums[chunk]
		for i := lo; i < hi; i++ {
			v := a[i]
			a[i] = s
			s += v
		}
	})
	return total
}

// Each calls f(worker, i) for every i in [0,n) on up to Threads()
// goroutines, handing the tasks out in increasing order as goroutines
// become free: for a few coarse tasks of uneven size (file pieces, ranges
// of coarse vertices, subproblems). worker in [0, Workers(n)) identifies
// the goroutine, for per-thread scratch memory. Results must not depend on
// which goroutine ran a task.
func (x *Exec) Each(n int, f func(worker, i int)) {
	workers := x.Workers(n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	run(workers, func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			f(w, i)
		}
	})
}

// Workers is the number of goroutines Each uses for n tasks.
func (x *Exec) Workers(n int) int { return max(min(x.threads, n), 1) }
