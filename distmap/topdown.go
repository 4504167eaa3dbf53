package distmap

import (
	"fmt"
	"slices"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// Hub graphs (degree CV at least gpumap.HubCV) too large to map whole
// (hubWhole) map top-down, as the one-process mapper maps them
// (gpumap/topdown.go): the distributed levels map the graph onto the
// groups of the machine's top split alone (gpumap.TopDownSplit's upper
// machine, one level: its J is their cut), then group j's subgraph is
// gathered onto rank j mod P and mapped there onto the group's own
// machine by default's IM, as the one-process mapper maps its groups (the
// same options, the same rule inside: a group of a hub graph maps
// top-down again), its PEs held to the whole machine's Lmax
// (gpumap.MapGroup), and the PEs go back to the vertices' owners. The
// distributed levels onto the whole machine coarsen by label propagation
// to 8000 vertices, map those onto 192 PEs and move single vertices
// between PEs on the way up, so the hubs' stars stay cut at the top
// level, which costs the most (R-MAT 2^21 onto 4:8:6 at P=2: see
// hubTopDown). Onto the 6 groups alone the Jet loop on every level moves
// whole stars between groups, as the one-process IM onto them does.
//
// Where a group's mapping is infeasible (its subgraph's mapping under
// the whole machine's Lmax: vertex weights, a universal hub), the top is
// mapped once more at eps/2, then the distributed levels map the whole
// machine, as topdown.go falls back; Result.Notes says so.

// hubTopDown reports whether a graph of n vertices and degree CV cv
// (collective values) is mapped top-down onto top: a hub graph, under a
// preset that maps hub graphs top-down (gpumap.TopDownOnHubs), onto a
// machine that has a top split (gpumap.TopDownSplit) and fewer PEs than
// vertices (topdown.go: a PE holds one vertex or none there). Not where
// Options.Coarsest is set (a developer's bound keeps the distributed
// levels, as hubWhole).
func hubTopDown(n int64, cv float64, top *topology.Topology, opt Options) bool {
	if opt.Coarsest != 0 || !gpumap.TopDownOnHubs(opt.Preset) || cv < gpumap.HubCV || int64(top.K()) >= n {
		return false
	}
	_, _, ok := gpumap.TopDownSplit(top)
	return ok
}

// mapTopDown maps g onto top top-down (see above; collective). total is
// g's vertex weight, cv its degree CV, lmax the whole machine's Lmax.
func mapTopDown(g *Graph, top *topology.Topology, opt Options, total int64, cv float64, entries, lmax int64) (*Result, error) {
	upper, lower, _ := gpumap.TopDownSplit(top)
	heavy := []int64{0}
	for _, w := range g.VW {
		heavy[0] = max(heavy[0], w)
	}
	if err := mpi.Allreduce(g.c, heavy, mpi.Max); err != nil {
		return nil, err
	}
	var notes []string
	if heavy[0] > lmax {
		// The group holding that vertex cannot be mapped feasibly at any
		// top (topdown.go).
		notes = append(notes, fmt.Sprintf("not top-down: a vertex of weight %d above Lmax %d", heavy[0], lmax))
	} else {
		for i, topEps := range []float64{opt.Eps, opt.Eps / 2} {
			if i > 0 && topEps == opt.Eps { // eps 0: the same top again
				break
			}
			uo := opt
			uo.Eps = topEps
			ur, err := mapLevels(g, upper, uo, total, cv, entries, graph.Lmax(total, upper.K(), topEps))
			if err != nil {
				return nil, err
			}
			if err := opt.Phases.Done("top-down: the top split"); err != nil {
				return nil, err
			}
			pe, err := mapGroups(g, ur.PE, upper.K(), lower, opt, lmax)
			if err != nil {
				return nil, err
			}
			if err := opt.Phases.Done("top-down: the groups"); err != nil {
				return nil, err
			}
			if pe != nil {
				gpe, err := exchange(g, pe)
				if err != nil {
					return nil, err
				}
				m, err := evaluate(g, top, append(pe, gpe...), opt.Eps)
				if err != nil {
					return nil, err
				}
				notes = append(notes, fmt.Sprintf("top-down: the top split onto %d groups at eps %g, each group onto %d PEs", upper.K(), topEps, lower.K()))
				return &Result{PE: pe[:g.N()], Metrics: m, Levels: ur.Levels, CoarseN: ur.CoarseN, Notes: notes}, nil
			}
			notes = append(notes, fmt.Sprintf("top-down: a group's mapping was infeasible with the top at eps %g", topEps))
		}
		notes = append(notes, "top-down: the distributed levels map the whole machine")
	}
	res, err := mapLevels(g, top, opt, total, cv, entries, lmax)
	if res != nil {
		res.Notes = append(notes, res.Notes...)
	}
	return res, err
}

// Fields of a vertex's record in mapGroups' messages: its group, global
// id, weight and the number of its edges inside the group, then their
// other ends' global ids and, where the graph has edge weights, their
// weights.
const recHead = 4

// mapGroups maps the subgraph of every group of g (group: the group of
// each local vertex, one of groups) onto lower, on rank j mod P for
// group j, each PE of the whole machine holding at most lmax, and
// returns the PE of every local vertex (group j's PEs are j*lower.K()
// and up), or nil where a group's mapping is infeasible (collective:
// the same on every rank).
func mapGroups(g *Graph, group []int32, groups int, lower *topology.Topology, opt Options, lmax int64) ([]int32, error) {
	n, size, per := g.N(), g.size, lower.K()
	// Edge weights on any rank: every record carries them.
	ew := []int64{0}
	if g.ew != nil {
		ew[0] = 1
	}
	if err := mpi.Allreduce(g.c, ew, mpi.Max); err != nil {
		return nil, err
	}
	weighted := ew[0] > 0
	ghost, err := exchange(g, group[:n])
	if err != nil {
		return nil, err
	}
	groupOf := func(u int32) int32 {
		if int(u) < n {
			return group[u]
		}
		return ghost[int(u)-n]
	}
	inside := make([]int64, n) // each vertex's edges inside its group
	for v := range n {
		for _, u := range g.Adj[g.XAdj[v]:g.XAdj[v+1]] {
			if groupOf(u) == group[v] {
				inside[v]++
			}
		}
	}
	// Records by destination rank, each rank's local vertices in order.
	perEdge := int64(1) // fields of an edge in a record
	if weighted {
		perEdge = 2
	}
	off := make([]int64, size+1)
	cnt := make([]int64, size+1) // vertices sent to each rank
	for v := range n {
		r := int(group[v]) % size
		off[r+1] += recHead + perEdge*inside[v]
		cnt[r+1]++
	}
	for r := range size {
		off[r+1] += off[r]
		cnt[r+1] += cnt[r]
	}
	send := make([]int64, off[size])
	sent := make([]int32, n) // the local vertices in the order of send
	at, next := slices.Clone(off[:size]), slices.Clone(cnt[:size])
	for v := range n {
		r := int(group[v]) % size
		sent[next[r]] = int32(v)
		next[r]++
		d := inside[v]
		rec := send[at[r] : at[r]+recHead+perEdge*d]
		rec[0], rec[1], rec[2], rec[3] = int64(group[v]), g.First()+int64(v), g.VW[v], d
		i := int64(recHead)
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; groupOf(u) == group[v] {
				rec[i] = g.global(u)
				if weighted {
					rec[i+d] = g.W(e)
				}
				i++
			}
		}
		at[r] += int64(len(rec))
	}
	ghost = nil
	recv, recvOff, err := mpi.Alltoallv(g.c, send, off, size)
	if err != nil {
		return nil, err
	}
	send = nil
	// The records of this rank's groups, in rank order and each rank's
	// in order of global id: every group's vertices in order of global
	// id, as the one-process mapper's group subgraphs number them
	// (partition.Blocks.Extract). where[i] is record i's group and its
	// vertex there.
	type place struct{ group, v int32 }
	var where []place
	mine := map[int32]*groupGraph{}
	outOff := make([]int64, size+1) // records from each rank
	for r := range size {
		for i := recvOff[r]; i < recvOff[r+1]; i += recHead + perEdge*recv[i+3] {
			j := int32(recv[i])
			sg := mine[j]
			if sg == nil {
				sg = &groupGraph{}
				mine[j] = sg
			}
			where = append(where, place{j, int32(len(sg.id))})
			sg.id = append(sg.id, recv[i+1])
			sg.rec = append(sg.rec, i)
		}
		outOff[r+1] = int64(len(where))
	}
	out := make([]int32, len(where))
	feasible := int64(1)
	var bad error
	for j := int32(int32(g.rank)); j < int32(groups); j += int32(size) {
		sg := mine[j]
		if sg == nil {
			continue
		}
		pe, ok, err := sg.mapOnto(recv, weighted, lower, opt, lmax)
		if err != nil {
			bad = err
			break
		}
		if !ok {
			feasible = 0
			break
		}
		sg.pe = pe
	}
	if err := agree(g.c, bad); err != nil {
		return nil, err
	}
	f := []int64{feasible}
	if err := mpi.Allreduce(g.c, f, mpi.Min); err != nil {
		return nil, err
	}
	if f[0] == 0 {
		return nil, nil
	}
	for i, p := range where {
		out[i] = p.group*int32(per) + mine[p.group].pe[p.v]
	}
	recv, where, mine = nil, nil, nil
	// The PEs go back in the order their records came, and arrive in the
	// order they were sent.
	back, _, err := mpi.Alltoallv(g.c, out, outOff, size)
	if err != nil {
		return nil, err
	}
	pe := make([]int32, n)
	for i, v := range sent {
		pe[v] = back[i]
	}
	return pe, nil
}

