// Package runstat reads the process's memory and CPU use for gpumap's
// progress report: resident set size and its peak from /proc (Linux; zero
// elsewhere), the Go heap, and the time goroutines kept threads busy, from
// runtime/metrics.
package runstat

import (
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
	"time"
)

// Usage is a snapshot of the process's memory, in bytes (0: unknown).
type Usage struct {
	RSS  int64 // resident set size now (VmRSS)
	Peak int64 // peak resident set size since start or the last ResetPeak (VmHWM)
	Heap int64 // bytes in live and not yet swept Go heap objects
}

// Read returns the current usage.
func Read() Usage {
	u := Usage{Heap: heapObjects()}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return u
	}
	u.RSS = field(data, "VmRSS:")
	u.Peak = field(data, "VmHWM:")
	return u
}

// ResetPeak restarts the peak RSS at the current RSS (Linux: clear_refs 5),
// so that Read().Peak becomes the peak of what follows. It changes what the
// whole process reports as its peak: only the command-line tool calls it.
func ResetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// field parses "Name:   1234 kB" from /proc/self/status.
func field(data []byte, name string) int64 {
	i := bytes.Index(data, []byte(name))
	if i < 0 {
		return 0
	}
	rest := data[i+len(name):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	f := bytes.Fields(rest)
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0
	}
	if len(f) > 1 && string(f[1]) == "kB" {
		v <<= 10
	}
	return v
}

func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// Sched returns the time the process's threads have run on a CPU and the
// time they have waited, runnable, for one (seconds, summed over threads;
// Linux schedstat, zeros elsewhere). Over a phase, run+wait divided by the
// wall time is the number of threads the phase kept busy, whatever share
// of the cores other processes left it; wall*run/(run+wait) estimates the
// phase's wall time on a machine where every runnable thread gets a core.
func Sched() (run, wait float64) {
	dir, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, 0
	}
	for _, t := range dir {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := bytes.Fields(data)
		if len(f) < 2 {
			continue
		}
		r, _ := strconv.ParseInt(string(f[0]), 10, 64)
		w, _ := strconv.ParseInt(string(f[1]), 10, 64)
		run += float64(r) / 1e9
		wait += float64(w) / 1e9
	}
	return run, wait
}

// MB formats bytes as mebibytes for progress lines.
func MB(b int64) float64 { return float64(b) / (1 << 20) }

// Timed runs f and returns its wall time and the estimate of it alone on
// the machine: wall*run/(run+wait) over f's run (see Sched), the wall time
// where schedstat is missing. Other goroutines' threads count too, so it
// estimates the whole process's phase.
func Timed(f func()) (wall, alone time.Duration) {
	r0, w0 := Sched()
	start := time.Now()
	f()
	wall = time.Since(start)
	r1, w1 := Sched()
	run, wait := r1-r0, w1-w0
	alone = wall
	if run > 0 && wait > 0 {
		alone = time.Duration(float64(wall) * run / (run + wait))
	}
	return wall, alone
}
