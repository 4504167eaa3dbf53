package par

import (
	"sync"
	"testing"
)

// A worker of a share gets the threads divided by the tasks running, at
// least one, when its task starts and when it calls Grow, and no sooner.
func TestShareDividesThreadsAmongRunningTasks(t *testing.T) {
	s := NewShare(2)
	a, b := s.Member(), s.Member()
	s.Run(a, func(a *Exec) {
		if a.Threads() != 2 {
			t.Fatalf("a task running alone has %d threads, want 2", a.Threads())
		}
		s.Run(b, func(b *Exec) {
			if b.Threads() != 1 {
				t.Fatalf("the second task running has %d threads, want 1", b.Threads())
			}
			if a.Threads() != 2 {
				t.Fatal("a task's executor shrank before it called Grow")
			}
			if a.Grow() != 1 {
				t.Fatalf("two tasks running on 2 threads: %d each, want 1", a.Threads())
			}
		})
		if a.Grow() != 2 {
			t.Fatalf("a task left alone has %d threads after Grow, want 2", a.Threads())
		}
	})
	s = NewShare(5)
	m := []*Exec{s.Member(), s.Member(), s.Member()}
	s.Run(m[0], func(*Exec) {
		s.Run(m[1], func(*Exec) {
			s.Run(m[2], func(x *Exec) {
				if x.Threads() != 1 || m[0].Grow() != 1 {
					t.Fatalf("5 threads, 3 tasks: %d and %d threads, want 1 each", x.Threads(), m[0].Threads())
				}
			})
			if m[1].Grow() != 2 {
				t.Fatalf("5 threads, 2 tasks: %d, want 2", m[1].Threads())
			}
		})
	})
}

// Workers that start and finish tasks while others grow and run loops
// (go test -race).
func TestShareWorkersRace(t *testing.T) {
	s := NewShare(4)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := s.Member()
			for task := 0; task < 20*(i+1); task++ {
				s.Run(x, func(x *Exec) {
					for r := 0; r < 3; r++ {
						k := x.Grow()
						seen := make([]int, k)
						x.Each(8*k, func(w, _ int) { seen[w]++ })
						if k < 1 || k > 4 {
							t.Errorf("%d threads, the share has 4", k)
						}
					}
				})
			}
		}()
	}
	wg.Wait()
}
