//go:build linux

package distmap

import (
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// setProcessMask reaches every thread of the process, those that the
// runtime started before it (here: threads blocked in goroutines locked
// to them), not only the caller's: each thread's mask in
// /proc/self/task is the one set, and then the old one again.
func TestSetProcessMask(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	own, ok := threadMask()
	if !ok {
		t.Skip("sched_getaffinity failed")
	}
	// Threads of their own, parked.
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			<-release
		}()
	}
	defer func() { close(release); wg.Wait() }()
	var one cpuMask
	for i, w := range own {
		if w != 0 {
			one[i] = 1 << bits.TrailingZeros64(w)
			break
		}
	}
	for _, m := range []cpuMask{one, own} {
		if !setProcessMask(m) {
			t.Fatal("setProcessMask failed")
		}
		tasks, err := filepath.Glob("/proc/self/task/*")
		if err != nil || len(tasks) < 5 {
			t.Fatalf("%d threads (%v)", len(tasks), err)
		}
		for _, task := range tasks {
			if got := taskMask(t, task); got != m {
				t.Errorf("%s: mask %x, want %x", task, got[0], m[0])
			}
		}
	}
}

// taskMask reads a thread's affinity from its status file.
func taskMask(t *testing.T, task string) cpuMask {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(task, "status"))
	if err != nil {
		t.Fatal(err)
	}
	var m cpuMask
	for _, ln := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(ln, "Cpus_allowed:")
		if !ok {
			continue
		}
		// Comma-separated 32-bit hex words, the highest first.
		words := strings.Split(strings.TrimSpace(v), ",")
		for i := range words {
			w, err := strconv.ParseUint(words[len(words)-1-i], 16, 32)
			if err != nil {
				t.Fatalf("%s: %q: %v", task, ln, err)
			}
			if i/2 < len(m) {
				m[i/2] |= w << (32 * (i % 2))
			}
		}
	}
	return m
}
