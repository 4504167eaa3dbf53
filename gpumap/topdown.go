package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/integrated"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/runstat"
	"github.com/gpumap/gpumap/topology"
	"sync/atomic"
)

// On graphs where IM clusters (degree CV >= imClusterCV: R-MAT and other
// hub graphs) it maps top-down: IM maps the graph onto the groups of the
// machine's top split alone (a one-level machine: its J is their cut),
// and each group's subgraph is then mapped onto the group's own machine
// by default's IM, whatever the preset, with the same rule inside it. On the whole machine
// IM coarsens to 30 vertices per PE, maps that graph by HM, whose top
// split cuts hubs' stars badly (R-MAT 2^16, seed 7, onto 6 groups: HM
// 340k edges cut, IM onto the 6 groups alone 155k), and its Jet loop on
// 192 blocks moves single vertices: the top cut stayed at 237k, 91% of
// J. Onto the top's groups alone IM coarsens to 30 vertices per group,
// where Jet moves whole hub stars between groups.

// topDownMinVertices is the fewest vertices that map top-down, so that no
// graph of the real corpus changes (issue 25 measures default's CPU
// there): its graphs of degree CV >= 3 have 2.6k-7.3k vertices. Mapped
// top-down (onto 4:8:{1,2,4,6}, -t 1), the fit half's (bitcoin,
// circuit_1) J fell on 6 of 8 instances (-0.4% to -6.5%, 2 the same) at
// 0.65-0.86x CPU (bitcoin onto 4:8:6), 0.86-0.96x (onto 4:8:2) and
// 0.76-1.00x (circuit_1 onto 4:8:2; 5 pairs each), the report half's
// (EVA, cplex1) J -29% to +3.1% (cplex1 onto 4:8:2 -29%, EVA onto 4:8:2
// +3.1%), but EVA's CPU rose: 0.93-1.50x onto 4:8:6 and 1.29-2.00x onto
// 4:8:2 (5 pairs of 0.06-0.1 s runs; a forest of 7k vertices: the
// groups' pipelines cost more than they save;
// bench/results-rmat-2core.txt §4). R-MAT graphs of 2^15+ ids have 20k+
// vertices.
const topDownMinVertices = 1 << 14

// HubCV is the least degree CV (features.DegreeCV) of a hub graph, which
// default's IM clusters and maps top-down (imClusterCV): distmap maps
// such graphs whole up to a size bound, as the one-process mapper's top
// split does better than its distributed levels there.
const HubCV = imClusterCV

// TopDownOnHubs reports whether preset p maps hub graphs top-down (its
// presetConfig.imClusterCV: default's alone).
func TopDownOnHubs(p Preset) bool {
	return p >= 0 && int(p) < len(presets) && presets[p].imClusterCV > 0
}

// topDown splits p's machine at its top split: the top split's groups as
// a one-level machine (their distance at that level), and the machine of
// one group (the levels below, each group the same: a regular machine);
// ok is false where there is no such split (an irregular machine, or one
// whose top split is into PEs). Levels of arity 1 below the top split
// stay in the group's machine: 1:1:6 splits into 6 groups of one PE
// each, so IM maps such a machine onto its 6 groups alone.
func topDown(top *topology.Topology) (upper, lower *topology.Topology, ok bool) {
	ar, regular := top.Arity()
	if !regular {
		return nil, nil, false
	}
	l := len(ar) - 1
	for l > 0 && ar[l] == 1 {
		l--
	}
	if l < 1 {
		return nil, nil, false
	}
	d := top.Distances()
	upper, err := topology.NewRegular([]int{ar[l]}, []int64{d[l]})
	if err != nil {
		return nil, nil, false
	}
	lower, err = topology.NewRegular(ar[:l], d[:l])
	if err != nil {
		return nil, nil, false
	}
	return upper, lower, true
}

