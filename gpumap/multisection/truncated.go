package multisection

import (
	"math"
	"sync"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Truncation cuts a wide mapping's machine in two: the Bottom lowest
// levels, whose groups of Size PEs each hold a few dozen vertices, and Top,
// the machine above them, one PE per such group (PE t of Top is the group
// of PEs [t*Size, (t+1)*Size) of the whole machine).
//
// Integrated mapping coarsens to a multiple of k vertices, so on wide
// machines (k close to n) it did not coarsen at all, and the host mapped
// the whole graph by multisection (rgg 121k onto 4:8:64:8:6: 2.1 s of host
// work beside 3.8 ms of modelled device time). Truncated, the graph
// coarsens to a small multiple of Top's PEs, the host maps Top on that
// small graph (MapTop), the device refines the groups on J on the way
// down, and on the input graph every group is split into its PEs
// (FillGroups) and the whole machine refined.
type Truncation struct {
	Top    *topology.Topology
	Bottom int
	Size   int
}

// Truncate returns the truncation of a mapping of n vertices onto top:
// the fewest bottom levels whose groups hold at least GroupMin vertices on
// average, leaving at least one level on top. False when the mapping is
// not wide, the hierarchy irregular, or no such cut exists.
func (w WideConfig) Truncate(n int, top *topology.Topology) (Truncation, bool) {
	arity, regular := top.Arity()
	if w.GroupMin <= 0 || !regular || !w.Applies(n, top.K()) {
		return Truncation{}, false
	}
	size := 1
	for b := 1; b < len(arity); b++ {
		size *= arity[b-1]
		if float64(n)*float64(size) >= float64(w.GroupMin)*float64(top.K()) {
			return truncateAt(top, b), true
		}
	}
	return Truncation{}, false
}

// truncateAt is top, regular, truncated below its b lowest levels.
func truncateAt(top *topology.Topology, b int) Truncation {
	arity, _ := top.Arity()
	dist := top.Distances()
	size := 1
	for _, a := range arity[:b] {
		size *= a
	}
	t, err := topology.NewRegular(arity[b:], dist[b:])
	if err != nil { // a part of a valid machine
		panic(err)
	}
	return Truncation{Top: t, Bottom: b, Size: size}
}

// CoarseStage is the machine that integrated mapping refines a coarse
// graph of n vertices on: the truncation whose groups hold GroupMin of its
// vertices on average, never finer than first (the coarse levels' stage),
// and the machine below its top level when even those groups hold fewer.
// Coarser graphs get larger groups, which leave Jet room to move vertices
// between nodes; the groups are split as the graph gets finer.
func (w WideConfig) CoarseStage(n int, top *topology.Topology, first Truncation) Truncation {
	tr, ok := w.Truncate(n, top)
	switch {
	case !ok:
		return truncateAt(top, top.Levels()-1)
	case tr.Bottom < first.Bottom:
		return first
	}
	return tr
}

// Stages returns the machines that integrated mapping refines on, from
// the coarse levels' to the whole machine: Truncate's (groups of GroupMin
// vertices), then, when it cuts fewer levels, the truncation below groups
// of FineGroupMin vertices, then the whole machine (Bottom 0, Size 1).
// Nil when the machine is not truncated. On the coarse levels large
// groups leave Jet room to move vertices between nodes (rgg 121k onto
// 4:8:64:8:6: cut between nodes 1,361 with groups of 2048 PEs, 1,720 with
// groups of 32); the finer stage then settles the groups of 32 PEs (their
// cut weighs 100) before the PEs.
func (w WideConfig) Stages(n int, top *topology.Topology) []Truncation {
	tr, ok := w.Truncate(n, top)
	if !ok {
		return nil
	}
	stages := []Truncation{tr}
	fine := w
	fine.GroupMin = w.FineGroupMin
	if f, ok := fine.Truncate(n, top); ok && f.Bottom < tr.Bottom {
		stages = append(stages, f)
	}
	return append(stages, Truncation{Top: top, Size: 1})
}

// Within is tr, a truncation of a machine, as a truncation of finer's
// Top, the same machine truncated below fewer levels: its groups are
// groups of finer's PEs.
func (tr Truncation) Within(finer Truncation) Truncation {
	return Truncation{Top: tr.Top, Bottom: tr.Bottom - finer.Bottom, Size: tr.Size / finer.Size}
}

// Group is the bottom group of the whole machine that Top's PE t stands
// for.
func (tr Truncation) Group(t int32) topology.Group {
	return topology.Group{Level: tr.Bottom, Lo: int(t) * tr.Size, Hi: (int(t) + 1) * tr.Size}
}

// TopLmax is the capacity of one of Top's PEs (a group) when every PE of
// the whole machine holds at most lmax.
func (tr Truncation) TopLmax(lmax int64) int64 { return lmax * int64(tr.Size) }

// MapTop maps g, a coarsening of a graph of total vertex weight total
// onto a machine whose PEs hold at most lmax, onto tr.Top by multisection
// under cfg: each of Top's PEs may take a group's capacity, and the splits
// share eps, the slack of the whole mapping (Slack). The effort is
// cfg.Wide's: TopTries tries of the top split, SecondTries of its
// children's, the partitioner Coarse below, and TopSlackDepth.
func MapTop(x *par.Exec, g *graph.Graph, tr Truncation, total, lmax int64, eps float64, cfg Config) []int32 {
	w := cfg.Wide
	if w.Coarse.Tries > 0 {
		cfg.Lower, cfg.Bottom = w.Coarse, w.Coarse
	}
	// Coarse vertices are heavy next to a group's capacity: with the slack
	// shifted to the top split (SlackDepth 0.03, as on the input graph)
	// the splits near the groups had none left, and the groups ended up
	// above capacity (rgg 121k onto 4:8:64:8:6: by 1,106 vertices), which
	// moving vertices to groups with room then paid for with J (32M ->
	// 53M on the coarsest graph; Jet's rebalancing: 113M). An equal share
	// per level (1) left none above capacity.
	cfg.TopTries, cfg.SlackDepth = max(w.TopTries, 1), w.TopSlackDepth
	cfg.Wide = WideConfig{SecondTries: w.SecondTries}
	cfg.Ahead, cfg.Phase = nil, nil
	m := newMapperFor(x, g, tr.Top, cfg, total, tr.TopLmax(lmax), eps)
	m.wide = true // SecondTries
	pe := make([]int32, g.N())
	global := make([]int32, g.N())
	for i := range global {
		global[i] = int32(i)
	}
	m.rec(x, g, global, tr.Top.Root(), pe, nil)
	m.work()
	// Any group still above capacity gives its excess to the nearest
	// groups with room, before a refinement that would move it anywhere.
	if st := refinement.NewState(g, tr.Top.K(), pe, uniform(tr.Top.K(), m.lmax), refinement.Mapping(tr.Top)); st.Overloaded() > 0 {
		refinement.Rebalance(st)
	}
	return pe
}

// uniform is k limits of l.
func uniform(k int, l int64) []int64 {
	w := make([]int64, k)
	for i := range w {
		w[i] = l
	}
	return w
}

// FillGroups maps every vertex of g to a PE of top inside the group that
// group[v] (a PE of tr.Top) stands for, cheaply: the simple k-way
// partitioner of the GPU mapping paper's initial partitioning, by greedy
// growing. A group's vertices are split among its children in PE order:
// each child's set grows by the vertex left with the most edge weight
// into the set, until it has the child's share of the weight left; it
// starts from the vertex left that was best connected to the set before it
// (so that consecutive children, which share the next level up, get
// neighbouring sets), or from the lowest id left. Then every child's set
// is split the same way, down to the PEs. It costs O(n + m) (the sets are
// small), for a refinement on J (Jet) to polish: it is the split into PEs
// of integrated mapping on wide machines, where the groups hold a few
// dozen vertices and a partitioner per group costs more than the device's
// whole mapping. A group within its capacity (tr.TopLmax) of unit-weight
// vertices gives PEs within lmax (the shares differ by at most one
// vertex). The result does not depend on the thread count: every group is
// one task, and the groups share no vertex.
func FillGroups(x *par.Exec, g *graph.Graph, top *topology.Topology, tr Truncation, group []int32) []int32 {
	n := g.N()
	k := tr.Top.K()
	first := make([]int32, k+1)
	for _, t := range group {
		first[t+1]++
	}
	for t := 0; t < k; t++ {
		first[t+1] += first[t]
	}
	members := make([]int32, n)
	fill := append([]int32(nil), first[:k]...)
	for v, t := range group {
		members[fill[t]] = int32(v)
		fill[t]++
	}
	f := &filler{g: g, top: top, group: group, pe: make([]int32, n), mark: make([]int64, n), conn: make([]int64, n),
		taken: make([]bool, n)}
	x.Each(k, func(_, t int) {
		if vs := members[first[t]:first[t+1]]; len(vs) > 0 {
			// Stamps of group t start above every earlier group's; 0 is
			// every mark at the start.
			f.split(vs, int32(t), tr.Group(int32(t)), int64(t+1)<<32)
		}
	})
	return f.pe
}

// PartitionGroups maps every vertex of g to a PE of a finer truncation
// inside the group that group[v] (a PE of tr.Top) stands for, where each
// group's tr.Size children lie one machine level below it (tr.Bottom 1,
// as from.Within(to) of two stages one level apart): the partitioner
// under cfg splits each group's subgraph into its children, each child
// at most capChild (its PEs' capacity), and child c of group t is PE
// t*tr.Size + c. It is the split of integrated mapping's coarse levels on
// wide machines, where a group's subgraph has a few hundred vertices:
// rgg 121k onto 4:8:64:8:6 (fast preset) splits 6 groups of 16,384 PEs
// into 8 on a level of 3,205 vertices, where greedy growing
// (FillGroups) left the cut between those children 1.5x the partitioner's
// after the Jet loop. The result does not depend on the thread count:
// every group is one task (par.Each), seeded by cfg.Seed and its index.
func PartitionGroups(x *par.Exec, g *graph.Graph, tr Truncation, group []int32, capChild int64, cfg partition.Config) []int32 {
	if tr.Bottom != 1 {
		panic("multisection: PartitionGroups splits groups into children one level below them")
	}
	k := tr.Top.K()
	blocks := partition.NewBlocksOn(x, g, group, k)
	pe := make([]int32, g.N())
	maxW := make([]int64, tr.Size)
	for c := range maxW {
		maxW[c] = capChild
	}
	par.Each(x.Threads(), k, func(t int, x *par.Exec) {
		if blocks.Size(t) == 0 {
			return
		}
		sub := blocks.Extract(t)
		c := cfg
		c.Seed = cfg.Seed + uint64(t)*0x9e3779b97f4a7c15
		part := partition.Partition(x, sub.G, maxW, c)
		for i, v := range sub.Global {
			pe[v] = int32(t*tr.Size) + part[i]
		}
	})
	return pe
}

// filler is FillGroups' state; a vertex's entries are used only by the
// task of its group (group, read only, is checked before them).
type filler struct {
	g     *graph.Graph
	top   *topology.Topology
	group []int32
	pe    []int32
	mark  []int64 // the stamp of the set being split that holds the vertex
	conn  []int64 // edge weight into the set being grown
	taken []bool
	// capPE > 0 improves every split into single PEs by moves and swaps
	// (improvePEs) that keep each PE within capPE; child (the PE of a
	// vertex of the set) and at (its position in the set) are their
	// per-vertex scratch. improvePEs runs only where capPE > 0, on the
	// wide paths' one filler per task (growPEs, growChildrenPEs), never
	// on FillGroups' filler, which x.Each shares.
	capPE     int64
	child, at []int32
	// own, when not nil, is the scratch of split and improvePEs,
	// reused from call to call: the filler is one task's (growPEs,
	// growChildrenPEs). FillGroups' filler, which x.Each shares, has
	// none: its calls allocate their own.
	own *fillScratch
}

// fillScratch is a filler's scratch for one task: the group of every
// vertex where the task owns it (zero: growPEs); by the level of the
// group split, split's list of its children (kids) and their sets (bufs,
// ends) (the split of a group runs its children's, one level down, one
// after the other, so each level's are free again once its split
// returns); the front of the set growing; the search queue of
// peripheral; and improvePEs' loads, positions and copy of the set, the
// set's edges (first, nbr, nbw), each vertex's edge weight to every PE
// (cn), the most a move of each gains (ext) and the largest of those on
// each PE (onPE).
type fillScratch struct {
	kids                     [][]topology.Group
	group, frontier, q, set  []int32
	bufs                     [][]int32
	ends                     [][]int
	first, nbr               []int32
	load, nbw, cn, ext, onPE []int64
	pos                      []int
}

// fillers keeps the wide paths' fillers from call to call: growPEs runs
// once per group of 32 PEs on rgg 121k onto 4:8:64:8:6 (3,072 groups),
// and every filler made anew grew its scratch from nothing (growslice
// was a fifth of improvePEs' profile).
var fillers sync.Pool

// ownFiller returns a filler of one task for g on top, with the PE
// capacity capPE, its per-vertex entries zero; group, when not nil, is
// the group of every vertex (else all are in group 0).
func ownFiller(g *graph.Graph, top *topology.Topology, group []int32, capPE int64) *filler {
	n := g.N()
	f, _ := fillers.Get().(*filler)
	if f == nil {
		f = &filler{own: &fillScratch{}}
	}
	zero32 := func(a []int32) []int32 {
		if cap(a) < n {
			return make([]int32, n)
		}
		a = a[:n]
		clear(a)
		return a
	}
	f.g, f.top, f.capPE = g, top, capPE
	if group == nil {
		f.own.group = zero32(f.own.group)
		group = f.own.group
	}
	f.group = group
	f.pe, f.child, f.at = zero32(f.pe), zero32(f.child), zero32(f.at)
	if cap(f.mark) < n {
		f.mark, f.conn, f.taken = make([]int64, n), make([]int64, n), make([]bool, n)
	} else {
		f.mark, f.conn, f.taken = f.mark[:n], f.conn[:n], f.taken[:n]
		clear(f.mark)
		clear(f.conn)
		clear(f.taken)
	}
	return f
}

// putFiller hands f, from ownFiller, back for another task.
func putFiller(f *filler) {
	f.g, f.top, f.group = nil, nil, nil
	fillers.Put(f)
}

// levelBuf returns split's scratch for the children's sets of a group on
// level l: room for n vertices, and k ends.
func (sc *fillScratch) levelBuf(l, n, k int) ([]int32, []int) {
	sc.levels(l)
	if cap(sc.bufs[l]) < n {
		sc.bufs[l] = make([]int32, 0, n)
	}
	if cap(sc.ends[l]) < k {
		sc.ends[l] = make([]int, k)
	}
	return sc.bufs[l][:0], sc.ends[l][:k]
}

// children returns grp's children, listed in split's scratch of grp's
// level (topology.Topology.AppendChildren).
func (sc *fillScratch) children(top *topology.Topology, grp topology.Group) []topology.Group {
	sc.levels(grp.Level)
	sc.kids[grp.Level] = top.AppendChildren(sc.kids[grp.Level][:0], grp)
	return sc.kids[grp.Level]
}

// levels makes room for split's scratch of levels up to l.
func (sc *fillScratch) levels(l int) {
	for len(sc.bufs) <= l {
		sc.bufs, sc.ends, sc.kids = append(sc.bufs, nil), append(sc.ends, nil), append(sc.kids, nil)
	}
}

// split assigns set (a group's in increasing ids, a child's in the order
// it grew), vertices of group t, to the PEs of grp; stamp and the
// stamps after it are unique to this call and its recursion. It returns
// the next unused stamp.
func (f *filler) split(set []int32, t int32, grp topology.Group, stamp int64) int64 {
	if grp.Level == 0 || len(set) == 0 {
		for _, v := range set {
			f.pe[v] = int32(grp.Lo)
		}
		return stamp
	}
	var children []topology.Group
	if f.own != nil {
		children = f.own.children(f.top, grp)
	} else {
		children = f.top.Children(grp)
	}
	if len(children) == 1 {
		return f.split(set, t, children[0], stamp)
	}
	g := f.g
	var left int64
	for _, v := range set {
		f.mark[v], f.conn[v], f.taken[v] = stamp, 0, false
		left += g.VW[v]
	}
	// The children's sets, one after the other in buf.
	var buf []int32
	var ends []int
	var frontier []int32
	if f.own != nil {
		buf, ends = f.own.levelBuf(grp.Level, len(set), len(children))
		frontier = f.own.frontier[:0]
	} else {
		buf, ends = make([]int32, 0, len(set)), make([]int, len(children))
	}
	next := 0 // set[:next] is taken
	seed := int32(-1)
	sockets := f.capPE > 0 && children[0].Level == 1
	if sockets {
		seed = f.peripheral(set, t, stamp)
	}
	for i := range children {
		if i == len(children)-1 {
			for _, v := range set[next:] {
				if !f.taken[v] {
					buf = append(buf, v)
				}
			}
			ends[i] = len(buf)
			break
		}
		// The child's share of the weight left (the children of a
		// regular machine are equal).
		rest := int64(len(children) - i)
		target := (left + rest - 1) / rest
		share := target
		if sockets {
			target = min(left, f.capPE*int64(children[i].Size()))
		}
		var w int64
		frontier = frontier[:0]
		for w < target {
			v := seed
			seed = -1
			if v < 0 {
				pick := -1
				for j, u := range frontier {
					if pick < 0 || f.conn[u] > f.conn[frontier[pick]] {
						pick = j
					}
				}
				if pick >= 0 {
					v = frontier[pick]
					frontier[pick] = frontier[len(frontier)-1]
					frontier = frontier[:len(frontier)-1]
				} else if sockets && w >= share {
					break
				} else {
					for next < len(set) && f.taken[set[next]] {
						next++
					}
					if next == len(set) {
						break
					}
					v = set[next]
				}
			}
			f.taken[v] = true
			buf = append(buf, v)
			w += g.VW[v]
			for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
				// Another group's vertex is another task's: its marks
				// are not read.
				if u := g.Adj[e]; f.group[u] == t && f.mark[u] == stamp && !f.taken[u] {
					if f.conn[u] == 0 {
						frontier = append(frontier, u)
					}
					f.conn[u] += max(g.W(e), 1)
				}
			}
		}
		ends[i] = len(buf)
		// The next child starts next to this one.
		for _, u := range frontier {
			if !f.taken[u] && (seed < 0 || f.conn[u] > f.conn[seed]) {
				seed = u
			}
		}
		for _, u := range frontier {
			f.conn[u] = 0
		}
		left -= w
	}
	if f.own != nil {
		f.own.frontier = frontier
	}
	if f.capPE > 0 && children[0].Level <= 1 {
		// Into PEs, or into sockets (WideConfig.GrowSockets): the
		// children are equally far apart, and a socket's capacity is its
		// PEs'.
		f.improvePEs(buf, ends, t, stamp, f.capPE*int64(children[0].Size()))
	}
	stamp++
	lo := 0
	for i, c := range children {
		stamp = f.split(buf[lo:ends[i]], t, c, stamp)
		lo = ends[i]
	}
	return stamp
}

