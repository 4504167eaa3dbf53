package multisection

import (
	"slices"
	"strconv"
	"testing"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/topology"
)

// FillGroups keeps every vertex inside its group, gives the PEs of a group
// of unit-weight vertices their shares within one vertex (so within lmax
// when the group is within its capacity), and the same result for any
// thread count.
func TestFillGroupsInvariants(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8", "1:10:100:1000")
	g := graph.RandomGeometric(6144, 5)
	tr, ok := (WideConfig{PerPE: 4, MinK: 4096, GroupMin: 16}).Truncate(g.N(), top)
	if !ok || tr.Bottom != 2 || tr.Size != 32 || tr.Top.K() != 128 {
		t.Fatalf("truncation %+v %v, want 2 bottom levels of 32 PEs", tr, ok)
	}
	// Groups of uneven sizes: vertex v in group (v*7/13) mod 128, up to
	// ~64 vertices each (the capacity of 32 PEs of lmax 2).
	group := make([]int32, g.N())
	size := make([]int, tr.Top.K())
	for v := range group {
		group[v] = int32(v * 7 / 13 % tr.Top.K())
		size[group[v]]++
	}
	var ref []int32
	for _, threads := range []int{1, 2, 3} {
		pe := FillGroups(par.New(threads), g, top, tr, group)
		load := make([]int, top.K())
		for v, p := range pe {
			if grp := tr.Group(group[v]); int(p) < grp.Lo || int(p) >= grp.Hi {
				t.Fatalf("vertex %d of group %d on PE %d, outside [%d,%d)", v, group[v], p, grp.Lo, grp.Hi)
			}
			load[p]++
		}
		for p, l := range load {
			s := size[p/tr.Size]
			if lo, hi := s/tr.Size, (s+tr.Size-1)/tr.Size; l < lo || l > hi {
				t.Fatalf("PE %d holds %d of its group's %d vertices, want %d..%d", p, l, s, lo, hi)
			}
		}
		if ref == nil {
			ref = pe
		} else if !slices.Equal(pe, ref) {
			t.Fatalf("threads=%d: another result than threads=1", threads)
		}
	}
}

// PartitionGroups keeps every vertex inside its group, every child
// within its capacity, gives the same result for any thread count, and
// cuts less between the children than FillGroups' greedy growing on a
// coarse rgg (heavy vertices, groups of 8 children one level down, as
// integrated mapping's coarse levels on a wide machine).
func TestPartitionGroups(t *testing.T) {
	top, _ := topology.Parse("4:8:16:8:2", "1:10:100:1000:10000")
	fine := graph.RandomGeometric(4096, 3)
	levels := coarsening.Coarsen(par.New(1), fine, coarsening.Config{StopSize: 800, MaxWeight: 16, Seed: 1})
	g := levels[len(levels)-1].Graph
	from := truncateAt(top, 4) // 2 groups of 4,096 PEs
	to := truncateAt(top, 3)   // 16 groups of 512 PEs
	within := from.Within(to)
	if within.Bottom != 1 || within.Size != 8 {
		t.Fatalf("within %+v, want 8 children one level down", within)
	}
	group := make([]int32, g.N()) // halves by id
	for v := range group {
		group[v] = int32(2 * v / g.N())
	}
	capChild := int64(2 * 512)
	cutOf := func(pe []int32) int64 {
		var c int64
		for v := 0; v < g.N(); v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				if pe[v] != pe[g.Adj[e]] {
					c += g.W(e)
				}
			}
		}
		return c / 2
	}
	pc := partition.Config{Tries: 4, LPRounds: 2, FMRounds: 1, Seed: 7}
	var ref []int32
	for _, threads := range []int{1, 2, 3} {
		pe := PartitionGroups(par.New(threads), g, within, group, capChild, pc)
		load := make([]int64, to.Top.K())
		for v, p := range pe {
			if p/int32(within.Size) != group[v] {
				t.Fatalf("vertex %d of group %d on child %d", v, group[v], p)
			}
			load[p] += g.VW[v]
		}
		for p, l := range load {
			if l > capChild {
				t.Fatalf("child %d weighs %d, above its capacity %d", p, l, capChild)
			}
		}
		if ref == nil {
			ref = pe
		} else if !slices.Equal(pe, ref) {
			t.Fatalf("threads=%d: another result than threads=1", threads)
		}
	}
	grown := FillGroups(par.New(1), g, to.Top, within, group)
	t.Logf("n %d, cut %d partitioned, %d grown", g.N(), cutOf(ref), cutOf(grown))
	if c, f := cutOf(ref), cutOf(grown); c >= f {
		t.Errorf("partitioned cut %d, grown %d: want less", c, f)
	}
}

// BenchmarkFillGroups: the host's split into PEs of integrated mapping
// on the wide instance (rgg 121,192 onto 4:8:64:8:6: 3,072 groups
// of 32 PEs), groups of consecutive ids.
func BenchmarkFillGroups(b *testing.B) {
	top, _ := topology.Parse("4:8:64:8:6", "1:10:100:1000:10000")
	g := graph.RandomGeometric(121192, 1)
	tr, _ := (WideConfig{PerPE: 4, MinK: 4096, GroupMin: 16}).Truncate(g.N(), top)
	group := make([]int32, g.N())
	for v := range group {
		group[v] = int32(int64(v) * int64(tr.Top.K()) / int64(g.N()))
	}
	b.ResetTimer()
	for b.Loop() {
		FillGroups(par.New(1), g, top, tr, group)
	}
}

