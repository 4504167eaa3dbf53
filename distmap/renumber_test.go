package distmap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// shuffled returns g with its vertices numbered by a random permutation
// (seed), as NE's input numbering leaves a third of its entries across
// two ranks.
func shuffled(g *graph.Graph, seed uint64) *graph.Graph {
	n := g.N()
	perm := rand.New(rand.NewPCG(seed, 1)).Perm(n) // old v becomes perm[v]
	old := make([]int, n)
	for v, p := range perm {
		old[p] = v
	}
	xadj := make([]int64, n+1)
	var adj []int32
	var w []int64
	vw := make([]int64, n)
	for p := range n {
		v := old[p]
		vw[p] = g.VW[v]
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			adj = append(adj, int32(perm[g.Adj[e]]))
			w = append(w, g.W(e))
		}
		xadj[p+1] = int64(len(adj))
	}
	s, err := graph.FromCSR(xadj, adj, vw, w)
	if err != nil {
		panic(err)
	}
	return s
}

// bfsOrder lists every vertex once, each component from its smallest
// vertex, every vertex after a neighbour listed before it.
func TestBFSOrder(t *testing.T) {
	g := shuffled(graph.RoadGrid(20, 15), 3)
	// Two components: the road grid and a copy of it.
	both, err := graph.FromCSR(append(slices.Clone(g.XAdj), func() []int64 {
		x := make([]int64, g.N())
		for v := range x {
			x[v] = g.XAdj[len(g.XAdj)-1] + g.XAdj[v+1]
		}
		return x
	}()...), append(slices.Clone(g.Adj), func() []int32 {
		a := make([]int32, len(g.Adj))
		for e, u := range g.Adj {
			a[e] = u + int32(g.N())
		}
		return a
	}()...), append(slices.Clone(g.VW), g.VW...), nil)
	if err != nil {
		t.Fatal(err)
	}
	order := bfsOrder(both.XAdj, both.Adj)
	pos := make([]int, both.N())
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range order {
		if pos[v] >= 0 {
			t.Fatalf("vertex %d listed twice", v)
		}
		pos[v] = i
	}
	if len(order) != both.N() || order[0] != 0 || order[g.N()] != int32(g.N()) {
		t.Fatalf("%d of %d vertices, first %d, first of the copy %d (want 0 and %d)", len(order), both.N(), order[0], order[g.N()], g.N())
	}
	for i, v := range order {
		if i == 0 || i == g.N() {
			continue
		}
		before := false
		for e := both.XAdj[v]; e < both.XAdj[v+1]; e++ {
			before = before || pos[both.Adj[e]] < i
		}
		if !before {
			t.Fatalf("vertex %d (position %d) follows none of its neighbours", v, i)
		}
	}
}

