package topology

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	cases := []struct{ h, d, want string }{
		{"", "1", "hierarchy is empty"},
		{"4::6", "1:10:100", "field 2 is empty"},
		{"4:0:6", "1:10:100", "field 2 is zero"},
		{"4:-8:6", "1:10:100", "field 2 (-8) is negative"},
		{"4:x:6", "1:10:100", `field 2 ("x") is not an integer`},
		{"4:8.5", "1:10", `field 2 ("8.5") is not an integer`},
		{"65536:65536", "1:10", "k overflows at field 2"},
		{"4:8:6", "1:10", "length mismatch"},
		{"4:8", "1:-10", "field 2 (-10) is negative"},
		{"4:8", "1:ten", `field 2 ("ten") is not an integer`},
		{"4:8", "", "distance is empty"},
	}
	for _, c := range cases {
		_, err := Parse(c.h, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %q) = %v, want error containing %q", c.h, c.d, err, c.want)
		}
	}
	if _, err := Parse(" 4 : 8 : 6 ", "1:10:100"); err != nil {
		t.Errorf("spaces around fields: %v", err)
	}
}

// divisionDistance is the straightforward oracle of the IntMap paper.
func divisionDistance(a []int, d []int64, p, q int) int64 {
	if p == q {
		return 0
	}
	span := 1
	for i := range a {
		span *= a[i]
		if p/span == q/span {
			return d[i]
		}
	}
	return d[len(d)-1]
}

func TestRegularDistanceMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		L := 1 + rng.IntN(4)
		a := make([]int, L)
		d := make([]int64, L)
		for i := range a {
			a[i] = 1 + rng.IntN(7)
			d[i] = int64(rng.IntN(1000))
		}
		top, err := NewRegular(a, d)
		if err != nil {
			t.Fatal(err)
		}
		k := top.K()
		for n := 0; n < 300; n++ {
			p, q := rng.IntN(k), rng.IntN(k)
			if got, want := top.Distance(p, q), divisionDistance(a, d, p, q); got != want {
				t.Fatalf("%v: Distance(%d,%d) = %d, want %d", top, p, q, got, want)
			}
			// CommonLevel (LabelLevel of the labels): the lowest level
			// whose group, found by division, holds both.
			want, span := 0, 1
			for i := 0; p/span != q/span; i++ {
				span *= a[i]
				want = i + 1
			}
			if got := top.CommonLevel(p, q); got != want {
				t.Fatalf("%v: CommonLevel(%d,%d) = %d, want %d", top, p, q, got, want)
			}
		}
	}
}

// CommonLevel (LabelLevel of the labels) on an irregular tree is the
// lowest level whose group holds both PEs (on regular hierarchies:
// TestRegularDistanceMatchesDivision).
func TestTreeCommonLevel(t *testing.T) {
	tree, err := NewNodes(irregularSockets, []int64{1, 10, 100})
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < tree.K(); p++ {
		for q := 0; q < tree.K(); q++ {
			want := 0
			for l := 1; p != q && want == 0; l++ {
				if tree.GroupOf(l, p) == tree.GroupOf(l, q) {
					want = l
				}
			}
			if got := tree.CommonLevel(p, q); got != want {
				t.Fatalf("CommonLevel(%d,%d) = %d, want %d", p, q, got, want)
			}
		}
	}
}

func TestHandDistances(t *testing.T) {
	top, err := Parse("4:8:6", "1:10:100")
	if err != nil {
		t.Fatal(err)
	}
	if top.K() != 192 {
		t.Fatalf("k = %d", top.K())
	}
	for _, c := range []struct {
		p, q  int
		d     int64
		level int
	}{{0, 0, 0, 0}, {0, 3, 1, 1}, {3, 4, 10, 2}, {0, 31, 10, 2}, {31, 32, 100, 3}, {5, 191, 100, 3}} {
		if got := top.Distance(c.p, c.q); got != c.d {
			t.Errorf("Distance(%d,%d) = %d, want %d", c.p, c.q, got, c.d)
		}
		if got := top.CommonLevel(c.p, c.q); got != c.level {
			t.Errorf("CommonLevel(%d,%d) = %d, want %d", c.p, c.q, got, c.level)
		}
	}
	if g := top.GroupOf(2, 40); g != (Group{2, 32, 64}) {
		t.Errorf("GroupOf(2,40) = %+v", g)
	}
	ch := top.Children(top.Root())
	if len(ch) != 6 || ch[5] != (Group{2, 160, 192}) {
		t.Errorf("root children = %+v", ch)
	}
}

