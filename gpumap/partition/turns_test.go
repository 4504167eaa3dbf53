package partition

import (
	"runtime"
	"slices"
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
	for u := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn := h.turn(200 + u)
			for i := range 200 {
				if i > 0 {
					turn.pass(200 - i + u)
				}
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				runtime.Gosched()
				running.Add(-1)
			}
			turn.end()
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("%d users ran a turn at once, want at most 2", p)
	}
	var none *Hierarchy
	none.turn(1).pass(0)
	none.turn(1).end()
	var free Hierarchy
	for range 3 {
		turn := free.turn(1)
		turn.pass(0)
		turn.end()
	}
}

// queued waits until n users wait for a turn of h.
func queued(h *Hierarchy, n int) {
	for {
		h.turns.mu.Lock()
		q := len(h.turns.queue)
		h.turns.mu.Unlock()
		if q == n {
			return
		}
		runtime.Gosched()
	}
}

// A user that falls behind catches up: a shared turn goes to the waiter
// at the coarsest level, which keeps it from level to level until the
// others wait at a level as coarse as its next one. Handed round in the
// order the users came (a channel), the late user got one level per turn
// like the others: three levels behind at the start, three behind at the
// end, where it refined the finest levels alone.
func TestTurnsLetTheUserBehindCatchUp(t *testing.T) {
	var h Hierarchy
	h.Turns(1)
	var mu sync.Mutex
	var ran []string
	run := func(user string, level int) {
		mu.Lock()
		ran = append(ran, user+string(rune('0'+level)))
		mu.Unlock()
	}
	// Early holds the turn at level 5; Late comes for the coarsest, 8.
	early := h.turn(5)
	run("E", 5)
	done := make(chan struct{})
	go func() {
		defer close(done)
		late := h.turn(8)
		for level := 8; level >= 0; level-- {
			if level < 8 {
				late.pass(level)
			}
			run("L", level)
		}
		late.end()
	}()
	queued(&h, 1)
	for level := 4; level >= 0; level-- {
		early.pass(level)
		run("E", level)
	}
	early.end()
	<-done
	want := []string{"E5", "L8", "L7", "L6", "L5", "E4", "L4", "E3", "L3", "E2", "L2", "E1", "L1", "E0", "L0"}
	if !slices.Equal(ran, want) {
		t.Errorf("turns ran %v, want %v", ran, want)
	}
}

// With n turns the first n-1 users keep theirs to the end, whoever waits;
// the others share the last one. Three tries handing two turns round
// level by level ended one level apart, the last refining its finest
// level alone.
func TestTurnsLeadersKeepTheirTurn(t *testing.T) {
	var h Hierarchy
	h.Turns(2)
	leader := h.turn(5)
	other := h.turn(5)
	if !leader.leader || other.leader {
		t.Fatalf("leaders %v, %v: want the first user only", leader.leader, other.leader)
	}
	got := make(chan int)
	go func() {
		late := h.turn(9)
		got <- 9
		late.end()
	}()
	queued(&h, 1)
	leader.pass(4) // keeps it though the waiter is further behind
	h.turns.mu.Lock()
	if q := len(h.turns.queue); q != 1 {
		t.Errorf("%d users wait after the leader went on, want 1", q)
	}
	h.turns.mu.Unlock()
	go other.pass(4) // hands it over
	if l := <-got; l != 9 {
		t.Fatalf("got %d", l)
	}
	leader.end()
}
