// Package memstat reads the process's memory use for gpumap's progress report:
// resident set size and its peak from /proc (Linux; zero elsewhere) and the
// Go heap from runtime/metrics.
package memstat

import (
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
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

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapObjects() int64 {
	s := make([]metrics.Sample, 1)
	s[0].Name = heapSample[0].Name
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// MB formats bytes as mebibytes for progress lines.
func MB(b int64) float64 { return float64(b) / (1 << 20) }
