package distmap

import (
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// Graph is one process's part of a distributed graph: the vertices
// VtxDist[rank] <= global id < VtxDist[rank+1] with all their edges. Local
// vertices have local ids 0..N-1; the other endpoints of their edges are
// ghosts with local ids N.. (in the order of their global ids, and so
// grouped by owner). Every undirected edge is stored by both endpoints'
// owners, with the same weight. The weight of stored edge e is W(e).
// New and the readers check a Graph once, when they build it: its fields
// are read-only after that (Map trusts them; a graph mapped whole is
// gathered as it stands, without a second check).
type Graph struct {
	VtxDist []int64 // size+1 offsets, the same on every rank
	XAdj    []int64 // N+1 offsets into Adj and the edge weights
	Adj     []int32 // local ids, ghosts included
	VW      []int64 // weights of the local vertices
	Ghost   []int64 // global id of ghost N+i

	// ew holds the edge weights, nil when every one is 1: most input
	// graphs (every binary one, METIS files without weights, generated
	// ones) have none, and 8 bytes a stored edge were the largest array
	// of a rank's part, larger than Adj (the one-process graph stores
	// none either).
	ew []int64

	c          mpi.Comm
	size, rank int
	base       int64 // 1: errors number vertices as a METIS file does
	// The ghost exchange: rank r gets the values of the local vertices
	// send[sendOff[r]:sendOff[r+1]] and fills the ghosts
	// ghostOff[r]..ghostOff[r+1] (its ghosts owned here, in order).
	send     []int32
	sendOff  []int64
	ghostOff []int64
}

// N is the number of local vertices.
func (g *Graph) N() int { return len(g.VW) }

// First is the global id of local vertex 0.
func (g *Graph) First() int64 { return g.VtxDist[g.rank] }

// GlobalN is the number of vertices of the whole graph.
func (g *Graph) GlobalN() int64 { return g.VtxDist[g.size] }

// W returns the weight of stored edge e.
func (g *Graph) W(e int64) int64 {
	if g.ew == nil {
		return 1
	}
	return g.ew[e]
}

// weights returns the weights of the stored edges lo..hi-1, nil when
// every weight is 1.
func (g *Graph) weights(lo, hi int64) []int64 {
	if g.ew == nil {
		return nil
	}
	return g.ew[lo:hi]
}

// unitOrNil returns nil when every weight of w is 1 (the Graph's form of
// unit weights), otherwise w without spare capacity: the collector
// counts a capacity as live and lets the heap grow by as much again
// (a coarse graph's weights are appended to a growing slice).
func unitOrNil(w []int64) []int64 {
	for _, x := range w {
		if x != 1 {
			return exact(w)
		}
	}
	return nil
}

// exact returns s, copied into a slice of its length when it has spare
// capacity.
func exact[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// global returns the global id of local or ghost vertex v.
func (g *Graph) global(v int32) int64 {
	if int(v) < g.N() {
		return g.First() + int64(v)
	}
	return g.Ghost[int(v)-g.N()]
}

// owner returns the rank that owns global vertex x under vtxdist (the
// last one when ranks without vertices share the offset).
func owner(vtxdist []int64, x int64) int {
	return sort.Search(len(vtxdist)-1, func(r int) bool { return vtxdist[r+1] > x })
}

// build makes the local part from CSR arrays with global neighbour ids
// and sets up the ghost exchange (collective over c); w nil means every
// weight is 1, and weights that are all 1 are dropped. Every rank returns
// the same error.
func build(c mpi.Comm, vtxdist, xadj, adj, w, vw []int64) (*Graph, error) {
	return buildPieces(c, vtxdist, xadj, [][]int64{adj}, w, vw)
}

// buildPieces is build with the neighbour ids in pieces, one after the
// other (contract's chunks: copied into one array first, the ids took a
// fresh array as large as the coarse graph's arcs on every level).
func buildPieces(c mpi.Comm, vtxdist, xadj []int64, adj [][]int64, w, vw []int64) (*Graph, error) {
	_, _, _, size, rank := mpi.Inspect(c)
	g := &Graph{VtxDist: vtxdist, XAdj: xadj, ew: unitOrNil(w), VW: vw, c: c, size: size, rank: rank}
	lo, hi := vtxdist[rank], vtxdist[rank+1]
	var bad error
	arcs := 0
	for _, p := range adj {
		arcs += len(p)
	}
	n := int64(len(vw))
	g.Adj = make([]int32, arcs)
	var far int64
	for _, p := range adj {
		for _, x := range p {
			if x < lo || x >= hi {
				far++
			}
		}
	}
	var index func(x int64) int64
	if total := vtxdist[size]; (total+63)/64 <= far {
		g.Ghost, index = denseGhosts(adj, lo, hi, total)
	} else {
		g.Ghost, index = hashedGhosts(adj, lo, hi)
	}
	// Local ids: the rank's own less lo, ghosts n plus their index.
	e := 0
	for _, p := range adj {
		for _, x := range p {
			if x >= lo && x < hi {
				g.Adj[e] = int32(x - lo)
			} else {
				g.Adj[e] = int32(n + index(x))
			}
			e++
		}
	}
	if n+int64(len(g.Ghost)) > 1<<31-1 {
		bad = fmt.Errorf("rank %d: %d local vertices and %d ghosts pass the 32-bit local ids", rank, n, len(g.Ghost))
	}
	if err := agree(c, bad); err != nil {
		return nil, err
	}
	// Ask each owner for its ghosts: the requests become its send lists.
	g.ghostOff = make([]int64, size+1)
	for r := 0; r < size; r++ {
		g.ghostOff[r+1] = int64(sort.Search(len(g.Ghost), func(i int) bool { return g.Ghost[i] >= vtxdist[r+1] }))
	}
	req, reqOff, err := mpi.Alltoallv(c, g.Ghost, g.ghostOff, size)
	if err != nil {
		return nil, err
	}
	g.sendOff = reqOff
	g.send = make([]int32, len(req))
	for i, x := range req {
		g.send[i] = int32(x - lo)
	}
	return g, nil
}

// hashedGhosts returns the distinct ids of adj's pieces outside [lo, hi)
// in ascending order, and the index there of each: the ghosts by a hash
// table, then sorted, and every entry numbered by a look-up there.
// Sorting every ghost entry and a binary search for each were 0.18 s of
// rank 1's 0.32 s in buildPieces on dbic1 at P=2 (profile; 1.04M
// edges, far fewer distinct ghosts).
func hashedGhosts(adj [][]int64, lo, hi int64) ([]int64, func(x int64) int64) {
	var t idTable[int32]
	t.init(32)
	for _, p := range adj {
		for _, x := range p {
			if x < lo || x >= hi {
				t.at(x)
			}
		}
	}
	// Sized exactly, as check's buffers: grown by append, the ghost
	// list took 1.3 s of rank 1's 3.3 s in build on R-MAT 2^21 at P=2.
	ghost := make([]int64, 0, t.n)
	for _, k := range t.key {
		if k >= 0 {
			ghost = append(ghost, k)
		}
	}
	slices.Sort(ghost)
	for i, x := range ghost {
		*t.at(x) = int32(i)
	}
	return ghost, func(x int64) int64 { return int64(t.get(x)) }
}

// denseGhosts is hashedGhosts by a bitmap of all total ids, where it has
// no more words than adj has entries outside [lo, hi): its ghosts come
// out in order, and an entry's index is the ones before its bit. NE in
// its own numbering (the read, before the renumbering) puts 32% of its
// entries across the ranks at P=2: the hash table and the sort were
// 0.06 s of each rank's 0.27 s read.
func denseGhosts(adj [][]int64, lo, hi, total int64) ([]int64, func(x int64) int64) {
	set := make([]uint64, (total+63)/64)
	for _, p := range adj {
		for _, x := range p {
			if x < lo || x >= hi {
				set[x>>6] |= 1 << (x & 63)
			}
		}
	}
	before := make([]int64, len(set))
	var ghosts int64
	for i, b := range set {
		before[i] = ghosts
		ghosts += int64(bits.OnesCount64(b))
	}
	ghost := make([]int64, 0, ghosts)
	for i, b := range set {
		for ; b != 0; b &= b - 1 {
			ghost = append(ghost, int64(i)*64+int64(bits.TrailingZeros64(b)))
		}
	}
	return ghost, func(x int64) int64 {
		return before[x>>6] + int64(bits.OnesCount64(set[x>>6]&(1<<(x&63)-1)))
	}
}

// exchange returns the values of the ghosts given val of the local
// vertices on every rank (collective).
func exchange[T mpi.Number](g *Graph, val []T) ([]T, error) {
	buf := make([]T, len(g.send))
	for i, v := range g.send {
		buf[i] = val[v]
	}
	out, _, err := mpi.Alltoallv(g.c, buf, g.sendOff, g.size)
	return out, err
}

// agree returns nil on every rank when err is nil on every rank, and
// otherwise the error of the lowest failing rank on every rank, with its
// kind (KindOf).
func agree(c mpi.Comm, err error) error {
	_, _, _, size, rank := mpi.Inspect(c)
	flag := int64(size)
	if err != nil {
		flag = int64(rank)
	}
	who, _, e := mpi.MinLoc(c, flag)
	if e != nil {
		return e
	}
	if who == int64(size) {
		return nil
	}
	var msg []byte
	hdr := []int64{0, 0} // length, kind
	if int(who) == rank {
		msg = []byte(err.Error())
		hdr = []int64{int64(len(msg)), int64(KindOf(err))}
	}
	if e := mpi.BcastOf(c, hdr, int(who)); e != nil {
		return e
	}
	if int(who) != rank {
		msg = make([]byte, hdr[0])
	}
	if e := mpi.Bcast(c, msg, int(who)); e != nil {
		return e
	}
	return &Error{Kind: Kind(hdr[1]), Msg: string(msg)}
}

// sumAll returns the sums over all ranks of v.
func sumAll(c mpi.Comm, v ...int64) ([]int64, error) {
	err := mpi.Allreduce(c, v, mpi.Sum)
	return v, err
}

// abortOnPanic ends the job on a panic (r, from recover): the other ranks
// would wait for this one in a collective forever, and none may take
// another path through them, so an exported function of this package
// that panics cannot return an error instead.
func abortOnPanic(c mpi.Comm, r any) {
	if r == nil {
		return
	}
	_, _, _, _, rank := mpi.Inspect(c)
	fmt.Fprintf(os.Stderr, "gpumap: internal error on rank %d: %v\n%s", rank, r, debug.Stack())
	mpi.Abort(c, 70)
}

// collect runs the garbage collector at the end of a phase. The
// collector lets the heap grow to twice what it found live at its last
// run before it runs again, and a phase's garbage (the reader's blocks
// and parsed ids, a hierarchy's temporaries) found live then let the
// next phase's peak grow by as much; one collection of the rank's few
// live arrays costs milliseconds.
func collect() { runtime.GC() }

// weight1 returns w[i], or 1 when w is nil (every weight 1, as weights
// returns them).
func weight1(w []int64, i int) int64 {
	if w == nil {
		return 1
	}
	return w[i]
}

// edgeWeight sums the weights of the stored edges (check has bounded
// them).
func edgeWeight(g *Graph) int64 {
	if g.ew == nil {
		return int64(len(g.Adj))
	}
	var s int64
	for _, x := range g.ew {
		s += x
	}
	return s
}

// edgeWeights returns the weight of every stored edge in a new slice
// (the small coarsest graph's, for gpumap.Map).
func (g *Graph) edgeWeights() []int64 {
	w := make([]int64, len(g.Adj))
	for e := range w {
		w[e] = g.W(int64(e))
	}
	return w
}
