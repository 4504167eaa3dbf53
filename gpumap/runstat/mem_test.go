package runstat

import (
	"testing"
	"time"
)

func TestField(t *testing.T) {
	data := []byte("Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t 1024 kB\n")
	if got := field(data, "VmHWM:"); got != 2048<<10 {
		t.Fatalf("VmHWM = %d", got)
	}
	if got := field(data, "VmRSS:"); got != 1024<<10 {
		t.Fatalf("VmRSS = %d", got)
	}
	if got := field(data, "VmSwap:"); got != 0 {
		t.Fatalf("missing field = %d", got)
	}
}

func TestReadSeesTheHeap(t *testing.T) {
	buf := make([]byte, 8<<20)
	u := Read()
	if u.Heap < int64(len(buf)) {
		t.Fatalf("heap %d below a live 8 MiB buffer", u.Heap)
	}
	buf[0] = 1
}

// TestSchedGrows: the run time of a busy loop shows, and is never the 0, 0
// of Sched's error path.
func TestSchedGrows(t *testing.T) {
	r0, _ := Sched()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i
	}
	r1, _ := Sched()
	if x == 1 || r0 <= 0 || r1 <= r0 {
		t.Fatalf("run time went from %g to %g", r0, r1)
	}
}

func TestTimedAloneAtMostWall(t *testing.T) {
	x := 0
	wall, alone := Timed(func() {
		for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
			x++
		}
	})
	if wall < 20*time.Millisecond || alone <= 0 || alone > wall {
		t.Errorf("wall %v, alone %v (%d spins)", wall, alone, x)
	}
}
