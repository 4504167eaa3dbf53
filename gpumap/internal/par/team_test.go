package par

import (
	"sync"
	"testing"
)

// A member takes its share of what finished members freed, never more
// than the team's threads, and only when it calls Grow.
func TestTeamSharesFreedThreads(t *testing.T) {
	team := NewTeam(2, 3)
	a, b, c := team.Member(1), team.Member(1), team.Member(0)
	if c.Threads() != 1 {
		t.Fatalf("Member(0) has %d threads, want 1", c.Threads())
	}
	team.Done(a)
	if b.Grow() != 1 || c.Grow() != 1 {
		t.Fatalf("one thread freed for two members: %d and %d threads, want 1 and 1", b.Threads(), c.Threads())
	}
	team.Done(b)
	if c.Threads() != 1 {
		t.Fatal("a member grew before it called Grow")
	}
	if c.Grow() != 2 {
		t.Fatalf("the last member has %d threads, want the team's 2", c.Threads())
	}

	team = NewTeam(16, 3)
	m := []*Exec{team.Member(5), team.Member(5), team.Member(6)}
	team.Done(m[0])
	if m[1].Grow() != 7 || m[2].Grow() != 8 {
		t.Fatalf("5 threads freed for two members: %d and %d, want 7 and 8", m[1].Threads(), m[2].Threads())
	}
	team.Done(m[1])
	if m[2].Grow() != 16 {
		t.Fatalf("the last member has %d threads, want 16", m[2].Threads())
	}
	if x := New(3); x.Grow() != 3 {
		t.Fatalf("an executor without a team grew to %d threads", x.Threads())
	}
}

// Members that finish while others grow and run loops (go test -race).
func TestTeamMembersRace(t *testing.T) {
	const members = 4
	team := NewTeam(4, members)
	var wg sync.WaitGroup
	for i := 0; i < members; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := team.Member(1)
			defer team.Done(x)
			for r := 0; r < 50*(i+1); r++ {
				k := x.Grow()
				seen := make([]int, k)
				x.Each(8*k, func(w, _ int) { seen[w]++ })
				if x.Threads() > 4 {
					t.Errorf("%d threads, the team has 4", x.Threads())
				}
			}
		}()
	}
	wg.Wait()
}

// Grows says whether Grow may add threads: a team member or a share's
// worker short of all the threads, never an executor of its own.
func TestGrows(t *testing.T) {
	team := NewTeam(2, 2)
	a, b := team.Member(1), team.Member(1)
	if !a.Grows() {
		t.Fatal("a member with 1 of the team's 2 threads does not grow")
	}
	team.Done(b)
	a.Grow()
	if a.Grows() {
		t.Fatal("a member with all the team's threads still grows")
	}
	s := NewShare(2)
	w := s.Member()
	if !w.Grows() {
		t.Fatal("a share's worker with 1 of 2 threads does not grow")
	}
	s.Run(w, func(x *Exec) {
		if x.Grows() {
			t.Fatal("a share's only task, on both threads, still grows")
		}
	})
	if New(2).Grows() || New(1).Grows() {
		t.Fatal("an executor without a team or share grows")
	}
}
