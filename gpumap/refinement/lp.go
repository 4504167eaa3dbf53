package refinement

import (
	"math/rand/v2"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// LabelPropagation runs size-constrained label propagation: boundary
// vertices are visited in a seeded random order and moved to the adjacent
// block of best positive gain that has room; zero-gain moves are taken
// when they leave the source lighter than the target becomes. Only
// vertices next to a move are visited again in the following round. It
// stops after rounds rounds or when a round moves fewer than n/1000
// vertices, and returns the cost reduction.
func LabelPropagation(s *State, rounds int, seed uint64) int64 {
	g := s.G
	n := int32(g.N())
	nb := newNbhd(s.K)
	rng := rand.New(rand.NewPCG(seed, 0x6c70))
	var active []int32
	for v := int32(0); v < n; v++ {
		if s.IsBoundary(v) {
			active = append(active, v)
		}
	}
	queued := make([]uint32, n) // round+1 in which v is already queued
	var next []int32
	total := int64(0)
	for r := 0; r < rounds && len(active) > 0; r++ {
		rng.Shuffle(len(active), func(i, j int) { active[i], active[j] = active[j], active[i] })
		moved := 0
		next = next[:0]
		stamp := uint32(r + 2)
		for _, v := range active {
			if t, gain, ok := lpMove(s, nb, v); ok {
				s.Move(v, t)
				total += gain
				moved++
				next = queueNeighbours(g, v, queued, stamp, next)
			}
		}
		if moved <= int(n)/1000 {
			break
		}
		active, next = next, active
	}
	return total
}

// LabelPropagationParallel is LabelPropagation for large graphs (at least
// ParallelFMMin vertices; smaller ones take the sequential version): the
// shuffled active vertices are taken in batches; in each batch every
// vertex's best move is found in parallel against the state the batch
// started from, then the vertices that want to move are re-examined in
// batch order on the current state and moved as LabelPropagation would.
// Batches are cut independently of the thread count and moves are decided
// sequentially, so the result is the same for any thread count.
func LabelPropagationParallel(x *par.Exec, s *State, rounds int, seed uint64) int64 {
	g := s.G
	n := int32(g.N())
	if x == nil || int(n) < ParallelFMMin {
		return LabelPropagation(s, rounds, seed)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c70))
	parts := make([][]int32, x.Chunks(int(n)))
	x.For(int(n), func(c, lo, hi int) {
		var a []int32
		for v := int32(lo); v < int32(hi); v++ {
			if s.IsBoundary(v) {
				a = append(a, v)
			}
		}
		parts[c] = a
	})
	var active []int32
	for _, p := range parts {
		active = append(active, p...)
	}
	scratch := make([]*nbhd, x.Workers(1<<30))
	for i := range scratch {
		scratch[i] = newNbhd(s.K)
	}
	seq := newNbhd(s.K)
	queued := make([]uint32, n)
	want := make([]bool, 0)
	var next []int32
	total := int64(0)
	for r := 0; r < rounds && len(active) > 0; r++ {
		rng.Shuffle(len(active), func(i, j int) { active[i], active[j] = active[j], active[i] })
		moved := 0
		next = next[:0]
		stamp := uint32(r + 2)
		batch := max(len(active)/1024, 128)
		for lo := 0; lo < len(active); lo += batch {
			if x.Grows() {
				// Threads that another try of the split left (par.Team).
				x.Grow()
				for len(scratch) < x.Workers(1<<30) {
					scratch = append(scratch, newNbhd(s.K))
				}
			}
			bs := active[lo:min(lo+batch, len(active))]
			want = append(want[:0], make([]bool, len(bs))...)
			tasks := (len(bs) + 255) / 256
			x.Each(tasks, func(w, t int) {
				nb := scratch[w]
				for i := t * 256; i < min(t*256+256, len(bs)); i++ {
					_, _, want[i] = lpMove(s, nb, bs[i])
				}
			})
			for i, v := range bs {
				if !want[i] {
					continue
				}
				if t, gain, ok := lpMove(s, seq, v); ok {
					s.Move(v, t)
					total += gain
					moved++
					next = queueNeighbours(g, v, queued, stamp, next)
				}
			}
		}
		if moved <= int(n)/1000 {
			break
		}
		active, next = next, active
	}
	return total
}

// lpMove is v's label propagation move: its best target with room, taken
// when it gains, or gains nothing and leaves the source lighter than the
// target becomes.
func lpMove(s *State, nb *nbhd, v int32) (t int32, gain int64, ok bool) {
	nb.load(s, v)
	t, gain = nb.bestMove(s, v, 0)
	ok = t >= 0 && (gain > 0 || gain == 0 && s.BW[t]+s.G.VW[v] < s.BW[s.Part[v]])
	return t, gain, ok
}

// queueNeighbours appends v's neighbours not queued in this round.
func queueNeighbours(g *graph.Graph, v int32, queued []uint32, stamp uint32, next []int32) []int32 {
	for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
		if u := g.Adj[e]; queued[u] != stamp {
			queued[u] = stamp
			next = append(next, u)
		}
	}
	return next
}
