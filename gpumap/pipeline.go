package gpumap

import (
	"errors"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/multisection"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// pipeline runs one mapping: the graph, machine, options and the phase
// tracker shared by the algorithms.
type pipeline struct {
	x       *par.Exec
	g       *graph.Graph
	top     *topology.Topology
	opt     Options
	t       *tracker
	cfg     presetConfig
	lmax    int64
	backend backend.Backend
	err     error // first failure of a phase
}

func (p *pipeline) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

func newPipeline(x *par.Exec, g *graph.Graph, top *topology.Topology, opt Options, t *tracker) *pipeline {
	return &pipeline{x: x, g: g, top: top, opt: opt, t: t, cfg: presets[opt.Preset],
		lmax: graph.Lmax(g.TotalVertexWeight(), top.K(), opt.Eps)}
}

func (p *pipeline) limits() []int64 {
	maxW := make([]int64, p.top.K())
	for i := range maxW {
		maxW[i] = p.lmax
	}
	return maxW
}

// multisection: hierarchical multisection, then J refinement.
func (p *pipeline) multisection() []int32 {
	var pe []int32
	p.t.phase("multisection", func() {
		pe = multisection.Map(p.x, p.g, p.top, multisection.Config{
			Eps: p.opt.Eps, Seed: p.opt.Seed, Partition: p.cfg.partition, SlackDepth: p.cfg.slackDepth,
			TopTries: p.cfg.topTries, Lower: p.cfg.lower, Bottom: p.cfg.bottom,
			TopHierarchies: p.cfg.topH, TopCandidates: p.cfg.topC, TopPruneDiv: p.cfg.topPrune})
	})
	p.refineJ(pe)
	return pe
}

// integrated is the integrated multilevel mapping (IM) on the selected
// backend, followed (on the CPU) by the final J refinement.
func (p *pipeline) integrated() []int32 {
	var pe []int32
	b := p.backend
	c := p.cfg.integrated
	c.Seed = p.opt.Seed
	c.Initial.Partition = p.cfg.partition
	c.Initial.SlackDepth = p.cfg.slackDepth
	var tm integrated.Times
	var err error
	p.t.phase("integrated", func() {
		pe, tm, err = integrated.Map(b, p.x, p.g, p.top, p.opt.Eps, c)
	})
	if errors.Is(err, cuda.ErrTooLarge) || errors.Is(err, cuda.ErrOutOfMemory) {
		// Too big for the device: run the same pipeline on the CPU.
		p.t.logf("%v: using the CPU", err)
		b.Close()
		b = cpu.New(p.opt.Threads)
		p.backend = b
		p.t.phase("integrated", func() {
			pe, tm, err = integrated.Map(b, p.x, p.g, p.top, p.opt.Eps, c)
		})
	}
	if err != nil {
		p.fail(err)
		return nil
	}
	p.t.logf("integrated on %s: %d levels, coarsen %.2f ms, initial %.2f ms, uncoarsen+refine %.2f ms",
		b.Name(), tm.Levels, ms(tm.Coarsen), ms(tm.Initial), ms(tm.Uncoarsen))
	if gb, onGPU := b.(*cuda.Backend); onGPU {
		// The performance model of the device phases, and its "gpu:" line.
		p.t.raw(gb.Report())
	}
	p.refineJ(pe)
	return pe
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// refineJ polishes a mapping on the finest graph with J-gain FM.
func (p *pipeline) refineJ(pe []int32) {
	p.t.phase("refine-J", func() {
		s := refinement.NewState(p.g, p.top.K(), pe, p.limits(), refinement.Mapping(p.top))
		if s.Overloaded() > 0 {
			refinement.Rebalance(s)
		}
		fm := p.cfg.finalFM
		fm.Seed = p.opt.Seed ^ 0xf1a1
		before := s.Cost()
		gain := refinement.RunFM(s, fm, before)
		p.t.logf("refine-J: J %d -> %d", before, before-gain)
	})
}

// oneToOneWork bounds the repetitions of a small one-to-one mapping:
// repeats * n stays below it, so tiny instances (a few hundred MPI ranks)
// get several seeds for a few milliseconds and large ones a single run.
const oneToOneWork = 1 << 12

// oneToOne maps one task per PE: exact-balance multisection by recursive
// bisection, then pair swaps on J; small instances repeat this with
// successive seeds and keep the lowest J (the first on ties).
func (p *pipeline) oneToOne() []int32 {
	reps := max(min(oneToOneWork/max(p.g.N(), 1), p.cfg.oneToOneReps), 1)
	var best []int32
	var bestJ int64
	for r := 0; r < reps; r++ {
		seed := p.opt.Seed + uint64(r)
		var pe []int32
		p.t.phase("multisection", func() {
			pc := p.cfg.partition
			pc.Recursive = true
			pe = multisection.Map(p.x, p.g, p.top, multisection.Config{Eps: 0, Seed: seed, Partition: pc})
		})
		var j int64
		p.t.phase("swaps", func() {
			s := refinement.NewState(p.g, p.top.K(), pe, p.limits(), refinement.Mapping(p.top))
			if s.Overloaded() > 0 {
				refinement.Rebalance(s)
			}
			refinement.Swaps(s, p.top, refinement.SwapConfig{MinImprove: 1e-4, Seed: seed})
			j = s.Cost()
		})
		if best == nil || j < bestJ {
			best, bestJ = pe, j
		}
	}
	if reps > 1 {
		p.t.logf("one-to-one: best J %d of %d seeds", bestJ, reps)
	}
	return best
}

// presetConfig holds the knobs a preset sets.
type presetConfig struct {
	partition            partition.Config
	finalFM              refinement.FMConfig
	integrated           integrated.Config
	slackDepth           float64
	topTries             int
	topH, topC, topPrune int
	lower                partition.Config
	bottom               partition.Config
	oneToOneReps         int // seeds tried on small one-to-one instances
}

var presets = [...]presetConfig{
	Fast: {
		partition: partition.Config{Tries: 4, LPRounds: 2, FMRounds: 1,
			FM: refinement.FMConfig{Alpha: 20, SkipExplored: true}},
		bottom: partition.Config{Tries: 2, LPRounds: 2, FMRounds: 1,
			FM: refinement.FMConfig{Alpha: 20, SkipExplored: true}},
		finalFM:      refinement.FMConfig{Rounds: -1},
		topTries:     1,
		slackDepth:   0.03,
		integrated:   integrated.Config{CoarsenC: 30, CapDiv: 8},
		oneToOneReps: 4,
	},
	Default: {
		partition: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2,
			FM: refinement.FMConfig{Alpha: 30, SkipExplored: true}},
		bottom: partition.Config{Tries: 4, LPRounds: 2, FMRounds: 2,
			FM: refinement.FMConfig{Alpha: 30}},
		finalFM:      refinement.FMConfig{Rounds: 1, Alpha: 10, SkipExplored: true},
		topTries:     3,
		slackDepth:   0.03,
		integrated:   integrated.Config{CoarsenC: 30, CapDiv: 8},
		oneToOneReps: 8,
	},
	Strong: {
		partition: partition.Config{Tries: 12, LPRounds: 3, FMRounds: 4,
			FM: refinement.FMConfig{Alpha: 60}},
		finalFM:      refinement.FMConfig{Rounds: 4, Alpha: 30},
		topTries:     8,
		slackDepth:   0.03,
		integrated:   integrated.Config{CoarsenC: 60, CapDiv: 8, Jet: refinement.JetConfig{Iterations: 16}},
		oneToOneReps: 16,
	},
}
