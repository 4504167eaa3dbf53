package par

import "sync/atomic"

// Team shares threads among executors that run side by side, such as the
// tries of the whole machine's split: a member that finishes gives its
// threads back (Done), and the members still running take their share
// when they next call Grow. Three tries on two threads run one thread
// each, time-sliced; the last one used to finish alone on one core while
// the other idled (on a 2^20-vertex 3D grid, 100-150 ms of a 2.2 s run).
// Only the speed depends on it: the loops of this package give the same
// results for any thread count.
type Team struct {
	threads int
	active  atomic.Int32 // members not done
	freed   atomic.Int32 // threads of the members done
}

// NewTeam returns a team of members executors sharing threads threads.
func NewTeam(threads, members int) *Team {
	t := &Team{threads: max(threads, 1)}
	t.active.Store(int32(members))
	return t
}

// Member returns an executor of the team with threads threads of its own.
func (t *Team) Member(threads int) *Exec {
	threads = max(threads, 1)
	return &Exec{threads: threads, own: threads, team: t}
}

// Done gives x's own threads to the members still running; x is not used
// afterwards.
func (t *Team) Done(x *Exec) {
	t.freed.Add(int32(x.own)) // before active drops: Grow reads them in the other order
	t.active.Add(-1)
}

// Grow adds to x's threads its share of those freed by its team's members
// that are done, and returns its thread count (without a team, Threads);
// a worker of a Share takes its share now, which may be fewer threads.
// Only the goroutine that runs x's loops may call it, and only between
// them: the count stays fixed from one Grow to the next, so a slice sized
// by Chunks or Workers stays valid until the caller grows again.
func (x *Exec) Grow() int {
	if x.share != nil {
		return x.share.grow(x)
	}
	t := x.team
	if t == nil {
		return x.threads
	}
	if a := int(t.active.Load()); a > 0 {
		x.threads = max(x.threads, min(t.threads, x.own+int(t.freed.Load())/a))
	}
	return x.threads
}

// Grows reports whether Grow may give x more threads than it has now: a
// team member or a share's worker short of all the threads. Long loops
// of such an executor may run in rounds and grow between them.
func (x *Exec) Grows() bool {
	switch {
	case x.share != nil:
		return x.threads < x.share.threads
	case x.team != nil:
		return x.threads < x.team.threads
	}
	return false
}
