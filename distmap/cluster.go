package distmap

import (
	"math/rand/v2"
	"slices"
)

// rating sums edge weights by label, for one vertex at a time: the
// labels in [lo, lo+len(dense)) (a rank's own clusters, the k PEs) in an
// array, the others in a small open-addressing table, both cleared per
// vertex in time of its entries. keys and vals list the labels in the
// order first seen. Hashing every label took 70% of the clustering's
// time (rgg 2^20 at P=2). A vertex of at most smallDegree entries is
// rated by a search of keys in order, with neither the array nor the
// table (small): road networks' 2-3 neighbours.
type rating struct {
	lo    int64
	dense []int32 // 1 + index in keys of label lo+i; 0: not seen
	hkey  []int64 // -1: empty
	hidx  []int32 // index in keys
	hused []int32
	keys  []int64
	vals  []int64
	small bool // this vertex's labels are in keys alone
}

// smallDegree is the most entries that a rating keeps in keys alone.
const smallDegree = 8

// setRange makes the labels lo..lo+n-1 direct (r is empty).
func (r *rating) setRange(lo int64, n int) {
	r.lo = lo
	if cap(r.dense) < n {
		r.dense = make([]int32, n)
	}
	r.dense = r.dense[:n]
	clear(r.dense)
}

// reset empties r for a vertex of at most degree entries.
func (r *rating) reset(degree int) {
	if !r.small {
		for _, k := range r.keys {
			if i := k - r.lo; uint64(i) < uint64(len(r.dense)) {
				r.dense[i] = 0
			}
		}
		for _, i := range r.hused {
			r.hkey[i] = -1
		}
	}
	r.hused, r.keys, r.vals = r.hused[:0], r.keys[:0], r.vals[:0]
	if r.small = degree <= smallDegree; r.small {
		return
	}
	want := 16
	for want < 2*degree {
		want *= 2
	}
	if len(r.hkey) < want {
		r.hkey, r.hidx = make([]int64, want), make([]int32, want)
		for i := range r.hkey {
			r.hkey[i] = -1
		}
	}
}

func (r *rating) add(k, w int64) {
	if r.small {
		for j, x := range r.keys {
			if x == k {
				r.vals[j] += w
				return
			}
		}
		r.keys, r.vals = append(r.keys, k), append(r.vals, w)
		return
	}
	if i := k - r.lo; uint64(i) < uint64(len(r.dense)) {
		if j := r.dense[i]; j > 0 {
			r.vals[j-1] += w
			return
		}
		r.keys, r.vals = append(r.keys, k), append(r.vals, w)
		r.dense[i] = int32(len(r.keys))
		return
	}
	mask := len(r.hkey) - 1
	for i := int(uint64(k)*0x9e3779b97f4a7c15>>33) & mask; ; i = (i + 1) & mask {
		switch r.hkey[i] {
		case k:
			r.vals[r.hidx[i]] += w
			return
		case -1:
			r.hkey[i], r.hidx[i] = k, int32(len(r.keys))
			r.hused = append(r.hused, int32(i))
			r.keys, r.vals = append(r.keys, k), append(r.vals, w)
			return
		}
	}
}

// bestCluster returns the label that v joins: the one its edges weigh
// most towards among those whose cluster can take v's weight vw (at most
// limit in all), its own label cur unless another is strictly heavier;
// ties go to the lighter cluster, then to the smaller label XOR salt (a
// per-round random value: smaller labels alone would grow clusters in one
// direction of a numbered mesh); the choice depends on the input and the
// seed only. weight(l) is the cluster weight as this rank knows it.
func bestCluster(r *rating, adj []int32, w []int64, label []int64, cur, vw, limit int64, salt uint64, weight func(int64) int64) int64 {
	r.reset(len(adj))
	for i, u := range adj {
		r.add(label[u], weight1(w, i))
	}
	best, bestW, bestC := cur, int64(-1), int64(0)
	for i, l := range r.keys {
		if l == cur {
			bestW = r.vals[i]
		}
	}
	for i, l := range r.keys {
		x := r.vals[i]
		if l == cur {
			continue
		}
		c := weight(l)
		if c+vw > limit {
			continue
		}
		if x > bestW || x == bestW && best != cur && (c < bestC || c == bestC && uint64(l)^salt < uint64(best)^salt) {
			best, bestW, bestC = l, x, c
		}
	}
	return best
}

