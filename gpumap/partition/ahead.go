package partition

import (
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Ahead is a shared hierarchy (Coarsen) built before it is known to be
// wanted, on a goroutine of its own: the mapper starts the whole machine's
// on one thread while the features are measured, whose random-order
// matching is sequential and leaves the other core idle (on a 2^20-vertex
// rgg at -t 2, 150-200 ms). A split takes it only when it is the
// hierarchy that Coarsen would build for the split's graph, limits and
// configuration, so the mapping is the same as without it.
type Ahead struct {
	g      *graph.Graph
	cfg    coarsening.Config
	done   chan struct{}
	levels []coarsening.Level
	taken  bool
}

// CoarsenAhead starts a goroutine that calls plan and, when plan reports
// true, builds on x the hierarchy that Coarsen builds for g and the limits
// and configuration plan returns.
func CoarsenAhead(x *par.Exec, g *graph.Graph, plan func() ([]int64, Config, bool)) *Ahead {
	a := &Ahead{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		maxW, cfg, ok := plan()
		if !ok {
			return
		}
		a.g, a.cfg = g, coarsenConfig(g, maxW, cfg.withDefaults(), 0)
		a.levels = coarsening.Coarsen(x, g, a.cfg)
	}()
	return a
}

// Wait returns once the hierarchy is built (at once for a nil Ahead).
func (a *Ahead) Wait() {
	if a != nil {
		<-a.done
	}
}

// Hierarchy returns, for users partitions, the hierarchy built ahead when
// it is the one Coarsen(x, g, maxW, cfg, users) would build, once; false
// otherwise. It waits for the building to end. Only one goroutine may ask.
func (a *Ahead) Hierarchy(g *graph.Graph, maxW []int64, cfg Config, users int) (*Hierarchy, bool) {
	if a == nil || a.taken {
		return nil, false
	}
	<-a.done
	if a.g != g || !sameCoarsening(a.cfg, coarsenConfig(g, maxW, cfg.withDefaults(), 0)) {
		return nil, false
	}
	a.taken = true
	return newHierarchy(a.levels, users), true
}

// sameCoarsening reports whether coarsening.Coarsen builds the same levels
// under a and b.
func sameCoarsening(a, b coarsening.Config) bool {
	return a.Block == nil && b.Block == nil && a.StopSize == b.StopSize && a.MaxWeight == b.MaxWeight &&
		a.MinShrink == b.MinShrink && a.MaxLevels == b.MaxLevels && a.Matcher == b.Matcher &&
		a.Seed == b.Seed && a.Natural == b.Natural && a.Stall == b.Stall && a.Attach == b.Attach
}

// Taken reports whether a split took the hierarchy.
func (a *Ahead) Taken() bool { return a != nil && a.taken }