// growPEs on a path 0 -1- 1 -9- 2 -5- 3 onto 2 PEs: greedy growing from
// vertex 0 puts {0,1} and {2,3} apart (cut 9). At capacity 2 the swap of
// 0 and 2 gives {1,2} and {0,3} (cut 6, the optimum); at capacity 3 vertex
// 1 moves next to 2 (cut 1, the optimum).
func TestGrowPEsByHand(t *testing.T) {
	b := graph.NewBuilder(4)
	b.AddEdge(0, 1, 1)
	b.AddEdge(1, 2, 9)
	b.AddEdge(2, 3, 5)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	top, _ := topology.Parse("2", "1")
	for _, c := range []struct {
		lmax int64
		want []int32
		cut  int64
	}{
		{2, []int32{1, 0, 0, 1}, 6},
		{3, []int32{0, 1, 1, 1}, 1},
	} {
		m := newMapperFor(par.New(1), g, top, Config{}, 4, c.lmax, 0)
		pe := make([]int32, 4)
		m.growPEs(g, []int32{0, 1, 2, 3}, top.Root(), pe)
		if !slices.Equal(pe, c.want) {
			t.Errorf("lmax %d: PEs %v, want %v (cut %d)", c.lmax, pe, c.want, c.cut)
		}
	}
}

// growChildrenPEs maps a socket split's children onto their PEs as rec
// does child by child (a subgraph each: one unit vertex per PE in order,
// else growPEs): the same PEs, for children that are empty, that hold one
// vertex per PE, or more, with unit and with heavier vertices.
func TestGrowChildrenPEsAsRec(t *testing.T) {
	top, _ := topology.Parse("4:8", "1:10")
	grp := top.Root()
	for seed := range uint64(20) {
		g := graph.RandomGeometric(40+int(seed), 11+seed)
		if seed%2 == 1 {
			b := graph.NewBuilder(g.N())
			for v := range g.N() {
				b.SetVertexWeight(v, int64(1+(v*7+int(seed))%3))
				for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
					if u := int(g.Adj[e]); u > v {
						b.AddEdge(v, u, int64(1+(u+v)%4))
					}
				}
			}
			var err error
			if g, err = b.Build(); err != nil {
				t.Fatal(err)
			}
		}
		// Children in turn: 4 unit vertices, none, and the rest spread.
		part := make([]int32, g.N())
		for v := range part {
			switch {
			case v < 4:
				part[v] = 0
			default:
				part[v] = int32(2 + (v*5+int(seed))%6)
			}
		}
		m := newMapperFor(par.New(1), g, top, Config{Wide: WideConfig{GrowPEs: true}}, g.TotalVertexWeight(), 3, 0.03)
		m.wide = true
		global := make([]int32, g.N())
		for i := range global {
			global[i] = int32(i)
		}
		got := make([]int32, g.N())
		m.growChildrenPEs(g, global, grp, part, got)
		want := make([]int32, g.N())
		blocks := partition.NewBlocks(g, part, 8)
		for c, child := range top.Children(grp) {
			if blocks.Size(c) > 0 {
				sub := blocks.Extract(c)
				m.rec(par.New(1), sub.G, sub.Global, child, want, nil)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: PEs %v, through rec %v", seed, got, want)
		}
	}
}

// BenchmarkGrowPEsGroups: 64 groups of 32 PEs (8 sockets of 4), each
// with a block of consecutive ids of an rgg, mapped by growPEs, as
// GrowSockets maps them on wide machines: 40 vertices per group at lmax
// 2, and 98 at lmax 4 (rgg 100,000 onto 4:8:16:8:8, 32,768 PEs, eps
// 0.03: lmax 4, ~98 vertices per group of 32 PEs).
func BenchmarkGrowPEsGroups(b *testing.B) {
	top, _ := topology.Parse("4:8:64:2:2", "1:10:100:1000:10000")
	grp := top.GroupOf(3, 0)
	children := top.Children(grp)
	for _, c := range []struct {
		per  int
		lmax int64
	}{{40, 2}, {98, 4}} {
		b.Run(strconv.Itoa(c.per), func(b *testing.B) {
			g := graph.RandomGeometric(64*c.per, 3)
			part := make([]int32, g.N())
			for v := range part {
				part[v] = int32(v / c.per)
			}
			subs := partition.Split(g, part, 64)
			cfg := Config{Wide: WideConfig{GrowPEs: true, GrowSockets: true, FinePerChild: 16}}
			m := newMapperFor(par.New(1), g, top, cfg, g.TotalVertexWeight(), c.lmax, 0.03)
			m.wide = true
			pe := make([]int32, g.N())
			for b.Loop() {
				for c, s := range subs {
					m.growPEs(s.G, s.Global, children[c], pe)
				}
			}
		})
	}
}