// clustering is size-constrained label propagation on g: every vertex
// starts in its own cluster (labelled by its global id) and joins the
// heaviest neighbouring cluster whose weight stays within limit. Each rank
// visits its vertices in a random order drawn from the seed (shuffled
// blocks of block vertices, shuffledBlocks), knows the
// weights of the clusters of its vertices and ghosts only (moves update
// them locally, as in ParHIP), and refreshes its ghosts' labels after every
// round. label holds the labels of the local vertices and the ghosts.
type clustering struct {
	g           *Graph
	limit       int64
	seed        uint64
	level, done int
	converged   bool // a round moved no vertex
	label       []int64
	// Cluster weights: the labels of this rank's range in an array, the
	// others (from ghosts) in an idTable.
	dense []int64
	far   idTable[farWeight]
	r     rating
	// share > 1: a rank may add to a cluster at most 1/share of its room
	// below limit at the start (base: the weight of the vertex that
	// names it), so that no cluster passes limit whatever the other
	// ranks add to it (skewed degrees; see Map).
	share int64
	block int // of the visiting order (shuffledBlocks)
	// within (local vertices, then ghosts; nil: none): a vertex joins
	// only clusters of neighbours on its own PE (vcycle).
	within []int32
	// The round under way: its order, the next index in it, its moves.
	perm  []int32
	adj   []int32 // bestWithin's neighbours on v's PE
	w     []int64
	next  int
	moved int64
	salt  uint64
}

// newClustering starts label propagation on g: every vertex alone
// (collective: the ghosts' weights come from their owners).
func newClustering(g *Graph, limit int64, seed uint64, level int, share, block int) (*clustering, error) {
	n := g.N()
	c := &clustering{g: g, limit: limit, seed: seed, level: level, label: make([]int64, n+len(g.Ghost)), share: int64(max(1, share)), block: block}
	for v := range n {
		c.label[v] = g.First() + int64(v)
	}
	copy(c.label[n:], g.Ghost)
	ghostVW, err := exchange(g, g.VW)
	if err != nil {
		return nil, err
	}
	c.r.setRange(g.First(), n)
	c.dense = slices.Clone(g.VW)
	c.far.init(len(g.Ghost))
	for i, l := range g.Ghost {
		*c.far.at(l) = farWeight{ghostVW[i], ghostVW[i]}
	}
	return c, nil
}

// shared is the weight of cluster l as the limit check sees it under
// share: its base plus share times what this rank's moves added.
func (c *clustering) shared(l int64) int64 {
	var w, base int64
	if i := l - c.g.First(); i >= 0 && i < int64(len(c.dense)) {
		w, base = c.dense[i], c.g.VW[i]
	} else {
		f := c.far.get(l)
		w, base = f.w, f.base
	}
	return base + c.share*(w-base)
}

func (c *clustering) weight(l int64) int64 {
	if i := l - c.g.First(); i >= 0 && i < int64(len(c.dense)) {
		return c.dense[i]
	}
	return c.far.get(l).w
}

func (c *clustering) add(l, x int64) {
	if i := l - c.g.First(); i >= 0 && i < int64(len(c.dense)) {
		c.dense[i] += x
	} else {
		c.far.at(l).w += x
	}
}

// farWeight is a cluster's weight and its base: its weight at the start
// (the ghost's vertex weight; 0 for a label first added later).
type farWeight struct{ w, base int64 }

// run continues for up to rounds more rounds; it stops early when a
// round moves no vertex on any rank (collective). A round that firstRound
// paused counts as one of them.
func (c *clustering) run(rounds int) error {
	for range rounds {
		if c.converged {
			return nil
		}
		if c.perm == nil {
			c.startRound()
		}
		c.visit(nil)
		if err := c.endRound(); err != nil {
			return err
		}
	}
	return nil
}

