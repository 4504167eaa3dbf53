package partition

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
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

// Partitions side by side on one hierarchy taking turns, fewer turns than
// users (1 and 2 of 3) and more (4), get the partitions each computes
// alone; every turn is given back, and every level is dropped.
func TestTurnsOfPartitionsSideBySide(t *testing.T) {
	g := graph.RandomGeometric(6000, 5)
	maxW := limits(g.TotalVertexWeight(), 6, 0.03)
	cfg := Config{Tries: 4, LPRounds: 2, FMRounds: 2, Local: true, FM: refinement.FMConfig{Alpha: 30}}
	const users = 3
	alone := make([][]int32, users)
	for u := range users {
		c := cfg
		c.Seed = uint64(u) * 77
		alone[u] = Partition(par.New(1), g, maxW, c)
	}
	for _, turns := range []int{1, 2, 4} {
		h := Coarsen(par.New(2), g, maxW, cfg, users)
		h.Turns(turns)
		parts := make([][]int32, users)
		var wg sync.WaitGroup
		for u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := cfg
				c.Seed, c.Levels = uint64(u)*77, h
				parts[u] = Partition(par.New(1), g, maxW, c)
			}()
		}
		wg.Wait()
		for u := range users {
			if !slices.Equal(parts[u], alone[u]) {
				t.Fatalf("%d turns: user %d's partition differs from its own", turns, u)
			}
		}
		if h.turns.free != turns || len(h.turns.queue) != 0 {
			t.Fatalf("%d turns: %d free and %d waiting after every user returned", turns, h.turns.free, len(h.turns.queue))
		}
		for i, l := range h.levels {
			if l.Graph != nil || l.CMap != nil {
				t.Fatalf("%d turns: level %d kept after every user passed", turns, i)
			}
		}
	}
}

// Users of a hierarchy with Turns, any number of turns against users, each
// coming at its own level and going down to level 0 with random pauses,
// all finish (no deadlock), never more than n at once, and every turn is
// free again at the end.
func TestTurnsNeverDeadlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		n := 1 + rng.IntN(4)
		users := 1 + rng.IntN(9)
		var h Hierarchy
		h.Turns(n)
		var running, peak atomic.Int32
		var wg sync.WaitGroup
		starts := make([]int, users)
		delays := make([]int, users)
		for u := range users {
			starts[u] = rng.IntN(12)
			delays[u] = rng.IntN(3)
		}
		for u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range delays[u] {
					runtime.Gosched()
				}
				turn := h.turn(starts[u] + 1) // the coarsest graph's partition
				for level := starts[u]; level >= -1; level-- {
					if level < starts[u] {
						turn.pass(level + 1)
					}
					r := running.Add(1)
					for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
					}
					if level%2 == 0 {
						runtime.Gosched()
					}
					running.Add(-1)
				}
				turn.end()
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("iteration %d: %d users on %d turns (starts %v) did not finish", iter, users, n, starts)
		}
		if p := peak.Load(); int(p) > n {
			t.Fatalf("iteration %d: %d ran at once on %d turns", iter, p, n)
		}
		if h.turns.free != n || len(h.turns.queue) != 0 {
			t.Fatalf("iteration %d: %d of %d turns free, %d waiting at the end", iter, h.turns.free, n, len(h.turns.queue))
		}
	}
}
