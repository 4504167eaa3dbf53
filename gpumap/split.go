package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/exact"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Split returns the pipelines that Map(g, top, opt) runs side by side and
// keeps the best of, as options with which Map runs each one alone to the
// same mapping: default's plain HM and IM where it maps with both
// (measuresBoth), and otherwise opt itself, alone. Map's mapping is then
// the best of those of Split's options (feasible first, then the lowest J,
// then the first), so that processes that each run a share of them and
// keep the best get Map's mapping without sharing memory (the distributed
// mapper's small graphs, package distmap). Where default duels (duels),
// Map stops HM after its top split when IM's mapping predicts HM's J more
// than duelMargin above IM's; Split's HM runs to its end, so the best of
// Split's options is Map's mapping wherever the duel's prediction holds
// (IM won every duel it stopped on the real corpus) and a lower J where
// it would not: kept whole instead (one process running the duel at one
// thread), finan512 took 1.87x the one-process wall at P=2. Only a portfolio whose
// candidates options can name is split: strong's plan, whose candidates
// take the measured features' settings, stays whole, and so does one that
// may run on a GPU (opt.Backend must be CPU, or auto below
// GPUMinVertices).
func Split(g *graph.Graph, top *topology.Topology, opt Options) []Options {
	one := []Options{opt}
	onCPU := opt.Backend == CPU || opt.Backend == AutoBackend && g != nil && g.N() < GPUMinVertices
	if !onCPU || opt.Preset != Default || opt.Algorithm != AutoAlgorithm || validate(g, top, opt) != nil ||
		g.N() <= exact.MaxVertices {
		return one
	}
	// As Map: a sparse machine's prefix, then one-to-one instances (one
	// pipeline of their own).
	mtop, mopt := top, opt
	total := g.TotalVertexWeight()
	if r, eps, ok := sparseMachine(top, g.N(), total, opt.Eps); ok {
		mtop, mopt.Eps = r, eps
	}
	if isOneToOne(g, mtop.K(), total, mopt.Eps) {
		return one
	}
	p := newPipeline(nil, g, mtop, mopt, &tracker{})
	p.backend = cpu.New(1)
	defer p.backend.Close()
	if !p.measuresBoth() {
		return one
	}
	var out []Options
	for _, c := range p.candidates(Multisection, false) {
		if !c.plain {
			return one // settings from features that options cannot name
		}
		o := opt
		o.Preset, o.Algorithm, o.Seed = c.preset, c.alg, c.seed
		out = append(out, o)
	}
	if len(out) == 0 {
		return one
	}
	return out
}
