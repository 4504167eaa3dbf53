package partition

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Hierarchy.Turns lets no more than n of its users run a turn at once, and
// without Turns (or without a hierarchy) a turn waits for nothing.
func TestTurnsBoundTheUsersRunningAtOnce(t *testing.T) {
	var h Hierarchy
	h.Turns(2)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				end := h.turn()
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				runtime.Gosched()
				running.Add(-1)
				end()
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("%d users ran a turn at once, want at most 2", p)
	}
	var none *Hierarchy
	none.turn()()
	var free Hierarchy
	for range 3 {
		defer free.turn()()
	}
}