// irregular: three nodes with 16, 16 and 8 slots; node 2 has sockets of 6 and 2.
var irregularSockets = [][]int{{8, 8}, {8, 8}, {6, 2}}

func TestTree(t *testing.T) {
	top, err := NewNodes(irregularSockets, []int64{1, 10, 100})
	if err != nil {
		t.Fatal(err)
	}
	if top.K() != 40 || top.Levels() != 3 {
		t.Fatalf("k=%d L=%d", top.K(), top.Levels())
	}
	// By hand: sockets of 8 up to PE 32, then 6 and 2; nodes of 16.
	socket := func(p int) int {
		if p >= 38 {
			return 5
		}
		return min(p/8, 4)
	}
	for p := 0; p < 40; p++ {
		for q := 0; q < 40; q++ {
			want := int64(100)
			switch {
			case p == q:
				want = 0
			case socket(p) == socket(q):
				want = 1
			case p/16 == q/16:
				want = 10
			}
			if got := top.Distance(p, q); got != want {
				t.Fatalf("Distance(%d,%d) = %d, want %d", p, q, got, want)
			}
		}
	}
	nodes := top.Children(top.Root())
	if len(nodes) != 3 || nodes[2] != (Group{2, 32, 40}) {
		t.Fatalf("nodes = %+v", nodes)
	}
	if s := top.Children(nodes[2]); len(s) != 2 || s[0].Size() != 6 || s[1].Size() != 2 {
		t.Fatalf("sockets of node 2 = %+v", s)
	}
	if g := top.GroupOf(1, 37); g != (Group{1, 32, 38}) {
		t.Fatalf("GroupOf(1,37) = %+v", g)
	}
	if _, ok := top.Arity(); ok {
		t.Fatal("tree reported as regular")
	}
}

func TestTreeErrors(t *testing.T) {
	cases := []struct {
		groups [][]int
		dist   []int64
		want   string
	}{
		{[][]int{{0, 0, 1}}, []int64{1}, "length mismatch"},
		{[][]int{{0, 2, 2}}, []int64{1, 10}, "not numbered contiguously"},
		{[][]int{{1, 1}}, []int64{1, 10}, "PE 0 is in group 1"},
		{[][]int{{0, 0, 1, 1}, {0, 1, 1, 1}}, []int64{1, 10, 100}, "share a level-1 group but not their level-2 group"},
		{[][]int{{0, 1}, {0}}, []int64{1, 10, 100}, "level 2 lists 1 PEs"},
		{[][]int{{0, 0}}, []int64{1, -10}, "negative"},
	}
	for _, c := range cases {
		_, err := NewTree(c.groups, c.dist)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewTree(%v) = %v, want %q", c.groups, err, c.want)
		}
	}
	for _, c := range []struct {
		sockets [][]int
		want    string
	}{
		{[][]int{{4}, {}}, "node 1 has no sockets"},
		{[][]int{{4, 0}}, "node 0, socket 1: size 0"},
		{[][]int{{MaxPEs, 1}}, "more than"},
	} {
		_, err := NewNodes(c.sockets, []int64{1, 10, 100})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewNodes(%v) = %v, want %q", c.sockets, err, c.want)
		}
	}
}

func TestTreeEqualsRegular(t *testing.T) {
	reg, _ := Parse("3:2:5", "2:7:50")
	k := reg.K()
	g := [][]int{make([]int, k), make([]int, k)}
	for p := 0; p < k; p++ {
		g[0][p], g[1][p] = p/3, p/6
	}
	tree, err := NewTree(g, []int64{2, 7, 50})
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < k; p++ {
		for q := 0; q < k; q++ {
			if reg.Distance(p, q) != tree.Distance(p, q) {
				t.Fatalf("(%d,%d): regular %d, tree %d", p, q, reg.Distance(p, q), tree.Distance(p, q))
			}
		}
	}
}

func BenchmarkLabelDistance(b *testing.B) {
	top, _ := Parse("4:8:6", "1:10:100")
	labels := top.Labels()
	var s int64
	for i := 0; i < b.N; i++ {
		s += top.LabelDistance(labels[i%192], labels[(i*7)%192])
	}
	_ = s
}

