package distmap

import (
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// Phases times the phases of a run for -trace: each Done prints, on rank
// 0, the phase's wall time (the slowest rank's) and CPU time (user+sys
// summed over the ranks), so that a phase costing more than its share at
// P ranks shows even on a loaded machine, where only CPU time is exact.
// Collective: every rank's Phases is nil (no trace) or none is.
type Phases struct {
	c    mpi.Comm
	w    io.Writer
	rank int
	t    time.Time
	cpu  time.Duration
}

// NewPhases starts timing on c, or returns nil when w is nil. start
// is when the first phase began (a process's start, before MPI_Init).
func NewPhases(c mpi.Comm, w io.Writer, start time.Time) *Phases {
	if w == nil {
		return nil
	}
	_, _, _, _, rank := mpi.Inspect(c)
	return &Phases{c: c, w: w, rank: rank, t: start}
}

// cpuTime is the process's user+sys time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Done ends the phase name and starts the next (collective; nothing on a
// nil Phases).
func (p *Phases) Done(name string) error {
	if p == nil {
		return nil
	}
	now, cpu := time.Now(), cpuTime()
	wall := []int64{int64(now.Sub(p.t))}
	sum := []int64{int64(cpu - p.cpu)}
	if err := mpi.Allreduce(p.c, wall, mpi.Max); err != nil {
		return err
	}
	if err := mpi.Allreduce(p.c, sum, mpi.Sum); err != nil {
		return err
	}
	if p.rank == 0 {
		fmt.Fprintf(p.w, "phase %-22s wall %7.3f s  cpu %7.3f s\n", name, time.Duration(wall[0]).Seconds(), time.Duration(sum[0]).Seconds())
	}
	// The collectives above are the next phase's.
	p.t, p.cpu = time.Now(), cpuTime()
	return nil
}
