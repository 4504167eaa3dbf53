package kway

import (
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

// Config sets the effort of Partition.
type Config struct {
	Seed uint64
	// C: a block that stands for several final blocks is bisected on the
	// first level (coarsest first) where it holds at least 2C vertices
	// (0: 16); on the input graph every such block is bisected.
	C int
	// Natural matches vertices in id order (coarsening.Greedy): on
	// inputs numbered with locality (grids) the coarse graphs stay
	// regular and the bisections straight.
	Natural bool
	// Bisect configures the bisections of blocks (partition.Partition
	// with two limits: flat below its FlatSize).
	Bisect partition.Config
	// LPRounds of label propagation, then FMRounds of k-way FM (-1: none;
	// 0: FM's default), refine every level.
	LPRounds int
	FMRounds int
	FM       refinement.FMConfig
	// Pair, when Rounds > 0, runs two-way FM between adjacent blocks
	// after FM on every level (refinement.PairFM).
	Pair refinement.PairFMConfig
	// PairLevels > 0 runs Pair on the finest PairLevels levels only.
	PairLevels int
}

// Partition splits g into len(maxW) blocks, block b weighing at most
// maxW[b] when that is achievable, minimising the edge cut, by deep
// multilevel partitioning: g is coarsened once, the coarsest graph is
// bisected, and on the way back up every block that stands for several of
// the final blocks is bisected as soon as the level's graph gives it 2C
// vertices, each level refined k-way over the blocks it has.
//
// It is meant for small graphs split into many blocks (a subgraph of a few
// thousand vertices into 64 groups of a wide machine). There recursive
// bisection by the multilevel partitioner coarsens every subgraph of the
// recursion again and refines every recursion level k-way: about a hundred
// passes over the graph. Here the hierarchy is built once, the bisections
// run on small block graphs and every level is refined once.
func Partition(x *par.Exec, g *graph.Graph, maxW []int64, cfg Config) []int32 {
	k := len(maxW)
	n := g.N()
	if k <= 1 || n == 0 {
		return make([]int32, n)
	}
	c := cfg.C
	if c <= 0 {
		c = 16
	}
	// Coarse vertices stay light next to the final blocks, so that the
	// levels where the last bisections run can still balance them.
	minLimit := maxW[0]
	for _, w := range maxW[1:] {
		minLimit = min(minLimit, w)
	}
	levels := coarsening.Coarsen(x, g, coarsening.Config{StopSize: 2 * c,
		MaxWeight: max(g.MaxVertexWeight(), minLimit/3, 1), Seed: cfg.Seed, Natural: cfg.Natural})
	d := &deep{x: x, maxW: maxW, cfg: cfg, c: c, lo: []int32{0}, hi: []int32{int32(k)}}
	var part []int32
	for l := len(levels) - 1; l >= -1; l-- {
		gl := g
		if l >= 0 {
			gl = levels[l].Graph
		}
		switch {
		case part == nil:
			part = make([]int32, gl.N()) // the whole range in block 0
		default:
			fine := make([]int32, gl.N())
			coarsening.Project(x, levels[l+1].CMap, part, fine)
			part = fine
		}
		d.pair = cfg.Pair.Rounds > 0 && (cfg.PairLevels <= 0 || l+1 < cfg.PairLevels)
		d.level(gl, part, l < 0, cfg.Seed^uint64(l+2)*0x9e3779b97f4a7c15)
	}
	for v, b := range part {
		part[v] = d.lo[b]
	}
	return part
}

// deep is the state of Partition: the current blocks are the ranges
// [lo[b], hi[b]) of final blocks, in increasing order.
type deep struct {
	x      *par.Exec
	maxW   []int64
	cfg    Config
	c      int
	lo, hi []int32
	pair   bool // this level runs cfg.Pair
}

// level bisects the blocks of part (on gl) that stand for several final
// blocks and hold 2C+ vertices (all of them on the input graph, final),
// again until none is left, then refines part k-way.
func (d *deep) level(gl *graph.Graph, part []int32, final bool, seed uint64) {
	// Coarse levels relax every limit by the heaviest vertex, as the
	// multilevel partitioner does; the input graph restores them.
	var slack int64
	if !final {
		slack = gl.MaxVertexWeight()
	}
	for pass := 0; ; pass++ {
		k := len(d.lo)
		count := make([]int, k)
		for _, b := range part {
			count[b]++
		}
		split := make([]bool, k)
		any := false
		for b := range k {
			if d.hi[b]-d.lo[b] > 1 && count[b] > 0 && (final || count[b] >= 2*d.c) {
				split[b], any = true, true
			}
		}
		if !any {
			break
		}
		blocks := partition.NewBlocks(gl, part, k)
		// newID[b] is b's first block after the pass; a split block's second
		// half follows it.
		newID := make([]int32, k)
		var lo, hi []int32
		for b := range k {
			newID[b] = int32(len(lo))
			if split[b] {
				mid := d.lo[b] + (d.hi[b]-d.lo[b])/2
				lo, hi = append(lo, d.lo[b], mid), append(hi, mid, d.hi[b])
			} else {
				lo, hi = append(lo, d.lo[b]), append(hi, d.hi[b])
			}
		}
		side := make([][]int32, k)
		subs := make([][]int32, k)
		for b := range k {
			if !split[b] {
				continue
			}
			sub := blocks.Extract(b)
			lim := bisectLimits(d.maxW, d.lo[b], d.hi[b], sub.G.TotalVertexWeight(), slack)
			bc := d.cfg.Bisect
			bc.Seed = seed ^ uint64(d.lo[b])<<20 ^ uint64(d.hi[b])<<40 ^ uint64(pass)
			var sb []int32
			if sub.G.N() <= flatMaxN {
				sb = Flat(sub.G, lim[:], bc.Tries, 0, bc.Seed)
			}
			if sb == nil {
				sb = partition.Partition(d.x, sub.G, lim[:], bc)
			}
			side[b], subs[b] = sb, sub.Global
		}
		for v, b := range part {
			part[v] = newID[b]
		}
		for b := range k {
			for i, v := range subs[b] {
				part[v] += side[b][i]
			}
		}
		d.lo, d.hi = lo, hi
	}
	d.refine(gl, part, slack, seed)
}

// flatMaxN: blocks of up to flatMaxN vertices are bisected by Flat, the
// partitioner's flat bisection (its FlatSize) on reused buffers.
const flatMaxN = 160

// bisectLimits are the limits of the two halves of the final blocks
// [lo, hi) for a block of weight w: the halves' capacities, tightened by
// the adaptive imbalance of the bisections still to come (as the
// partitioner's recursive bisection does), plus slack.
func bisectLimits(maxW []int64, lo, hi int32, w, slack int64) [2]int64 {
	mid := lo + (hi-lo)/2
	var cap0, cap1 int64
	for _, x := range maxW[lo:mid] {
		cap0 += x
	}
	for _, x := range maxW[mid:hi] {
		cap1 += x
	}
	lim := partition.BisectLimits(w, cap0, cap1, int(hi-lo))
	return [2]int64{lim[0] + slack, lim[1] + slack}
}

// refine runs label propagation and k-way FM over the current blocks,
// each limited by the capacity of its final blocks plus slack.
func (d *deep) refine(gl *graph.Graph, part []int32, slack int64, seed uint64) {
	k := len(d.lo)
	if k < 2 {
		return
	}
	lim := make([]int64, k)
	for b := range k {
		for _, w := range d.maxW[d.lo[b]:d.hi[b]] {
			lim[b] += w
		}
		lim[b] += slack
	}
	s := refinement.NewState(gl, k, part, lim, refinement.Cut())
	if s.Overloaded() > 0 {
		refinement.Rebalance(s)
	}
	if d.cfg.LPRounds > 0 {
		refinement.LabelPropagation(s, d.cfg.LPRounds, seed)
	}
	if d.cfg.FMRounds >= 0 {
		fm := d.cfg.FM
		fm.Seed = seed
		if d.cfg.FMRounds > 0 {
			fm.Rounds = d.cfg.FMRounds
		}
		refinement.RunFMParallel(d.x, s, fm, -1)
	}
	if d.pair {
		pc := d.cfg.Pair
		pc.Seed = seed
		refinement.PairFM(s, pc)
	}
}
