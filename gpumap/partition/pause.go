package partition

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Paused is a multilevel partition stopped before its last level
// (Config.Pause): Part partitions Coarse, the first coarse level of the
// input graph, refined on every level up to it. Finish completes it.
//
// Tries of one split compete on Coarse and only those near the best are
// finished (the wide top split, multisection's finishPaused): the input
// graph's level took about 40% of such a try.
type Paused struct {
	Coarse *graph.Graph
	Part   []int32
	g      *graph.Graph
	cmap   []int32
	maxW   []int64
	cfg    Config
	noFM   bool
}

// Finish projects Part onto the input graph and refines it there: the
// partition that Partition would have returned without Pause.
func (p *Paused) Finish(x *par.Exec) []int32 {
	return uncoarsen(x, p.g, p.cmap, p.Part, p.maxW, p.cfg, p.cfg.Seed, false, p.noFM)
}
