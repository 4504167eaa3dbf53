package multisection

import (
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/topology"
)

// coarseSecond reports whether rec splits g on grp by coarseSplit: a wide
// mapping, grp a child of the root, CoarseSecondC set.
func (m *mapper) coarseSecond(grp topology.Group) bool {
	return m.wide && m.cfg.Wide.CoarseSecondC > 0 && grp.Level == m.top.Root().Level-1 && grp.Level > 1
}

// coarseSplit splits g, a subgraph on grp, into grp's children as split
// does, but on a coarsening of g (deep multilevel): g is coarsened once,
// the coarsest level graph with CoarseSecondC vertices per child or more
// (g itself when none) is split by split (its tries and partitioner, on a
// graph several times smaller), and the split is projected back to g,
// refined on every finer level by partition.Refine with CoarseSecond.
//
// These are the splits into nodes of a wide machine (rgg 121k onto
// 4:8:64:8:6: 6 subgraphs of 20k vertices into 8 nodes, 3 tries each),
// which coarsened their subgraph again for every try and took about a
// quarter of the time.
func (m *mapper) coarseSplit(x *par.Exec, g *graph.Graph, grp topology.Group) []int32 {
	w := m.cfg.Wide
	children := m.top.Children(grp)
	enough := w.CoarseSecondC * len(children)
	if g.N() <= enough { // no coarse level has enough vertices
		maxW, pc, tries, _ := m.splitConfig(g, grp)
		return m.split(x, g, grp, maxW, pc, tries)
	}
	// Coarse vertices stay light next to a child's capacity, and the
	// coarsest graph half the size the split needs: the split runs on the
	// first level up that has enough.
	minCap := m.lmax * int64(children[0].Size())
	for _, c := range children[1:] {
		minCap = min(minCap, m.lmax*int64(c.Size()))
	}
	levels := coarsening.Coarsen(x, g, coarsening.Config{StopSize: max(enough/2, 1),
		MaxWeight: max(minCap/4, g.MaxVertexWeight(), 1), Seed: m.cfg.Seed ^ uint64(grp.Lo)<<8 ^ 0xdee9, Natural: m.local})
	top := -1 // the level split: -1 is g
	for l := len(levels) - 1; l >= 0; l-- {
		if levels[l].Graph.N() >= enough {
			top = l
			break
		}
	}
	gl := g
	if top >= 0 {
		gl = levels[top].Graph
	}
	maxW, pc, tries, _ := m.splitConfig(gl, grp)
	part := m.split(x, gl, grp, maxW, pc, tries)
	if top < 0 {
		return part
	}
	// The limits of the split of g itself; the children are equally far
	// apart, so J between them is their cut.
	lim, _, _, _ := m.splitConfig(g, grp)
	for l := top - 1; l >= -1; l-- {
		fine := g
		if l >= 0 {
			fine = levels[l].Graph
		}
		p := make([]int32, fine.N())
		coarsening.Project(x, levels[l+1].CMap, part, p)
		part = p
		seed := m.cfg.Seed*0x9e3779b97f4a7c15 ^ uint64(grp.Lo)<<8 ^ uint64(l+2)*0x51ed
		partition.Refine(x, fine, part, lim, w.CoarseSecond, seed)
	}
	return part
}
