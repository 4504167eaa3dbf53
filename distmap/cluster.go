package distmap

import (
	"math/rand/v2"
	"slices"
)

// rating sums edge weights by label: a small open-addressing table,
// cleared per vertex in time of its entries.
type rating struct {
	key  []int64
	val  []int64
	used []int32
}

func (r *rating) reset(degree int) {
	want := 16
	for want < 2*degree {
		want *= 2
	}
	if len(r.key) < want {
		r.key, r.val = make([]int64, want), make([]int64, want)
		for i := range r.key {
			r.key[i] = -1
		}
	}
	for _, i := range r.used {
		r.key[i] = -1
	}
	r.used = r.used[:0]
}

func (r *rating) add(k, w int64) {
	mask := len(r.key) - 1
	for i := int(uint64(k)*0x9e3779b97f4a7c15>>33) & mask; ; i = (i + 1) & mask {
		switch r.key[i] {
		case k:
			r.val[i] += w
			return
		case -1:
			r.key[i], r.val[i] = k, w
			r.used = append(r.used, int32(i))
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
	for _, i := range r.used {
		if r.key[i] == cur {
			bestW = r.val[i]
		}
	}
	for _, i := range r.used {
		l, x := r.key[i], r.val[i]
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

// cluster runs size-constrained label propagation on g: every vertex
// starts in its own cluster (labelled by its global id) and joins the
// heaviest neighbouring cluster whose weight stays within limit. Each rank
// visits its vertices in a random order drawn from the seed, knows the
// weights of the clusters of its vertices and ghosts only (moves update
// them locally, as in ParHIP), and refreshes its ghosts' labels after every
// round. It returns the labels of the local vertices and the ghosts.
func cluster(g *Graph, limit int64, rounds int, seed uint64, level int) ([]int64, error) {
	n := g.N()
	label := make([]int64, n+len(g.Ghost))
	for v := range n {
		label[v] = g.First() + int64(v)
	}
	copy(label[n:], g.Ghost)
	ghostVW, err := exchange(g, g.VW)
	if err != nil {
		return nil, err
	}
	// Cluster weights: the labels of this rank's range in an array, the
	// others (from ghosts) in a map.
	first := g.First()
	dense := slices.Clone(g.VW)
	far := make(map[int64]int64, len(g.Ghost))
	for i, x := range ghostVW {
		far[g.Ghost[i]] = x
	}
	get := func(l int64) int64 {
		if l >= first && l < first+int64(n) {
			return dense[l-first]
		}
		return far[l]
	}
	add := func(l, x int64) {
		if l >= first && l < first+int64(n) {
			dense[l-first] += x
		} else {
			far[l] += x
		}
	}
	var r rating
	for round := range rounds {
		rng := rand.New(rand.NewPCG(seed, uint64(level)<<32|uint64(round)<<16|uint64(g.rank)))
		moved := int64(0)
		perm := rng.Perm(n)
		// The same salt on every rank: the round's first draw of a
		// stream that all ranks share.
		salt := rand.New(rand.NewPCG(seed, uint64(level)<<32|uint64(round)<<16|1<<15)).Uint64()
		for _, v := range perm {
			adj := g.Adj[g.XAdj[v]:g.XAdj[v+1]]
			cur := label[v]
			l := bestCluster(&r, adj, g.weights(g.XAdj[v], g.XAdj[v+1]), label, cur, g.VW[v], limit, salt, get)
			if l != cur {
				add(cur, -g.VW[v])
				add(l, g.VW[v])
				label[v] = l
				moved++
			}
		}
		gl, err := exchange(g, label[:n])
		if err != nil {
			return nil, err
		}
		copy(label[n:], gl)
		total, err := sumAll(g.c, moved)
		if err != nil {
			return nil, err
		}
		if total[0] == 0 {
			break
		}
	}
	return label, nil
}