// peripheral returns the last vertex that a breadth-first search of set
// (vertices of group t marked with stamp, none taken) reaches from the
// last one that a search from set[0] reaches.
func (f *filler) peripheral(set []int32, t int32, stamp int64) int32 {
	g := f.g
	v := set[0]
	var q []int32
	if f.own != nil {
		q = f.own.q[:0]
		defer func() { f.own.q = q }()
	} else {
		q = make([]int32, 0, len(set))
	}
	for range 2 {
		q = append(q[:0], v)
		f.taken[v] = true
		for i := 0; i < len(q); i++ {
			x := q[i]
			for e := g.XAdj[x]; e < g.XAdj[x+1]; e++ {
				if u := g.Adj[e]; f.group[u] == t && f.mark[u] == stamp && !f.taken[u] {
					f.taken[u] = true
					q = append(q, u)
				}
			}
		}
		v = q[len(q)-1]
		for _, x := range q {
			f.taken[x] = false
		}
	}
	return v
}

// improvePEs improves a split into single PEs (or into sockets,
// WideConfig.GrowSockets), buf[ends[i-1]:ends[i]] on PE i (vertices of
// group t marked with stamp), each PE of capacity capPE, by local search
// on the edge weight cut between the PEs: a vertex moves (off a PE above
// the capacity first) to the PE with room
// that it is most connected to, and two vertices of equal weight on
// different PEs swap, whenever that cuts less. The PEs of a group are
// equally far apart and from every vertex outside it, so this cut is the
// only part of J that changes. Passes repeat while one gains, at most
// improvePasses. Each vertex's edge weight to every PE is kept in a table
// and updated as vertices move: recounted from the adjacency at every
// check, the sums took 6% of the CPU time of a wide mapping (rgg 121k
// onto 4:8:64:8:6). It rewrites buf and ends.
func (f *filler) improvePEs(buf []int32, ends []int, t int32, stamp int64, capPE int64) {
	g := f.g
	s, np := len(buf), len(ends)
	sc := f.own
	if sc == nil {
		sc = &fillScratch{}
	}
	load := append(sc.load[:0], make([]int64, np)...)
	sc.load = load
	lo := 0
	for i, e := range ends {
		for _, v := range buf[lo:e] {
			f.child[v] = int32(i)
			load[i] += g.VW[v]
		}
		lo = e
	}
	// The set's own edges, by position in buf: nbr[first[i]:first[i+1]]
	// are buf[i]'s neighbours in the set (positions, once per edge) and
	// nbw their weights; conn[i*np+c] is buf[i]'s edge weight to PE c.
	for i, v := range buf {
		f.at[v] = int32(i)
	}
	first, nbr, nbw := sc.first[:0], sc.nbr[:0], sc.nbw[:0]
	for _, v := range buf {
		first = append(first, int32(len(nbr)))
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; f.group[u] == t && f.mark[u] == stamp {
				nbr, nbw = append(nbr, f.at[u]), append(nbw, max(g.W(e), 1))
			}
		}
	}
	first = append(first, int32(len(nbr)))
	conn := sc.cn[:0]
	for range s * np {
		conn = append(conn, 0)
	}
	for i := range s {
		for j := first[i]; j < first[i+1]; j++ {
			conn[i*np+int(f.child[buf[nbr[j]]])] += nbw[j]
		}
	}
	sc.first, sc.nbr, sc.nbw, sc.cn = first, nbr, nbw, conn
	// move puts buf[i] on PE c, keeping conn.
	move := func(i int, c int32) {
		a := f.child[buf[i]]
		f.child[buf[i]] = c
		for j := first[i]; j < first[i+1]; j++ {
			row := int(nbr[j]) * np
			conn[row+int(a)] -= nbw[j]
			conn[row+int(c)] += nbw[j]
		}
	}
	// extOf is the most that moving buf[i] to another PE gains: its
	// largest edge weight to another PE less that to its own.
	extOf := func(i int) int64 {
		a := f.child[buf[i]]
		row := conn[i*np : (i+1)*np]
		var best int64 // edge weights to a PE are never negative
		for c, cw := range row {
			if int32(c) != a {
				best = max(best, cw)
			}
		}
		return best - row[a]
	}
	// w is the weight of the edges between buf[i] and buf[j].
	w := func(i, j int) int64 {
		var sum int64
		for e := first[i]; e < first[i+1]; e++ {
			if int(nbr[e]) == j {
				sum += nbw[e]
			}
		}
		return sum
	}
	for pass := 0; pass < improvePasses; pass++ {
		improved := false
		for i, u := range buf {
			a := f.child[u]
			row := conn[i*np : (i+1)*np]
			best, bestConn := a, row[a]
			if load[a] > capPE {
				bestConn = -1 // any PE with room (heavy vertices grew it too far)
			}
			for c := range int32(np) {
				if c != a && load[c]+g.VW[u] <= capPE && row[c] > bestConn {
					best, bestConn = c, row[c]
				}
			}
			if best != a {
				move(i, best)
				load[a] -= g.VW[u]
				load[best] += g.VW[u]
				improved = true
			}
		}
		// A swap of buf[i] (on PE a) and buf[j] (on b) gains at most
		// conn_i[b] - conn_i[a] + ext[j], and at most ext[i] + ext[j]
		// (ext: the most a move of the vertex to another PE gains), so
		// buf[i] is passed over where the first bound, with the largest
		// ext on PE b (onPE), is not positive for any b, and a pair where
		// the second is not: the same swaps (TestImprovePEsMatchesRecount).
		// On the wide instance (rgg 121k onto 4:8:64:8:6, seed 1) the
		// pairs looked at fell from 10.9M to 5.0M (25k passes over sets
		// of ~20 vertices).
		ext := sc.ext[:0]
		for i := range s {
			ext = append(ext, extOf(i))
		}
		onPE := sc.onPE[:0]
		for range np {
			onPE = append(onPE, math.MinInt64) // no vertex
		}
		sc.ext, sc.onPE = ext, onPE
		fillOnPE := func() {
			for c := range onPE {
				onPE[c] = math.MinInt64
			}
			for j, v := range buf {
				c := f.child[v]
				onPE[c] = max(onPE[c], ext[j])
			}
		}
		fillOnPE()
		// reext updates ext for buf[i] and its neighbours, whose rows a
		// move of buf[i] changed.
		reext := func(i int) {
			ext[i] = extOf(i)
			for e := first[i]; e < first[i+1]; e++ {
				ext[nbr[e]] = extOf(int(nbr[e]))
			}
		}
		for i, u := range buf {
			a, ru := f.child[u], conn[i*np:(i+1)*np]
			live := false
			for b, m := range onPE {
				if int32(b) != a && m != math.MinInt64 && ru[b]-ru[a] > -m {
					live = true
					break
				}
			}
			if !live {
				continue
			}
			for j := i + 1; j < s; j++ {
				if ext[i]+ext[j] <= 0 {
					continue
				}
				v := buf[j]
				a, b := f.child[u], f.child[v]
				if a == b || g.VW[u] != g.VW[v] {
					continue
				}
				// The edges between them stay cut, so they only lower
				// the gain: counted once the rest gains.
				rv := conn[j*np : (j+1)*np]
				if gain := ru[b] - ru[a] + rv[a] - rv[b]; gain > 0 && gain-2*w(i, j) > 0 {
					move(i, b)
					move(j, a)
					reext(i)
					reext(j)
					fillOnPE()
					improved = true
				}
			}
		}
		if !improved {
			break
		}
	}
	// The PEs' sets in PE order again (moves changed their sizes).
	pos := append(sc.pos[:0], make([]int, np)...)
	sc.pos = pos
	for _, v := range buf {
		pos[f.child[v]]++
	}
	lo = 0
	for i, c := range pos {
		pos[i] = lo
		lo += c
		ends[i] = lo
	}
	set := append(sc.set[:0], buf...)
	sc.set = set
	for _, v := range set {
		c := f.child[v]
		buf[pos[c]] = v
		pos[c]++
	}
}

