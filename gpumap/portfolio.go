package gpumap

import (
	"sync"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/features"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// The strong preset's general mapping (-a auto, on the CPU) on regular
// graphs (features.Regular: meshes, geometric and random graphs) is the
// best of complete pipelines. A mapping's J varies by 2-5% with the seed
// there (rgg3d_100k onto 4:8:6: 547,527-573,458 over four seeds of
// default), while strong's own settings, capped on graphs of 2^18+ edges
// to stay within seconds, measured no better than default's on them. So:
//
//   - graphs of 2^16+ edges where FM dominates (matching leaves their
//     edges: EdgeKeep at least fmHeavyRatio x VertexKeep; small worlds,
//     stochastic block models, unit 3D grids): default's pipeline alone;
//   - 2D-like graphs that keep strong's full preset (presetConfig.forSize):
//     strong's own pipeline alone (it takes most of the time budget);
//   - other graphs of ownMaxEdges+ edges: default's pipeline with seeds s
//     and s' (the second's seed drawn from s);
//   - smaller ones: strong's own pipeline and both of those.
//
// Skewed, dense-block and hub graphs run strong's own pipeline alone.
// Default's pipeline with the same seed is a candidate wherever strong's
// own is not alone, so strong is never worse than default there.
//
// The candidates run side by side on the threads (each on its share),
// one after the other on one thread. Each candidate's mapping is the same
// for any thread count, and the winner is chosen by value (feasible
// first, then the lowest J, then the first), so the result is too.

// expanderRatio: EdgeKeep/VertexKeep at and above which a regular graph is
// expander-like (sbm_40k: 3.3; small worlds 1.5, unit 3D grids 1.7-1.9,
// meshes and geometric graphs 0.7-1.0), where default runs
// presetConfig.expanderTopTries.
const expanderRatio = 2.5

// fmHeavyRatio: EdgeKeep/VertexKeep at and above which FM dominates a
// regular graph's mapping (small worlds 1.5, unit 3D grids 1.7-1.9,
// stochastic block models 3.3; meshes and geometric graphs 0.7-1.0):
// strong's extra pipelines would take it past 5 s (ws_60k: two default
// runs 3.9-5.1 s, strong's own 10-16 s) for J within 0.3%, so strong maps
// such graphs as default does.
const fmHeavyRatio = 1.2

// fmHeavyOwnMaxEdges: smaller graphs where FM dominates still run the
// whole portfolio (cs4, cti, memplus, uk of ../shared/graphs: 7k-55k
// edges, strong's own pipeline within about a second, J up to 5% below
// default's).
const fmHeavyOwnMaxEdges = 1 << 16

// ownMaxEdges: regular graphs of fewer edges run strong's own pipeline
// beside default's. Above, its FM rounds and top tries cost 3-6x
// default's time on small worlds (ws_60k, 240k edges: 10-16 s) for J
// within 0.3%, and its capped settings measured no better than default's.
const ownMaxEdges = 1 << 17

// expanderLike reports whether a regular graph's edges survive matching
// (expanderRatio).
func expanderLike(f features.Features) bool {
	return keepsEdges(f, expanderRatio)
}

// keepsEdges reports whether f is a regular graph whose edges shrink under
// matching at most 1/ratio times as fast as its vertices.
func keepsEdges(f features.Features, ratio float64) bool {
	return f.Kind() == features.Regular && f.VertexKeep > 0 && f.EdgeKeep >= ratio*f.VertexKeep
}

// candidate is one pipeline of the portfolio.
type candidate struct {
	preset Preset
	seed   uint64
}

// strongCandidates lists the pipelines strong runs on p's graph, strong's
// own first when it runs; nil: strong's own alone.
func (p *pipeline) strongCandidates(alg Algorithm, oneToOne bool) []candidate {
	_, onCPU := p.backend.(*cpu.Backend)
	f := p.features
	if p.opt.Preset != Strong || p.opt.Algorithm != AutoAlgorithm || !onCPU || oneToOne ||
		alg != Multisection || f.Kind() != features.Regular {
		return nil
	}
	s, s2 := p.opt.Seed, p.opt.Seed+0x9e3779b97f4a7c15
	own, def := candidate{Strong, s}, candidate{Default, s}
	large, m := presets[Strong].large, p.g.M()
	switch {
	case keepsEdges(f, fmHeavyRatio) && m >= fmHeavyOwnMaxEdges:
		return []candidate{def}
	case m >= large.m && large.flat(m, &f):
		return nil // the 2D-like exception keeps the full preset
	case m >= ownMaxEdges:
		return []candidate{def, {Default, s2}}
	}
	return []candidate{own, def, {Default, s2}}
}

// runPortfolio maps with the candidates (p itself for strong's own) and
// returns the best mapping with its metrics (nil, nil when every candidate
// failed; p.err says why). run maps with a pipeline; p keeps the progress
// output, the others are silent.
func (p *pipeline) runPortfolio(cands []candidate, run func(*pipeline) []int32) ([]int32, *graph.Metrics) {
	pipes := make([]*pipeline, len(cands))
	for i, c := range cands {
		if c.preset == p.opt.Preset && c.seed == p.opt.Seed {
			pipes[i] = p
			continue
		}
		opt := p.opt
		opt.Preset, opt.Seed = c.preset, c.seed
		q := newPipeline(p.x, p.g, p.top, opt, &tracker{})
		q.withFeatures(p.features)
		if i == 0 {
			q.t = p.t // the first candidate reports progress (p logged the features)
		}
		pipes[i] = q
	}
	threads := p.x.Threads()
	pes := make([][]int32, len(pipes))
	if threads < 2 || len(pipes) == 1 {
		for i, q := range pipes {
			q.backend = p.backend
			pes[i] = run(q)
		}
	} else {
		var wg sync.WaitGroup
		x, backend := p.x, p.backend
		for i, q := range pipes {
			share := max(1, (threads+i)/len(pipes))
			q.x = par.New(share)
			q.backend = cpu.New(share)
			wg.Add(1)
			go func() {
				defer wg.Done()
				pes[i] = run(q)
			}()
		}
		wg.Wait()
		for _, q := range pipes {
			q.backend.Close()
		}
		p.x, p.backend = x, backend
	}
	best, bestM := -1, graph.Metrics{}
	for i, q := range pipes {
		if q.err != nil || pes[i] == nil {
			continue
		}
		m, err := graph.Evaluate(p.g, p.top, pes[i], p.opt.Eps)
		if err != nil {
			continue
		}
		if best < 0 || m.Feasible && !bestM.Feasible || m.Feasible == bestM.Feasible && m.J < bestM.J {
			best, bestM = i, m
		}
	}
	if best < 0 {
		for _, q := range pipes {
			if q.err != nil {
				p.fail(q.err)
				break
			}
		}
		return nil, nil
	}
	c := cands[best]
	p.t.logf("strong: %d pipelines, the lowest J (%d) from the %s preset's with seed %d", len(pipes), bestM.J, c.preset, c.seed)
	return pes[best], &bestM
}
