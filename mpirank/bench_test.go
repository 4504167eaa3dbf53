package mpirank

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"
)

// heapPeak samples the live heap every few milliseconds (runtime/metrics,
// no stop-the-world) until stop is called, and returns the largest value.
func heapPeak() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// benchmarkRoot measures rank 0's work in a reorder call on an nx x ny x nz
// stencil launched round-robin over nodes of 64 (synthetic): decoding the
// gathered patterns, merging them, inferring the machine, mapping one task
// per process, computing both costs. Reported per rank and per edge: wall
// time, bytes allocated, and the peak of the live heap above what was live
// before (the gathered input, which the root also holds, is gathered_B/rank).
func benchmarkRoot(b *testing.B, nx, ny, nz int) {
	all, sizes, displs := synthetic(nx, ny, nz)
	ranks := float64(nx * ny * nz)
	edges := float64((nx-1)*ny*nz + nx*(ny-1)*nz + nx*ny*(nz-1))
	runtime.GC()
	base := heapPeak()()
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	var ratio float64
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		stop := heapPeak()
		_, res, e := mapOnRoot(all, sizes, displs, Options{Preset: 1}, false)
		peak = max(peak, stop())
		if e != nil {
			b.Fatal(e)
		}
		ratio = res.JAfter / res.JBefore
	}
	b.StopTimer()
	cpu := float64(cpuTime()-cpu0) / float64(b.N)
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(per/ranks, "ns/rank")
	b.ReportMetric(per/edges, "ns/edge")
	b.ReportMetric(cpu/ranks, "cpu_ns/rank")
	b.ReportMetric(float64(peak-min(peak, base))/ranks, "peak_B/rank")
	b.ReportMetric(float64(peak-min(peak, base))/edges, "peak_B/edge")
	b.ReportMetric(float64(len(all))/ranks, "gathered_B/rank")
	b.ReportMetric(ratio, "J_after/J_before")
}

// cpuTime is the process's user+system time in nanoseconds (the machine
// may be shared: wall time alone says little).
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// The root's work at 4096, 65,536 and 1,048,576 ranks (issue 8's scale
// item: README.md quotes these).
func BenchmarkMapOnRoot4096(b *testing.B)    { benchmarkRoot(b, 16, 16, 16) }
func BenchmarkMapOnRoot65536(b *testing.B)   { benchmarkRoot(b, 64, 32, 32) }
func BenchmarkMapOnRoot1048576(b *testing.B) { benchmarkRoot(b, 128, 128, 64) }