// topDownIM maps p's graph top-down (see above) with IM's configuration
// c (tries seeds for the top, mapIM) and returns nil where it does not
// apply or its mapping is infeasible (the caller maps as before).
//
// The top split fills its groups up to about per*Lmax, so a group's own
// imbalance (subEps) can leave its PEs almost no slack; on vertex-weighted
// graphs or ones with a universal hub a group's mapping then came back
// infeasible and the whole machine was mapped by mapIM instead, at about
// 1.5x the CPU. Where that happens the top is mapped once more at half the
// imbalance, which leaves the groups slack: on the review's graphs (R-MAT
// 2^15 with a universal vertex, with vertex weights sqrt(degree), with
// random vertex and edge weights; 4:8:6) IM's J -11% to -30% against the
// fallback; R-MAT graphs without weights never retry.
func (p *pipeline) topDownIM(b backend.Backend, c integrated.Config, tries int) ([]int32, integrated.Times, error) {
	upper, lower, ok := topDown(p.top)
	// Not where PEs are at least as many as vertices (a PE holds one or
	// none): R-MAT 2^15 (21k vertices) onto 4:8:1024, mapped onto its first
	// 4:8:658 (sparseMachine), got IM's J +0.19% top-down (24.25M against
	// 24.20M). Wide machines with fewer PEs than vertices keep it: onto
	// 4:8:256 IM's J -1.7% (23.28M against 23.67M), one run each.
	if !ok || p.g.N() < topDownMinVertices || p.top.K() >= p.g.N() {
		return nil, integrated.Times{}, nil
	}
	if p.g.MaxVertexWeight() > p.lmax {
		// The group holding that vertex cannot be mapped feasibly, at any
		// top: the top and its retry were CPU spent for the mapping IM on
		// the whole machine gives (R-MAT 2^15 of vertex weights = degree
		// onto 4:8:6, -a im: 1.41-1.44x base's CPU with the retry).
		p.t.logf("integrated: not top-down: a vertex of weight %d above Lmax %d", p.g.MaxVertexWeight(), p.lmax)
		return nil, integrated.Times{}, nil
	}
	pe, tm, err := p.topDownEps(b, c, tries, upper, lower, p.opt.Eps)
	if pe != nil || err != nil {
		return pe, tm, err
	}
	p.t.logf("integrated: top-down: a group's mapping was infeasible; the top again at eps %g", p.opt.Eps/2)
	pe, tm2, err := p.topDownEps(b, c, tries, upper, lower, p.opt.Eps/2)
	tm2.Add(tm)
	if pe == nil && err == nil {
		p.t.logf("integrated: top-down: a group's mapping was infeasible again; IM on the whole machine")
	}
	return pe, tm2, err
}

// topDownEps is topDownIM with the top split mapped at imbalance topEps;
// the groups' PEs keep the whole machine's Lmax.
func (p *pipeline) topDownEps(b backend.Backend, c integrated.Config, tries int, upper, lower *topology.Topology, topEps float64) ([]int32, integrated.Times, error) {
	groups, per := upper.K(), lower.K()
	ic := c
	ic.InitialPE = nil
	part, tm, err := p.mapIMOn(b, upper, topEps, ic, tries)
	if err != nil || part == nil {
		return nil, tm, err
	}
	pe := make([]int32, p.g.N())
	blocks := partition.NewBlocks(p.g, part, groups)
	feasible := true
	// The groups run on the host, whatever b is: their time is host work
	// that the GPU backend's est_total counts (before, r15 -a im on the
	// emulated driver said est_total_ms=63 while ~1.07 s went to them).
	_, tm.Groups = runstat.Timed(func() {
		for j := range groups {
			if blocks.Size(j) == 0 {
				continue
			}
			s := blocks.Extract(j)
			var gpe []int32
			// Their FM work is p's: strong budgets by it (it counted the
			// top's alone, r15's IM 185x below IM on the whole machine).
			gpe, feasible, err = mapGroup(s.G, lower, p.opt.Seed, p.x.Threads(), p.lmax, &p.work)
			if err != nil || !feasible {
				return
			}
			for i, v := range s.Global {
				pe[v] = int32(j*per) + gpe[i]
			}
		}
	})
	if err != nil || !feasible {
		return nil, tm, err
	}
	return pe, tm, nil
}

// mapGroup maps s, the subgraph of one group of a top-down split, onto
// lower, the group's machine, as top-down maps its groups: by default's
// IM on the CPU, each PE holding at most lmax, the whole machine's Lmax
// (subEps). ok is false where the group is heavier than its PEs may hold
// or its mapping is infeasible. work, where not nil, gets its FM work
// (mapMetered).
//
// IM alone: default's HM lost every duel on R-MAT's groups, and without
// it R-MAT 2^16 seed 7 took 3.8 s of CPU instead of 5.2 s (onto 4:8:6
// and 4:8:2, the same J; bench/results-rmat-2core.txt §5). Strong maps
// hub graphs by default's IM too.
func mapGroup(s *graph.Graph, lower *topology.Topology, seed uint64, threads int, lmax int64, work *atomic.Int64) (pe []int32, ok bool, err error) {
	eps := subEps(s.TotalVertexWeight(), lower.K(), lmax)
	if eps < 0 {
		return nil, false, nil
	}
	o := Options{Preset: Default, Algorithm: Integrated, Seed: seed, Threads: threads, Backend: CPU, Eps: eps}
	r, err := mapMetered(s, lower, o, nil, work)
	if err != nil {
		return nil, false, err
	}
	return r.PE, r.Metrics.Feasible, nil
}

// subEps is the imbalance that gives a group of per PEs holding weight w
// the limit lmax per PE (graph.Lmax), at most, and at least w/per (the
// group's own average); -1 where w > per*lmax.
func subEps(w int64, per int, lmax int64) float64 {
	if w == 0 {
		// A weightless group (its vertices all of weight 0) fits any
		// limit; -1 here made distmap call Map with eps -1 (an error on
		// every rank) and the one-process mapper fall back for nothing.
		return 0
	}
	if w > int64(per)*lmax || w < 0 {
		return -1
	}
	// At most MaxEps, which Map accepts: a light group under heavy PE
	// limits then gets a tighter limit than lmax, which it still meets.
	return min(graph.EpsFor(w, per, lmax), MaxEps)
}
