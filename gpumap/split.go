package gpumap

import (
	"fmt"

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
// mapper's small graphs, package distmap). duel reports that Map duels
// them (duels): it stops HM after its top split when IM's mapping
// predicts HM's J more than duelMargin above IM's, or after its splits of
// the top's children, more than duelSecondMargin. HM, run alone by Map,
// then runs to its end; run by MapDuel, given IM's mapping, it stops
// where Map stops it, and the best of the two mappings is Map's again
// (on R-MAT 2^16 at P=2, HM run to its end took the distributed mapper
// to 1.51x the one-process wall; kept whole instead, one process running
// the duel at one thread, finan512 took 1.87x). Only a portfolio whose
// candidates options can name is split: strong's plan, whose candidates
// take the measured features' settings, stays whole, and so does one that
// may run on a GPU (opt.Backend must be CPU, or auto below
// GPUMinVertices).
func Split(g *graph.Graph, top *topology.Topology, opt Options) (cands []Options, duel bool) {
	one := []Options{opt}
	p := splitPipeline(g, top, opt)
	if p == nil {
		return one, false
	}
	defer p.backend.Close()
	if !p.measuresBoth() {
		return one, false
	}
	var out []Options
	for _, c := range p.candidates(Multisection, false) {
		if !c.plain {
			return one, false // settings from features that options cannot name
		}
		o := opt
		o.Preset, o.Algorithm, o.Seed = c.preset, c.alg, c.seed
		out = append(out, o)
	}
	if len(out) == 0 {
		return one, false
	}
	// The portfolio duels its candidates 0 and 1 in this order alone.
	duel = p.duels() && len(out) == 2 && out[0].Algorithm == Multisection && out[1].Algorithm == Integrated
	return out, duel
}

// splitPipeline is the pipeline that Map would build for opt on the CPU
// (on a sparse machine's prefix), with a one-thread CPU backend, where
// Map may run a portfolio that Split can name; nil elsewhere.
func splitPipeline(g *graph.Graph, top *topology.Topology, opt Options) *pipeline {
	onCPU := opt.Backend == CPU || opt.Backend == AutoBackend && g != nil && g.N() < GPUMinVertices
	if !onCPU || opt.Preset != Default || opt.Algorithm != AutoAlgorithm || validate(g, top, opt) != nil ||
		g.N() <= exact.MaxVertices {
		return nil
	}
	// As Map: the machine without its arity-1 levels, a sparse machine's
	// prefix, then one-to-one instances (one pipeline of their own).
	mopt := opt
	total := g.TotalVertexWeight()
	mtop, eps, _ := mappedMachine(g, top, total, opt.Eps)
	mopt.Eps = eps
	if isOneToOne(g, mtop.K(), total, mopt.Eps) {
		return nil
	}
	p := newPipeline(nil, g, mtop, mopt, &tracker{})
	p.backend = cpu.New(1)
	return p
}

// Duel is what MapDuel's HM needs of the IM it duels, which maps on
// another process.
type Duel struct {
	// IM delivers IM's mapping once IM is done: Map's mapping with
	// Split's second option (nil where IM failed). The caller sends it
	// once, whenever it comes (a buffered channel never blocks the
	// sender). HM does not wait for it at its top split: as Map's HM
	// beside IM, it goes on and stops at its next split once the mapping
	// is here and the duel says so (waiting, HM's rank idled while IM
	// mapped, spinning in MPI_Recv: finan512 at P=2, 0.40 s of its CPU).
	IM <-chan []int32
	// Threads that IM's process maps with on this machine: HM takes them
	// once Freed is closed (IM is done), as Map's HM takes IM's threads
	// when IM is done first (0: IM runs elsewhere). The caller closes
	// Freed once IM is done, or once MapDuel returned.
	Threads int
	Freed   <-chan struct{}
}

// MapDuel maps g onto top with hm, the first of the options that
// Split(g, top, opt) returns where it reports a duel, perhaps with
// another seed, as Map runs that HM beside IM: once HM has split the
// whole machine and IM's mapping has come (d.IM), HM stops at its next
// split where Map would stop it (hmStops at the top split,
// hmStopsSecond after the splits of the top's children), and a mapping HM finished
// before IM's came is dropped where the duel says so. A stopped HM
// returns no result and no error: Map's mapping is then IM's. Otherwise
// the result is Map(g, top, hm)'s, whatever threads HM took and whenever
// IM's mapping came. MapDuel returns only once it has received IM's
// mapping, except where it fails. hm must be such an option.
func MapDuel(g *graph.Graph, top *topology.Topology, hm Options, d Duel) (*Result, error) {
	auto := hm
	auto.Algorithm = AutoAlgorithm
	switch {
	case hm.Algorithm != Multisection:
		return nil, fmt.Errorf("MapDuel runs HM (Algorithm Multisection), not %s", hm.Algorithm)
	case d.IM == nil:
		return nil, fmt.Errorf("MapDuel needs IM's mapping (Duel.IM is nil)")
	}
	if _, duel := Split(g, top, auto); !duel {
		return nil, fmt.Errorf("MapDuel: Map does not duel HM and IM on this instance (Split reports no duel)")
	}
	return mapWith(g, top, hm, &d)
}
