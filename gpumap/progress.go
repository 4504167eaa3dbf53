package gpumap

import (
	"fmt"
	"io"
	"time"

	"github.com/gpumap/gpumap/gpumap/memstat"
)

// PhaseTime is the wall time of one phase of a mapping run, and its peak
// resident memory when Options.MemoryTrace asked for it.
type PhaseTime struct {
	Name     string
	Duration time.Duration
	PeakRSS  int64 // bytes; 0 when not traced
}

// tracker times phases and reports them on the progress writer.
type tracker struct {
	w      io.Writer
	memory bool // trace each phase's peak RSS (resets the process's counter)
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
	if t.memory {
		memstat.ResetPeak()
	}
	start := time.Now()
	f()
	d := time.Since(start)
	pt := PhaseTime{Name: name, Duration: d}
	if t.memory {
		u := memstat.Read()
		pt.PeakRSS = u.Peak
		t.logf("%-14s %9.2f ms   peak RSS %7.1f MiB, RSS %7.1f MiB, Go heap %7.1f MiB", name,
			float64(d.Microseconds())/1000, memstat.MB(u.Peak), memstat.MB(u.RSS), memstat.MB(u.Heap))
	} else {
		t.logf("%-14s %9.2f ms", name, float64(d.Microseconds())/1000)
	}
	t.phases = append(t.phases, pt)
}
