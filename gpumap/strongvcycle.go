package gpumap

import (
	"slices"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/gpumap/vcycle"
)

// Strong's portfolio ends in V-cycles on J (package vcycle): the seeds
// and algorithms of the candidates move J by a few percent, and the
// V-cycles lower a mapping's J by another 0-7% (three cycles from
// default's mapping on the fit half of the real corpus: 1.1% in the
// geometric mean), where the best of more seeds hardly moves. Two chains
// of cycles run, one per worker of -t 2: from the best candidate and from
// the second best (a different local optimum), or, with one candidate,
// from the best with another seed; the lower J wins (the first chain on
// ties). Each chain stops when its counted work
// reaches the budget planStrong left (strongVCycleBudget) or after two
// cycles in a row that gained nothing.

// strongCandidateShare is the part of strong's budget that each chain of
// candidates may spend (chainBudget); the V-cycles get what the busier
// chain leaves.
const strongCandidateShare = 0.5

// strongVCycle is the refinement on every level of strong's V-cycles.
// Patience stays at vcycle's 2: 6 instead changed strong's J by -0.01%
// on the 28 small fit-half instances where the chains stop before their
// budget (rome99 ... greenbea, 2k-31k edges), for 11% more CPU; there a
// local optimum of the cycles is reached within two or three cycles.
var strongVCycle = vcycle.Config{LPRounds: 2, FM: refinement.FMConfig{Rounds: 2, Alpha: 30}}

// A V-cycle's time is vcycleUnitNs per unit of vcycle.Work (the levels'
// vertices and edges: matching, contraction, label propagation) plus
// vcycleEntryNs per connectivity entry its FM counted
// (refinement.FMConfig.Work), in work units (ns of one core of the
// reference machine, see workPerEdge), times vcycleMargin: the
// least-squares fit of the one-thread CPU time of strong's V-cycles on
// the fit half of the real corpus onto 4:8:6 (9 graphs, both chains
// together, load 30-120): residuals 1.11x at one standard deviation,
// 1.18x at most. The entry costs what it costs in the candidates' FM
// (countedPerEntry). Without the entries (the levels' size alone) the
// residuals were 1.71x, 2.6x on vibrobox, whose rows are dense; the
// model before, per unit times the mapping's blocks next to an edge's
// end to the power 0.49, was 3.5x off on p2p-Gnutella08.
// vcycleFirstEntries estimates the FM entries of a chain's first cycle,
// whose cost is not counted yet, per edge end and block next to it (the
// mapping's blocksPerEdgeEnd): its FM moves update as many entries per
// neighbour as blocks next to it. On the fit half vibrobox onto 4:8:6 (6
// blocks next to an edge's end) counted 14.2 in its first cycle. Before,
// the estimate was twice the levels' n + m, and MIT8's first cycle onto
// 4:8:6 (report half: 55 blocks, 18 entries each) ran at 21x it: 30 s of
// CPU past a 2.7M-unit budget.
const vcycleFirstEntries = 15

const (
	vcycleUnitNs  = 151.0
	vcycleEntryNs = 17.1
	vcycleMargin  = 1.2
)

// strongVCycleBudget is the budget of each V-cycle chain, in work units:
// strong's budget for a graph of m edges less the counted time of the
// busier candidate chain (spent; the V-cycles start when both chains are
// done). Default's candidates run whatever the budget says, so where they
// alone pass it no V-cycle runs.
func strongVCycleBudget(m int64, spent int64, budget int64) int64 {
	return max(0, scaledBudget(m, budget)-spent)
}

// vcycles refines the best of the candidates' mappings (pes; nil where a
// candidate failed) by the V-cycle chains and returns the winner's index
// and mapping. Only candidates' feasible mappings start chains.
func (p *pipeline) vcycles(pes [][]int32, ms []graph.Metrics, budget int64) (int, []int32) {
	var order []int
	for i, pe := range pes {
		if pe != nil && ms[i].Feasible {
			order = append(order, i)
		}
	}
	if len(order) == 0 || budget <= 0 {
		return -1, nil
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ms[a].J < ms[b].J:
			return -1
		case ms[a].J > ms[b].J:
			return 1
		}
		return 0
	})
	units := int64(float64(budget) / (vcycleUnitNs * vcycleMargin))
	// The first cycle's FM entries: vcycleFirstEntries per edge end and
	// block next to it (blocksPerEdgeEnd of the best mapping).
	bpe := blocksPerEdgeEnd(p.x, p.g, pes[order[0]], p.top.K())
	first := 2*vcycle.Work(p.g.N(), len(p.g.Adj)) +
		int64(vcycleFirstEntries*float64(len(p.g.Adj))*bpe*vcycleEntryNs/vcycleUnitNs)
	type chain struct {
		from int
		pe   []int32
		st   vcycle.Stats
	}
	chains := make([]chain, 2)
	for i := range chains {
		chains[i].from = order[min(i, len(order)-1)]
		chains[i].pe = slices.Clone(pes[chains[i].from])
	}
	maxW := p.limits()
	run := func(i int, x *par.Exec) {
		cfg := strongVCycle
		cfg.Seed = p.opt.Seed ^ 0x76637963 + uint64(i)*0x9e3779b97f4a7c15
		cfg.Budget, cfg.EntryUnits, cfg.FirstWork = units, vcycleEntryNs/vcycleUnitNs, first
		chains[i].st = vcycle.Run(x, p.g, p.top, chains[i].pe, maxW, cfg)
	}
	p.t.phase("v-cycles", func() {
		// Each chain on its own share of the threads, and a chain that
		// stops early gives its share to the other (pipeline.side); a
		// chain's result does not depend on how many it gets.
		p.side(len(chains), func(i int, x *par.Exec, _ backend.Backend) { run(i, x) })
	})
	best := 0
	for i, c := range chains {
		p.t.logf("strong: V-cycles from candidate %d: J %d -> %d (%d cycles, %d kept, %d of %d units, %d FM entries, the costliest cycle %d)",
			c.from, c.st.Before, c.st.After, c.st.Cycles, c.st.Kept, c.st.Work, units, c.st.Entries, c.st.Largest)
		if c.st.After < chains[best].st.After {
			best = i
		}
	}
	return chains[best].from, chains[best].pe
}