// firstRound runs the first round, but pauses it on every rank once each
// rank's visits show that the round will leave more than a quarter of
// its vertices as clusters, and then returns true (the round's moves so
// far kept, the rest of it to come with run). A move joins a vertex to
// another cluster, so it takes at most one cluster away: a rank whose
// vertices not moved outnumber a quarter of its vertices ends the round
// with more clusters than that whatever the rest do. Otherwise it ends
// the round as run(1) does and returns false. Either way the clusters
// are those of run, at any pause: Map's choice of the hierarchy
// (matchings where more than a quarter of the vertices stay clusters)
// costs a road network 60% of a round instead of the whole
// (collective).
func (c *clustering) firstRound() (bool, error) {
	c.startRound()
	n := int64(c.g.N())
	paused := c.visit(func(visited, moved int64) bool { return 4*(visited-moved) > n })
	all, err := sumAll(c.g.c, b2i(paused || n == 0))
	if err != nil {
		return false, err
	}
	if all[0] == int64(c.g.size) {
		return true, nil
	}
	c.visit(nil)
	return false, c.endRound()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// startRound draws the order and the salt of the next round.
func (c *clustering) startRound() {
	g := c.g
	round := c.done
	c.done++
	rng := rand.New(rand.NewPCG(c.seed, uint64(c.level)<<32|uint64(round)<<16|uint64(g.rank)))
	c.perm = shuffledBlocks(rng, g.N(), c.block)
	c.next, c.moved = 0, 0
	// The same salt on every rank: the round's first draw of a
	// stream that all ranks share.
	c.salt = rand.New(rand.NewPCG(c.seed, uint64(c.level)<<32|uint64(round)<<16|1<<15)).Uint64()
}

// visit moves the round's vertices from where it paused, until pause
// (nil: never) says so after a vertex; it returns whether it paused
// before the round's end.
func (c *clustering) visit(pause func(visited, moved int64) bool) bool {
	g, label := c.g, c.label
	for c.next < len(c.perm) {
		v := c.perm[c.next]
		c.next++
		adj := g.Adj[g.XAdj[v]:g.XAdj[v+1]]
		cur := label[v]
		var l int64
		if c.within != nil {
			l = c.bestWithin(v, cur)
		} else if c.share > 1 {
			l = bestCluster(&c.r, adj, g.weights(g.XAdj[v], g.XAdj[v+1]), label, cur, c.share*g.VW[v], c.limit, c.salt, c.shared)
		} else {
			l = bestCluster(&c.r, adj, g.weights(g.XAdj[v], g.XAdj[v+1]), label, cur, g.VW[v], c.limit, c.salt, c.weight)
		}
		if l != cur {
			c.add(cur, -g.VW[v])
			c.add(l, g.VW[v])
			label[v] = l
			c.moved++
		}
		if pause != nil && pause(int64(c.next), c.moved) {
			return c.next < len(c.perm)
		}
	}
	return false
}

// bestWithin is bestCluster over the neighbours of v on v's PE only
// (c.within).
func (c *clustering) bestWithin(v int32, cur int64) int64 {
	g, pe := c.g, c.within
	lo, hi := g.XAdj[v], g.XAdj[v+1]
	adj, w := g.Adj[lo:hi], g.weights(lo, hi)
	c.adj, c.w = c.adj[:0], c.w[:0]
	for i, u := range adj {
		if pe[u] == pe[v] {
			c.adj = append(c.adj, u)
			c.w = append(c.w, weight1(w, i))
		}
	}
	return bestCluster(&c.r, c.adj, c.w, c.label, cur, g.VW[v], c.limit, c.salt, c.weight)
}

// endRound refreshes the ghosts' labels after a round (collective).
func (c *clustering) endRound() error {
	g, label := c.g, c.label
	n := g.N()
	c.perm = nil
	gl, err := exchange(g, label[:n])
	if err != nil {
		return err
	}
	copy(label[n:], gl)
	total, err := sumAll(g.c, c.moved)
	if err != nil {
		return err
	}
	if total[0] == 0 {
		c.converged = true
	}
	return nil
}
