package topology

import (
	"slices"
	"testing"
)

// Squeezed drops the levels of arity 1 and keeps everything else: the
// same PEs at the same distances, the other levels' groups, and t itself
// where no level has arity 1 or every level has.
func TestSqueezed(t *testing.T) {
	nodes := func(sockets [][]int, dist []int64) *Topology {
		top, err := NewNodes(sockets, dist)
		if err != nil {
			t.Fatal(err)
		}
		return top
	}
	parse := func(h, d string) *Topology {
		top, err := Parse(h, d)
		if err != nil {
			t.Fatal(err)
		}
		return top
	}
	cases := []struct {
		name       string
		top        *Topology
		want       string // String() of the squeezed machine
		wantLevels []int  // the levels kept, 1..L
	}{
		{"trailing", parse("4:8:6:1", "1:10:100:1000"), "4:8:6 / 1:10:100", []int{1, 2, 3}},
		{"middle", parse("4:1:8", "1:5:10"), "4:8 / 1:10", []int{1, 3}},
		{"everywhere", parse("1:2:1:3:1", "9:1:9:10:9"), "2:3 / 1:10", []int{2, 4}},
		{"one level left", parse("1:5:1", "1:2:3"), "5 / 2", []int{2}},
		{"tree, nodes of one socket", nodes([][]int{{3}, {2}, {4}}, []int64{1, 10, 100}), "tree(k=9, L=2) / 1:100", []int{1, 3}},
		{"tree, one node", nodes([][]int{{3, 2, 4}}, []int64{1, 10, 100}), "tree(k=9, L=2) / 1:10", []int{1, 2}},
		{"tree, sockets of one PE", nodes([][]int{{1, 1}, {1}, {1, 1, 1}}, []int64{1, 10, 100}), "tree(k=6, L=2) / 10:100", []int{2, 3}},
		{"tree, one node of one-PE sockets", nodes([][]int{{1, 1, 1}}, []int64{1, 10, 100}), "3 / 10", []int{2}},
	}
	for _, c := range cases {
		s := c.top.Squeezed()
		if s.String() != c.want || s.K() != c.top.K() {
			t.Errorf("%s: %s squeezed to %s (k %d), want %s (k %d)", c.name, c.top, s, s.K(), c.want, c.top.K())
			continue
		}
		k := s.K()
		for p := 0; p < k; p++ {
			for q := 0; q < k; q++ {
				if s.Distance(p, q) != c.top.Distance(p, q) {
					t.Fatalf("%s: distance (%d,%d) %d, want %d", c.name, p, q, s.Distance(p, q), c.top.Distance(p, q))
				}
			}
			for j, l := range c.wantLevels {
				if s.GroupOf(j+1, p).Lo != c.top.GroupOf(l, p).Lo || s.GroupOf(j+1, p).Hi != c.top.GroupOf(l, p).Hi {
					t.Fatalf("%s: PE %d's level-%d group %v, the machine's level-%d group %v", c.name, p, j+1, s.GroupOf(j+1, p), l, c.top.GroupOf(l, p))
				}
			}
		}
		if s.Squeezed() != s {
			t.Errorf("%s: %s has levels of arity 1 left", c.name, s)
		}
	}
	for _, top := range []*Topology{parse("4:8:6", "1:10:100"), parse("1", "5"), parse("1:1", "5:6"), nodes([][]int{{3, 1}, {2}}, []int64{1, 10, 100})} {
		if top.Squeezed() != top {
			t.Errorf("%s: squeezed to another machine", top)
		}
	}
	if d := parse("4:1:8", "1:5:10").Squeezed().Distances(); !slices.Equal(d, []int64{1, 10}) {
		t.Errorf("distances %v", d)
	}
}
