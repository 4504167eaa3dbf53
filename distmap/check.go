package distmap

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"slices"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// check validates a user's distributed graph (collective; every rank
// returns the same error): no vertex lists a neighbour twice, every edge
// is listed by both endpoints' owners with the same weight, and the
// vertex and edge weights sum within gpumap's limits. Each rank sorts its
// vertices' neighbours by global id and sends every edge to the owner
// of its other endpoint, which looks it up there.
func check(g *Graph) error {
	n := g.N()
	key := func(e int64) int64 { return g.global(g.Adj[e]) }
	var bad error
	// One set of buffers for all vertices: garbage of a few words a
	// vertex let the heap grow to twice the reader's before a collection.
	type rev struct{ to, from, w int64 }
	var idx []int64
	var adj []int32
	var w []int64
	for v := range n {
		lo, hi := g.XAdj[v], g.XAdj[v+1]
		// Most files list neighbours in ascending order (METIS writers,
		// generators, gpumap's own): then there is nothing to sort.
		sorted := true
		for e := lo + 1; e < hi && sorted; e++ {
			sorted = key(e-1) <= key(e)
		}
		switch {
		case sorted:
		case hi-lo <= shortList:
			sortShort(g, lo, hi)
		default:
			idx = idx[:0]
			for e := lo; e < hi; e++ {
				idx = append(idx, e)
			}
			slices.SortFunc(idx, func(a, b int64) int { return cmp64(key(a), key(b)) })
			adj, w = slices.Grow(adj[:0], len(idx))[:len(idx)], slices.Grow(w[:0], len(idx))[:len(idx)]
			for i, e := range idx {
				adj[i], w[i] = g.Adj[e], g.W(e)
			}
			copy(g.Adj[lo:hi], adj)
			copy(g.weights(lo, hi), w)
		}
		for e := lo + 1; e < hi && bad == nil; e++ {
			if g.Adj[e] == g.Adj[e-1] {
				bad = fmt.Errorf("vertex %d: duplicate edge to neighbour %d", g.First()+int64(v)+g.base, key(e)+g.base)
			}
		}
	}
	if err := agree(g.c, kindError(KindGraph, bad)); err != nil {
		return err
	}
	// find returns the weight of v's edge to global vertex u, or -1.
	find := func(v int, u int64) int64 {
		lo, end := g.XAdj[v], g.XAdj[v+1]
		for hi := end; lo < hi; {
			if mid := lo + (hi-lo)/2; key(mid) < u {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < end && key(lo) == u {
			return g.W(lo)
		}
		return -1
	}
	// Edges with one end here are checked here, the others by the owner.
	// They are sent in the order of their other end, then of this end (a
	// stable sort by the ghost's global id): ghosts are numbered in
	// global order, so a count per ghost places each edge, and the
	// owners' ranges are g.ghostOff's. Sorting (to, from, w) triples by
	// to instead was 0.09-0.14 s, and their append 0.1 s, of each rank's
	// 0.53-0.65 s in check on dbic1 at P=2 (226k vertices, 1.04M edges;
	// profile). The buffers are sized exactly: grown by append, they
	// took 5.7 of rank 1's 12.1 s of CPU in check on R-MAT 2^21 at P=2.
	at := make([]int64, len(g.Ghost)+1)
	for _, u := range g.Adj {
		if int(u) >= n {
			at[int(u)-n+1]++
		}
	}
	for i := range g.Ghost {
		at[i+1] += at[i]
	}
	off := make([]int64, g.size+1)
	for r := range off {
		off[r] = 3 * at[g.ghostOff[r]]
	}
	out := make([]int64, 3*at[len(g.Ghost)])
	for v := range n {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := int(g.Adj[e]); u >= n {
				i := 3 * at[u-n]
				at[u-n]++
				out[i], out[i+1], out[i+2] = g.Ghost[u-n], g.First()+int64(v), g.W(e)
			}
		}
	}
	// The local edges are checked by a sequential pass (localSymmetric);
	// only where it finds a discrepancy is every edge looked up, so that
	// the error is the first one in the order of the edges.
	cursor := make([]int64, n)
	if lookupOnly || !localSymmetric(g, cursor) {
		for v := 0; v < n && bad == nil; v++ {
			for e := g.XAdj[v]; e < g.XAdj[v+1] && bad == nil; e++ {
				if int(g.Adj[e]) < n {
					x := rev{key(e), g.First() + int64(v), g.W(e)}
					bad = symmetric(find(int(x.to-g.First()), x.from), x, g.base)
				}
			}
		}
	}
	got, _, err := mpi.Alltoallv(g.c, out, off, g.size)
	if err != nil {
		return err
	}
	if bad == nil && (lookupOnly || !receivedListed(g, got, cursor)) {
		for i := 0; i+2 < len(got) && bad == nil; i += 3 {
			x := rev{got[i], got[i+1], got[i+2]}
			bad = symmetric(find(int(x.to-g.First()), x.from), x, g.base)
		}
	}
	if err := agree(g.c, kindError(KindGraph, bad)); err != nil {
		return err
	}
	// The weight sums, saturated per rank and summed exactly: floats let
	// 2^60 + (2^60+1) through as 2^61 (issue 24). Each rank's saturated
	// sum (below 2^63) is split at bit 32, and the halves summed over the
	// ranks (well within int64 for fewer than 2^31 ranks).
	var vs, es int64
	for _, x := range g.VW {
		vs = satAdd(vs, x, graph.MaxTotalVertexWeight+1)
	}
	if g.ew == nil {
		es = min(int64(len(g.Adj)), 2*graph.MaxTotalEdgeWeight+2)
	}
	for _, x := range g.ew {
		es = satAdd(es, x, 2*graph.MaxTotalEdgeWeight+2)
	}
	sums := []int64{vs >> 32, vs & (1<<32 - 1), es >> 32, es & (1<<32 - 1)}
	if err := mpi.Allreduce(g.c, sums, mpi.Sum); err != nil {
		return err
	}
	// The last step of every constructor: what read or built the graph
	// is garbage now.
	collect()
	switch {
	case above(sums[0], sums[1], graph.MaxTotalVertexWeight):
		return &Error{KindGraph, fmt.Sprintf("the vertex weights sum to more than %d (2^61), the limit of c(V)", int64(graph.MaxTotalVertexWeight))}
	case above(sums[2], sums[3], 2*graph.MaxTotalEdgeWeight):
		// Every edge is counted twice.
		return &Error{KindGraph, fmt.Sprintf("the edge weights sum to more than %d (2^61), the limit of the total edge weight", int64(graph.MaxTotalEdgeWeight))}
	}
	return nil
}

// lookupOnly makes check look every edge up, as it did before the
// sequential passes (tests compare the two).
var lookupOnly bool

// localSymmetric reports whether g's local edges are symmetric with
// equal weights, in one sequential pass over g's sorted, duplicate-free
// lists: visiting the sources v in increasing order, the edges that
// point to a local vertex u arrive in the order of v, which is the order
// of u's local neighbours (local ids follow global ids), so each edge
// must be the one at u's cursor. Every local edge is then the reverse of
// a distinct local edge, so of all of them: no cursor stops short.
// Looking each edge up by a binary search instead (find) was 34% of
// rank 1's CPU on R-MAT 2^18 at P=2 (profile). cursor has g.N() entries;
// its contents are overwritten. False says only that some edge differs:
// the lookups then name the first.
func localSymmetric(g *Graph, cursor []int64) bool {
	n := g.N()
	adj, xadj := g.Adj, g.XAdj
	copy(cursor, xadj[:n])
	// next returns the position of u's next local neighbour from c on.
	next := func(u int, c int64) int64 {
		for end := xadj[u+1]; c < end && int(adj[c]) >= n; c++ {
		}
		return c
	}
	for v := range n {
		for e := xadj[v]; e < xadj[v+1]; e++ {
			u := int(adj[e])
			if u >= n {
				continue
			}
			c := next(u, cursor[u])
			if c == xadj[u+1] || int(adj[c]) != v || (g.ew != nil && g.ew[c] != g.ew[e]) {
				return false
			}
			cursor[u] = c + 1
		}
	}
	return true
}

// receivedListed reports whether every edge of got, the (to, from, w)
// triples that the other ranks sent to check, is listed at its local
// end with weight w, in one sequential pass: the triples from each rank
// come in the order of to, then of from, and the ranks in the order of
// their vertices, so the froms of each local vertex arrive in increasing
// order, as its ghosts are listed. cursor has g.N() entries; its
// contents are overwritten. False says only that some edge may be
// missing: the lookups then name the first.
func receivedListed(g *Graph, got []int64, cursor []int64) bool {
	n := g.N()
	adj, xadj := g.Adj, g.XAdj
	copy(cursor, xadj[:n])
	for i := 0; i+2 < len(got); i += 3 {
		u := got[i] - g.First()
		if u < 0 || u >= int64(n) {
			return false
		}
		c, end := cursor[u], xadj[u+1]
		for ; c < end && int(adj[c]) < n; c++ {
		}
		if c == end || g.Ghost[int(adj[c])-n] != got[i+1] || g.W(c) != got[i+2] {
			return false
		}
		cursor[u] = c + 1
	}
	return true
}

// shortList is the longest neighbour list that check sorts by insertion
// (sortShort): road networks' lists of 2-4 neighbours, sorted through an
// index and a comparison function, were 10% of the reader's CPU on NE.
const shortList = 16

// sortShort sorts the neighbours of g's entries lo..hi-1 and their
// weights by global id, by insertion.
func sortShort(g *Graph, lo, hi int64) {
	w := g.weights(lo, hi)
	adj := g.Adj[lo:hi]
	var key [shortList]int64
	for i, u := range adj {
		key[i] = g.global(u)
	}
	for i := 1; i < len(adj); i++ {
		k, u := key[i], adj[i]
		var x int64
		if w != nil {
			x = w[i]
		}
		j := i
		for ; j > 0 && key[j-1] > k; j-- {
			key[j], adj[j] = key[j-1], adj[j-1]
			if w != nil {
				w[j] = w[j-1]
			}
		}
		key[j], adj[j] = k, u
		if w != nil {
			w[j] = x
		}
	}
}

// above reports whether hi*2^32 + lo > limit, exactly (hi, lo >= 0).
func above(hi, lo, limit int64) bool {
	h, l := bits.Mul64(uint64(hi), 1<<32)
	l, carry := bits.Add64(l, uint64(lo), 0)
	return h+carry > 0 || l > uint64(limit)
}

// symmetric checks the reverse of the edge from x.from to x.to, whose
// weight at x.to is w (-1: not listed). Vertices are named from base: 1
// for a file, as its lines do, 0 for arrays.
func symmetric(w int64, x struct{ to, from, w int64 }, base int64) error {
	switch {
	case w < 0:
		return fmt.Errorf("asymmetric edge: vertex %d lists neighbour %d, but vertex %d does not list %d",
			x.from+base, x.to+base, x.to+base, x.from+base)
	case w != x.w:
		return fmt.Errorf("asymmetric edge weight: vertex %d gives edge to %d weight %d, but vertex %d gives it weight %d",
			x.from+base, x.to+base, x.w, x.to+base, w)
	}
	return nil
}

// satAdd returns min(a+b, limit) for 0 <= a <= limit, 0 <= b, limit < 2^62.
func satAdd(a, b, limit int64) int64 {
	if b >= limit-a {
		return limit
	}
	return a + b
}

// sameAsRoot compares v, of the same length on every rank, with rank 0's
// (one broadcast); the first entry that differs on the lowest rank where
// one does is described by say, and that error (KindInconsistent) is
// returned on every rank.
func sameAsRoot(c mpi.Comm, v []int64, say func(i int, mine, root int64) string) error {
	root := append([]int64(nil), v...)
	if err := mpi.BcastOf(c, root, 0); err != nil {
		return err
	}
	var bad error
	for i := range v {
		if v[i] != root[i] {
			bad = &Error{KindInconsistent, say(i, v[i], root[i])}
			break
		}
	}
	return agree(c, bad)
}

// The fields of an options fingerprint (optionsPrint): what must be the
// same on every rank. Threads may differ: they change the time only.
const (
	fpEps = iota
	fpSeed
	fpPreset
	fpCoarsest
	fpTrace   // 1 where Options.Trace is set, +2 where Options.Phases is: tracing adds collectives
	fpTake    // 1 where Options.TakeCPUs is set: a lone pipeline is lent rank 1's CPUs, or rank 1 maps seed+1 (mapWhole)
	fpLevels  // -1: no topology
	fpK       // PEs
	fpTree    // a hash of an irregular machine's labels, 0 for a regular one
	fpArity   // topology.MaxLevels entries, 0 past the levels (trees: 0)
	fpDist    = fpArity + topology.MaxLevels
	fpEntries = fpDist + topology.MaxLevels
)

// optionsPrint encodes opt and top in fpEntries numbers: equal numbers,
// equal options and machines.
func optionsPrint(top *topology.Topology, opt Options) []int64 {
	v := make([]int64, fpEntries)
	v[fpEps], v[fpSeed], v[fpPreset], v[fpCoarsest] = int64(math.Float64bits(opt.Eps)), int64(opt.Seed), int64(opt.Preset), opt.Coarsest
	if opt.Eps == 0 {
		v[fpEps] = 0 // -0
	}
	if opt.Trace != nil {
		v[fpTrace] = 1
	}
	if opt.Phases != nil {
		v[fpTrace] += 2
	}
	if opt.TakeCPUs {
		v[fpTake] = 1
	}
	if top == nil {
		v[fpLevels] = -1
		return v
	}
	v[fpLevels], v[fpK] = int64(top.Levels()), int64(top.K())
	copy(v[fpDist:], top.Distances())
	if a, ok := top.Arity(); ok {
		for i, x := range a {
			v[fpArity+i] = int64(x)
		}
		return v
	}
	h := fnv.New64a()
	var b [8]byte
	for _, x := range top.Labels() {
		for i := range b {
			b[i] = byte(x >> (8 * i))
		}
		h.Write(b[:])
	}
	v[fpTree] = int64(h.Sum64() | 1)
	return v
}

func onOff(x int64) string {
	if x != 0 {
		return "on"
	}
	return "off"
}

// tracing describes the fingerprint's fpTrace.
func tracing(x int64) string {
	return fmt.Sprintf("J %s and phases %s", onOff(x&1), onOff(x&2))
}

// machineOf describes the machine of a fingerprint.
func machineOf(v []int64) string {
	switch {
	case v[fpLevels] < 0:
		return "none"
	case v[fpTree] != 0:
		return fmt.Sprintf("tree(k=%d, L=%d)", v[fpK], v[fpLevels])
	}
	return topology.FormatInts(v[fpArity : fpArity+v[fpLevels]])
}

// MaxPEs is the largest machine Map maps onto. Every rank keeps the load
// of every PE and the refinement sums them over the ranks each round: at
// 2^22 PEs a 4-vertex graph took 10 s and 160 MB per rank, at 2^31 it
// did not finish (16 GB per table). gpumap.Map maps small graphs onto
// larger machines.
const MaxPEs = 1 << 24

// sameOptions fails on every rank (KindInconsistent) when the ranks pass
// different options or machines: rank 0's are broadcast, and the message
// names the lowest rank that differs and the first field, as
// gpumap_reorder's agreement does. Unchecked, ranks would map onto
// different machines and exchange PEs that do not exist elsewhere. A
// machine of more than MaxPEs PEs is refused (KindOptions) on every rank.
func sameOptions(c mpi.Comm, r int, top *topology.Topology, opt Options) error {
	var bad error
	if top == nil || top.K() < 1 {
		// A zero Topology has no PEs: the mapping indexed past them.
		bad = &Error{KindOptions, fmt.Sprintf("rank %d: no topology (nil, or not built by topology.Parse)", r)}
	}
	if err := agree(c, bad); err != nil {
		return err
	}
	mine := optionsPrint(top, opt)
	root := append([]int64(nil), mine...)
	if err := mpi.BcastOf(c, root, 0); err != nil {
		return err
	}
	var msg string
	switch {
	case slices.Equal(mine, root):
	case mine[fpEps] != root[fpEps]:
		msg = fmt.Sprintf("rank %d: eps %v differs from rank 0's %v", r, opt.Eps, math.Float64frombits(uint64(root[fpEps])))
	case mine[fpSeed] != root[fpSeed]:
		msg = fmt.Sprintf("rank %d: seed %d differs from rank 0's %d", r, opt.Seed, uint64(root[fpSeed]))
	case mine[fpPreset] != root[fpPreset]:
		msg = fmt.Sprintf("rank %d: preset %s differs from rank 0's %s", r, opt.Preset, gpumap.Preset(root[fpPreset]))
	case mine[fpCoarsest] != root[fpCoarsest]:
		msg = fmt.Sprintf("rank %d: coarsest size %d differs from rank 0's %d", r, opt.Coarsest, root[fpCoarsest])
	case mine[fpTrace] != root[fpTrace]:
		msg = fmt.Sprintf("rank %d: tracing %s, rank 0's %s", r, tracing(mine[fpTrace]), tracing(root[fpTrace]))
	case mine[fpTake] != root[fpTake]:
		msg = fmt.Sprintf("rank %d: taking CPUs %s, rank 0's %s", r, onOff(mine[fpTake]), onOff(root[fpTake]))
	case machineOf(mine) != machineOf(root) || mine[fpTree] != root[fpTree]:
		msg = fmt.Sprintf("rank %d: hierarchy %s differs from rank 0's %s", r, machineOf(mine), machineOf(root))
	default:
		msg = fmt.Sprintf("rank %d: distances %s differ from rank 0's %s", r,
			topology.FormatInts(mine[fpDist:fpDist+mine[fpLevels]]), topology.FormatInts(root[fpDist:fpDist+root[fpLevels]]))
	}
	if msg != "" {
		bad = &Error{KindInconsistent, msg + ": every rank must pass the same options"}
	}
	if err := agree(c, bad); err != nil {
		return err
	}
	// The same machine everywhere now: the same answer on every rank.
	if top.K() > MaxPEs {
		return &Error{KindOptions, fmt.Sprintf("the machine has %d PEs; the distributed mapper keeps every PE's load on every rank and maps onto at most %d (gpumap map maps small graphs onto larger machines)", top.K(), MaxPEs)}
	}
	return nil
}
