package gpumap

import (
	"context"
	"fmt"
	"io"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/gpumap/gpumap/gpumap/runstat"
)

// PhaseTime is the wall time of one phase of a mapping run, and with
// Options.Stats what it used.
type PhaseTime struct {
	Name     string
	Duration time.Duration
	// With Options.Stats (Linux): the peak resident memory, the CPU time
	// of the process's threads, and the time they waited, runnable, for a
	// core that other processes held.
	PeakRSS, RSS, Heap int64 // bytes: peak and final resident set, final Go heap
	CPU, Wait          time.Duration
}

// Threads is the average number of threads the phase kept busy (running
// or runnable); 0 without Options.Stats.
func (p PhaseTime) Threads() float64 {
	if p.Duration <= 0 {
		return 0
	}
	return float64(p.CPU+p.Wait) / float64(p.Duration)
}

// Alone estimates the phase's wall time on a machine where every runnable
// thread gets a core at once: Duration * CPU / (CPU + Wait).
func (p PhaseTime) Alone() time.Duration {
	if p.CPU+p.Wait <= 0 {
		return p.Duration
	}
	return time.Duration(float64(p.Duration) * float64(p.CPU) / float64(p.CPU+p.Wait))
}

// tracker times phases and reports them on the progress writer. Phases may
// nest (a phase inside another is reported first).
type tracker struct {
	w      io.Writer
	stats  bool            // measure memory and threads (resets the process's peak-RSS counter)
	ctx    context.Context // the running phase's profile labels (nil: none)
	phases []PhaseTime
}

func (t *tracker) logf(format string, args ...any) {
	if t.w != nil {
		fmt.Fprintf(t.w, "gpumap: "+format+"\n", args...)
	}
}

// raw writes lines as they are (machine-readable ones such as "gpu: ...").
func (t *tracker) raw(lines string) {
	if t.w != nil {
		io.WriteString(t.w, lines)
	}
}

// phase runs f as the named phase.
func (t *tracker) phase(name string, f func()) {
	// The label names the phase in a CPU profile (-cpuprofile, `go tool
	// pprof -tagfocus phase=NAME`), goroutines started inside included; an
	// inner phase's label replaces its parent's while it runs. The phase is
	// also a region of an execution trace (-trace).
	parent := t.ctx
	if parent == nil {
		parent = context.Background()
	}
	pt := measure(name, t.stats, func() {
		pprof.Do(parent, pprof.Labels("phase", name), func(ctx context.Context) {
			t.ctx = ctx
			defer func() { t.ctx = parent }()
			trace.WithRegion(ctx, name, f)
		})
	})
	t.logf("%s", pt)
	t.phases = append(t.phases, pt)
}

// Measure runs f and returns its wall time, and with stats (Linux) its
// CPU time, busy threads and peak resident memory. stats resets the
// process's peak-RSS counter. f's CPU samples carry the label phase=name.
func Measure(name string, stats bool, f func()) PhaseTime {
	return measure(name, stats, func() {
		pprof.Do(context.Background(), pprof.Labels("phase", name), func(ctx context.Context) { trace.WithRegion(ctx, name, f) })
	})
}

func measure(name string, stats bool, f func()) PhaseTime {
	var run0, wait0 float64
	if stats {
		runstat.ResetPeak()
		run0, wait0 = runstat.Sched()
	}
	start := time.Now()
	f()
	pt := PhaseTime{Name: name, Duration: time.Since(start)}
	if stats {
		run, wait := runstat.Sched()
		u := runstat.Read()
		pt.PeakRSS, pt.RSS, pt.Heap = u.Peak, u.RSS, u.Heap
		pt.CPU = time.Duration((run - run0) * 1e9)
		pt.Wait = time.Duration((wait - wait0) * 1e9)
	}
	return pt
}

// String is the phase's progress line.
func (p PhaseTime) String() string {
	if p.CPU == 0 && p.PeakRSS == 0 {
		return fmt.Sprintf("%-14s %9.2f ms", p.Name, ms(p.Duration))
	}
	return fmt.Sprintf("%-14s %9.2f ms   cpu %8.2f ms, %4.2f threads busy (alone %9.2f ms)   peak RSS %6.1f MiB, RSS %6.1f MiB, Go heap %6.1f MiB",
		p.Name, ms(p.Duration), ms(p.CPU), p.Threads(), ms(p.Alone()), runstat.MB(p.PeakRSS), runstat.MB(p.RSS), runstat.MB(p.Heap))
}