// groupGraph is one group's subgraph as mapGroups receives it: the
// global ids of its vertices in increasing order and where each one's
// record starts in the received messages, then its mapping.
type groupGraph struct {
	id  []int64
	rec []int64
	pe  []int32
}

// mapOnto builds the group's subgraph from its records in recv (with
// edge weights where weighted) and maps it onto lower as gpumap's
// top-down maps a group (gpumap.MapGroup: each PE holding at most lmax);
// ok is false where the mapping is infeasible.
func (sg *groupGraph) mapOnto(recv []int64, weighted bool, lower *topology.Topology, opt Options, lmax int64) (pe []int32, ok bool, err error) {
	nv := len(sg.id)
	xadj := make([]int64, nv+1)
	vw := make([]int64, nv)
	for v, i := range sg.rec {
		vw[v] = recv[i+2]
		xadj[v+1] = xadj[v] + recv[i+3]
	}
	adj := make([]int32, xadj[nv])
	var w []int64
	if weighted {
		w = make([]int64, xadj[nv])
	}
	for v, i := range sg.rec {
		d := recv[i+3]
		for x, u := range recv[i+recHead : i+recHead+d] {
			k, found := slices.BinarySearch(sg.id, u)
			if !found {
				return nil, false, fmt.Errorf("internal error: the group's vertex %d has a neighbour %d outside it", sg.id[v], u)
			}
			adj[xadj[v]+int64(x)] = int32(k)
			if weighted {
				w[xadj[v]+int64(x)] = recv[i+recHead+d+int64(x)]
			}
		}
	}
	sub, err := graph.FromCSR(xadj, adj, vw, w)
	if err != nil {
		return nil, false, err
	}
	return gpumap.MapGroup(sub, lower, opt.Seed, opt.Threads, lmax)
}
