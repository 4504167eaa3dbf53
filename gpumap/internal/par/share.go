package par

import "sync/atomic"

// Share divides threads among the workers of a task queue (the
// sub-problems of a multisection), by the number of tasks running: with
// two threads, two tasks at once run one thread each and a task left alone
// takes both. A task's executor takes its share when the task starts and
// whenever the task calls Grow, between loops. Parallel loops of tasks that
// ran on every thread at once oversubscribed the cores, and every thread of
// a parallel FM holds a searcher of its own (24 bytes per vertex) to
// fault in. Only the speed depends on it: the loops of this package give
// the same results for any thread count.
type Share struct {
	threads int
	running atomic.Int32
}

// NewShare returns a share of threads threads (at least one).
func NewShare(threads int) *Share { return &Share{threads: max(threads, 1)} }

// Member returns an executor for one worker of the share; Run gives it
// its share.
func (s *Share) Member() *Exec { return &Exec{threads: 1, share: s} }

// Run runs task on x, a Member of s, counted as running meanwhile.
func (s *Share) Run(x *Exec, task func(x *Exec)) {
	s.running.Add(1)
	defer s.running.Add(-1)
	x.Grow()
	task(x)
}

// grow is Grow for a member of a Share: the threads divided by the tasks
// running, at least one.
func (s *Share) grow(x *Exec) int {
	x.threads = max(1, s.threads/max(1, int(s.running.Load())))
	return x.threads
}