// A road whose numbering leaves most entries across the ranks is mapped
// in breadth-first order (mapRenumbered): on 2 ranks a shuffled road grid
// keeps under spreadMax of its entries across the ranks on level 0,
// and the mapping of each rank's own vertices is the one the metrics
// describe (graph.Evaluate of the gathered mapping on the shuffled
// graph, with unit edge weights and with weights that rank 0 does not
// store), feasible, the same at 1 and 2 threads. Before, the levels
// mapped it in its own numbering (about half its entries across the
// ranks).
func TestRenumberedRoads(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 2, "TestRenumberedRoads", "renumbered ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	plain := shuffled(graph.RoadGrid(60, 60), 5)
	// Weighted: 2 between two vertices of the second half, else 1, so
	// that rank 0's own edges all weigh 1 (it stores none) while the
	// renumbered ranges mix both (a first version carried the weights
	// only where the rank had stored some: the coarse graphs' weights
	// then differed between an edge's two ends).
	n := int32(plain.N())
	ew := make([]int64, len(plain.Adj))
	for v := range n {
		for e := plain.XAdj[v]; e < plain.XAdj[v+1]; e++ {
			ew[e] = 1
			if 2*v >= n && 2*plain.Adj[e] >= n {
				ew[e] = 2
			}
		}
	}
	weighted, err := graph.FromCSR(slices.Clone(plain.XAdj), slices.Clone(plain.Adj), slices.Clone(plain.VW), ew)
	if err != nil {
		rankFail("%v", err)
	}
	spread := regexp.MustCompile(`(?m)^level +(0) vtxdist .*, (\d+) of (\d+) adjacency entries`)
	for _, whole := range []*graph.Graph{plain, weighted} {
		g := spreadEvenly(c, size, rank, whole)
		var pes [][]int32
		for _, threads := range []int{1, 2} {
			var tr bytes.Buffer
			res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: threads, Coarsest: 600, Trace: &tr})
			if err != nil {
				rankFail("%v", err)
			}
			all, _, err := mpi.Allgatherv(c, res.PE, size)
			if err != nil {
				rankFail("%v", err)
			}
			pes = append(pes, all)
			if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "numbered breadth-first before the levels: ") {
				rankFail("threads %d: notes %q, want the renumbering's", threads, res.Notes)
			}
			if rank != 0 {
				continue
			}
			m, err := graph.Evaluate(whole, top, all, 0.03)
			if err != nil || m.J != res.Metrics.J || !m.Feasible {
				rankFail("threads %d: the gathered mapping evaluates to %+v (%v), the result says J %d", threads, m, err, res.Metrics.J)
			}
			levels := spread.FindAllStringSubmatch(tr.String(), -1)
			if len(levels) == 0 {
				rankFail("threads %d: no levels traced:\n%s", threads, tr.String())
			}
			for _, l := range levels {
				far, _ := strconv.ParseInt(l[2], 10, 64)
				all, _ := strconv.ParseInt(l[3], 10, 64)
				if float64(far) > spreadMax*float64(all) {
					rankFail("threads %d: level %s keeps %d of %d entries across the ranks:\n%s", threads, l[1], far, all, tr.String())
				}
			}
		}
		if !slices.Equal(pes[0], pes[1]) {
			rankFail("the mapping differs at 1 and 2 threads")
		}
	}
	if rank == 0 {
		fmt.Println("renumbered ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// renumberable takes roads and meshes within hubWhole's bounds, not
// graphs of spread degrees (distreal2's ibm14, finan512).
func TestRenumberable(t *testing.T) {
	for _, x := range []struct {
		name       string
		n, entries int64
		cv         float64
		want       bool
	}{
		{"NE", 1524453, 3868020, 0.37, true},
		{"a road of spread degrees", 1 << 20, 2 << 20, 0.9, true},
		{"igea", 134345, 806058, 0.11, true},
		{"ibm14", 147605, 1369254, 0.81, false},
		{"finan512 x2", 149504, 1044484, 0.90, false},
		{"a mesh past the vertices", hubWholeVertices + 1, 6 << 21, 0.1, false},
		{"a mesh past the entries", 1 << 21, hubWholeEntries + 1, 0.3, false},
	} {
		if got := renumberable(x.n, x.entries, x.cv); got != x.want {
			t.Errorf("%s: renumberable(%d, %d, %.2f) = %v, want %v", x.name, x.n, x.entries, x.cv, got, x.want)
		}
	}
}

// Where a graph is renumbered (mapRenumbered), the breadth-first order
// must leave fewer of its entries across the ranks than the input's
// numbering did: a 3D grid in its natural numbering at P=4 has about
// (P-1)/(3a) of its entries across the ranks (above spreadMax for a
// side a below 20), a share that grows with P for any numbering.
func TestRenumberingLowersSpread(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 4, "TestRenumberingLowersSpread", "spread ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	whole := graph.Grid(16, 16, 16)
	g := spreadEvenly(c, size, rank, whole)
	var tr bytes.Buffer
	res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: 1, Coarsest: 300, Trace: &tr})
	if err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		in := regexp.MustCompile(`([\d.]+)% of the input's adjacency entries lay across`)
		lvl0 := regexp.MustCompile(`(?m)^level +0 vtxdist .*\(([\d.]+)%\) across the ranks$`)
		for _, note := range res.Notes {
			if m := in.FindStringSubmatch(note); m != nil {
				l := lvl0.FindStringSubmatch(tr.String())
				if l == nil {
					rankFail("no level 0 traced:\n%s", tr.String())
				}
				before, _ := strconv.ParseFloat(m[1], 64)
				after, _ := strconv.ParseFloat(l[1], 64)
				if after >= before {
					rankFail("renumbered from %.1f%% to %.1f%% of the entries across the ranks", before, after)
				}
			}
		}
		fmt.Println("spread ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
