package gpumap

import (
	"fmt"
	"io"
	"time"
)

// PhaseTime is the wall time of one phase of a mapping run.
type PhaseTime struct {
	Name     string
	Duration time.Duration
}

// tracker times phases and reports them on the progress writer.
type tracker struct {
	w      io.Writer
	phases []PhaseTime
}

func (t *tracker) logf(format string, args ...any) {
	if t.w != nil {
		fmt.Fprintf(t.w, "gpumap: "+format+"\n", args...)
	}
}

// phase runs f as the named phase.
func (t *tracker) phase(name string, f func()) {
	start := time.Now()
	f()
	d := time.Since(start)
	t.phases = append(t.phases, PhaseTime{name, d})
	t.logf("%-14s %9.2f ms", name, float64(d.Microseconds())/1000)
}