// improvePasses bounds improvePEs' passes (on the wide instances of
// DEVELOPERS.md they stop after 2-3).
const improvePasses = 4

// growPEs maps g, a subgraph on grp, a group of single PEs, by greedy
// growing (FillGroups' filler) and improvePEs, with the mapping's PE
// capacity. On wide machines this replaces the partitioner on the splits
// into PEs (rgg 121k onto 4:8:64:8:6: 16,290 of them, 10% of the CPU
// time; now 1%), at the same cut: recursive bisection with label
// propagation left 257,673 edges between PEs of a socket, this 257,656.
func (m *mapper) growPEs(g *graph.Graph, global []int32, grp topology.Group, pe []int32) {
	n := g.N()
	f := ownFiller(g, m.top, nil, m.lmax)
	defer putFiller(f)
	set := make([]int32, n)
	for i := range set {
		set[i] = int32(i)
	}
	// Every vertex is in group 0; stamp 1 marks the set (marks start at 0).
	f.split(set, 0, grp, 1)
	for i, v := range global {
		pe[v] = f.pe[i]
	}
}

// growChildrenPEs maps g, a subgraph on grp split by part into grp's
// children, groups of single PEs, as rec maps each child's subgraph (one
// unit vertex per PE in order, else growPEs), on g itself: the filler
// reads a child's vertices by their part, so no subgraph is extracted and
// one filler serves every child. On wide machines these are the splits
// into PEs below every socket split (rgg 121k onto 4:8:64:8:6: 16,000 of
// them, each with a subgraph and a filler of its own before). The same
// mapping as through rec.
func (m *mapper) growChildrenPEs(g *graph.Graph, global []int32, grp topology.Group, part []int32, pe []int32) {
	n := g.N()
	children := m.top.Children(grp)
	var pes []topology.Group // the children's PEs, one child at a time
	first := make([]int32, len(children)+1)
	for _, c := range part {
		first[c+1]++
	}
	for c := range children {
		first[c+1] += first[c]
	}
	members := make([]int32, n) // each child's vertices in increasing ids
	fill := append([]int32(nil), first[:len(children)]...)
	for v, c := range part {
		members[fill[c]] = int32(v)
		fill[c]++
	}
	f := ownFiller(g, m.top, part, m.lmax)
	defer putFiller(f)
	for c, child := range children {
		set := members[first[c]:first[c+1]]
		pes = m.top.AppendChildren(pes[:0], child)
		if oneEachOf(g, set, len(pes)) {
			for i, v := range set {
				f.pe[v] = int32(pes[i].Lo)
			}
			continue
		}
		// Stamps of child c start above every earlier child's; 0 is
		// every mark at the start.
		f.split(set, int32(c), child, int64(c+1)<<32)
	}
	for i, v := range global {
		pe[v] = f.pe[i]
	}
}

// oneEachOf reports whether set holds exactly k vertices of g of weight 1
// (oneEach of set's subgraph).
func oneEachOf(g *graph.Graph, set []int32, k int) bool {
	if len(set) != k {
		return false
	}
	for _, v := range set {
		if g.VW[v] != 1 {
			return false
		}
	}
	return true
}