// D1 (issue 8): a megabyte of levels overflowed the stack of the mapper;
// depth is now limited to MaxLevels, checked before anything is split, and
// messages do not repeat the whole input.
func TestLevelLimit(t *testing.T) {
	deep := strings.Repeat("1:", 500000) + "4"
	for _, s := range []string{deep, strings.Repeat("1:", MaxLevels) + "4"} {
		_, err := ParseHierarchy(s)
		if err == nil || !strings.Contains(err.Error(), "at most 64 are supported") || len(err.Error()) > 200 {
			t.Errorf("hierarchy of %d bytes: %v", len(s), err)
		}
		if _, err := ParseDistances(strings.ReplaceAll(s, "4", "1")); err == nil || !strings.Contains(err.Error(), "at most 64") {
			t.Errorf("distances of %d bytes: %v", len(s), err)
		}
	}
	ok := strings.Repeat("1:", MaxLevels-1) + "4"
	if _, err := Parse(ok, strings.Repeat("1:", MaxLevels-1)+"1"); err != nil {
		t.Errorf("64 levels: %v", err)
	}
	a := make([]int, MaxLevels+1)
	d := make([]int64, MaxLevels+1)
	for i := range a {
		a[i] = 1
	}
	if _, err := NewRegular(a, d); err == nil || !strings.Contains(err.Error(), "65 levels") {
		t.Errorf("NewRegular with 65 levels: %v", err)
	}
	groups := make([][]int, MaxLevels)
	for i := range groups {
		groups[i] = []int{0}
	}
	if _, err := NewTree(groups, d); err == nil || !strings.Contains(err.Error(), "65 levels") {
		t.Errorf("NewTree with 65 levels: %v", err)
	}
}

func TestWithDistances(t *testing.T) {
	tree, _ := NewTree([][]int{{0, 0, 1, 2}, {0, 0, 0, 1}}, []int64{1, 5, 20})
	reg, _ := Parse("2:2", "1:10")
	for _, top := range []*Topology{tree, reg} {
		d := top.Distances()
		for i := range d {
			d[i] *= 3
		}
		u, err := top.WithDistances(d)
		if err != nil {
			t.Fatal(err)
		}
		for p := 0; p < top.K(); p++ {
			for q := 0; q < top.K(); q++ {
				if u.Distance(p, q) != 3*top.Distance(p, q) {
					t.Fatalf("%v: distance(%d,%d) %d, want 3 x %d", top, p, q, u.Distance(p, q), top.Distance(p, q))
				}
			}
		}
	}
	if _, err := reg.WithDistances([]int64{1}); err == nil {
		t.Fatal("wrong number of distances accepted")
	}
}

func TestDefaultDistances(t *testing.T) {
	for levels, want := range map[int]string{1: "1", 2: "1:10", 3: "1:10:100", 4: "1:10:100:1000", 6: "1:10:100:1000:1000:1000"} {
		if got := FormatInts(DefaultDistances(levels)); got != want {
			t.Errorf("DefaultDistances(%d) = %s, want %s", levels, got, want)
		}
	}
	if len(DefaultDistances(0)) != 0 {
		t.Error("no levels, no distances")
	}
}

// AppendChildren appends, after what dst holds, the groups one level down
// that cover g in PE order (found here by GroupOf), on every group of a
// regular and an irregular machine, and allocates nothing where dst has
// room (the wide paths' fillers rely on it); Children gives the same
// groups in a slice of their number.
func TestAppendChildren(t *testing.T) {
	regular, _ := Parse("4:8:6", "1:10:100")
	irregular, err := NewTree([][]int{{0, 0, 0, 1, 1, 2, 2, 2, 2, 2}, {0, 0, 0, 0, 0, 1, 1, 1, 1, 1}}, []int64{1, 10, 100})
	if err != nil {
		t.Fatal(err)
	}
	prefix := Group{9, 9, 9}
	for _, top := range []*Topology{regular, irregular} {
		buf := make([]Group, 1, 1+top.K())
		for l := 1; l <= top.Levels(); l++ {
			for p := 0; p < top.K(); {
				g := top.GroupOf(l, p)
				want := []Group{prefix}
				for q := g.Lo; q < g.Hi; {
					c := top.GroupOf(l-1, q)
					want = append(want, c)
					q = c.Hi
				}
				buf[0] = prefix
				if got := top.AppendChildren(buf[:1], g); !slices.Equal(got, want) {
					t.Fatalf("%v: AppendChildren %v, want %v", g, got, want)
				}
				if got := top.Children(g); !slices.Equal(got, want[1:]) || cap(got) != len(got) {
					t.Fatalf("%v: Children %v (capacity %d), want %v", g, got, cap(got), want[1:])
				}
				if a := testing.AllocsPerRun(10, func() { buf = top.AppendChildren(buf[:1], g) }); a != 0 {
					t.Fatalf("%v: AppendChildren with room allocated %v times", g, a)
				}
				p = g.Hi
			}
		}
	}
}
