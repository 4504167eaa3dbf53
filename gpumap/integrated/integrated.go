package integrated

import (
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/multisection"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Config sets the effort of IM and of V-cycles.
type Config struct {
	Seed         uint64
	CoarsenC     int                 // coarsen to about CoarsenC*k vertices (0: 8)
	CapDiv       int64               // coarse vertices weigh at most Lmax/CapDiv (0: 4)
	InitialTries int                 // multisection runs on the coarsest graph (0: 1)
	Initial      multisection.Config // Eps and Seed are set by Map
	LPRounds     int                 // label propagation rounds per level before FM
	FM           refinement.FMConfig // J-gain FM per level; Rounds < 0 disables it
	RelaxCoarse  bool                // coarse levels may exceed Lmax by their heaviest vertex
}

func (c Config) withDefaults() Config {
	if c.CoarsenC == 0 {
		c.CoarsenC = 8
	}
	if c.CapDiv == 0 {
		c.CapDiv = 4
	}
	if c.InitialTries == 0 {
		c.InitialTries = 1
	}
	return c
}

// Map computes a mapping of g onto top with imbalance eps by integrated
// multilevel mapping.
func Map(x *par.Exec, g *graph.Graph, top *topology.Topology, eps float64, cfg Config) []int32 {
	cfg = cfg.withDefaults()
	k := top.K()
	lmax := graph.Lmax(g.TotalVertexWeight(), k, eps)
	levels := coarsening.Coarsen(x, g, coarsening.Config{
		StopSize:  cfg.CoarsenC * k,
		MaxWeight: max(lmax/cfg.CapDiv, g.MaxVertexWeight(), 1),
		Seed:      cfg.Seed,
	})
	coarsest := g
	if len(levels) > 0 {
		coarsest = levels[len(levels)-1].Graph
	}
	obj := refinement.Mapping(top)
	var best []int32
	bestCost := int64(-1)
	for t := 0; t < cfg.InitialTries; t++ {
		ic := cfg.Initial
		ic.Eps, ic.Seed = eps, cfg.Seed+uint64(t)*0x9e37
		pe := multisection.Map(x, coarsest, top, ic)
		refineLevel(coarsest, pe, top, obj, lmax, cfg, cfg.Seed+uint64(t), len(levels) > 0)
		if c := obj.Cost(coarsest, pe); best == nil || c < bestCost {
			best, bestCost = pe, c
		}
	}
	return uncoarsen(x, g, levels, best, top, obj, lmax, cfg)
}

// Refine improves the mapping pe of g (in place) by one V-cycle: coarsening
// within PEs, then refinement from the coarsest level back to g.
func Refine(x *par.Exec, g *graph.Graph, top *topology.Topology, pe []int32, lmax int64, cfg Config) {
	cfg = cfg.withDefaults()
	levels := coarsening.Coarsen(x, g, coarsening.Config{
		StopSize:  cfg.CoarsenC * top.K(),
		MaxWeight: max(lmax/cfg.CapDiv, g.MaxVertexWeight(), 1),
		Seed:      cfg.Seed,
		Block:     pe,
	})
	if len(levels) == 0 {
		refineLevel(g, pe, top, refinement.Mapping(top), lmax, cfg, cfg.Seed, false)
		return
	}
	obj := refinement.Mapping(top)
	coarse := levels[len(levels)-1]
	cpe := append([]int32(nil), coarse.Block...)
	refineLevel(coarse.Graph, cpe, top, obj, lmax, cfg, cfg.Seed, true)
	copy(pe, uncoarsen(x, g, levels, cpe, top, obj, lmax, cfg))
}

// uncoarsen projects the coarsest mapping back to g, refining every level.
func uncoarsen(x *par.Exec, g *graph.Graph, levels []coarsening.Level, pe []int32,
	top *topology.Topology, obj refinement.Objective, lmax int64, cfg Config) []int32 {
	for i := len(levels) - 1; i >= 0; i-- {
		fine := g
		if i > 0 {
			fine = levels[i-1].Graph
		}
		fpe := make([]int32, fine.N())
		coarsening.Project(x, levels[i].CMap, pe, fpe)
		pe = fpe
		refineLevel(fine, pe, top, obj, lmax, cfg, cfg.Seed^uint64(i+1)*0x51, i > 0)
	}
	return pe
}

// refineLevel rebalances and refines J on one level.
func refineLevel(g *graph.Graph, pe []int32, top *topology.Topology, obj refinement.Objective,
	lmax int64, cfg Config, seed uint64, coarse bool) {
	lim := lmax
	if coarse && cfg.RelaxCoarse {
		lim += g.MaxVertexWeight()
	}
	maxW := make([]int64, top.K())
	for i := range maxW {
		maxW[i] = lim
	}
	s := refinement.NewState(g, top.K(), pe, maxW, obj)
	if s.Overloaded() > 0 {
		refinement.Rebalance(s)
	}
	if cfg.LPRounds > 0 {
		refinement.LabelPropagation(s, cfg.LPRounds, seed)
	}
	if cfg.FM.Rounds >= 0 {
		fm := cfg.FM
		fm.Seed = seed
		refinement.RunFM(s, fm, -1)
	}
}
