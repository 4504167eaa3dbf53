package gpumap

import (
	"math"
	"slices"

	"github.com/gpumap/gpumap/gpumap/features"
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

// strongCandidateShare is the part of strong's budget that planStrong
// gives to candidates; the V-cycles get what the plan leaves of the rest.
const strongCandidateShare = 0.5

// strongVCycle is the refinement on every level of strong's V-cycles.
// Patience stays at vcycle's 2: 6 instead changed strong's J by -0.01%
// on the 28 small fit-half instances where the chains stop before their
// budget (rome99 ... greenbea, 2k-31k edges), for 11% more CPU; there a
// local optimum of the cycles is reached within two or three cycles.
var strongVCycle = vcycle.Config{LPRounds: 2, FM: refinement.FMConfig{Rounds: 2, Alpha: 30}}

// vcycleNsPerUnit estimates the CPU time of one of vcycle.Work's units
// of a V-cycle from a mapping whose blocksPerEdgeEnd is bpe, in work
// units (ns of one core of the reference machine, see workPerEdge), with
// workMargin: the least-squares fit of the logarithm of the one-thread
// CPU time per unit on the fit half of the real corpus onto 4:8:2 and
// 4:8:6 (three cycles from default's mapping, 152 cycles at load 10-25;
// residuals 1.58x at one standard deviation, 1.70x at the 90th
// percentile, 3.5x at most: p2p-Gnutella08, whose cycles then take 1.8x
// their budget). A cycle's levels are refined by FM and label
// propagation, whose work per edge grows with the blocks next to a
// vertex, as the final J pass's does (denseTables): the mapping's spread
// explains the time better than the graph's features (degree spread,
// edge survival and k together: 1.72x, 2.1x at the 90th percentile).
func vcycleNsPerUnit(bpe float64) float64 {
	return vcycleUnitNs * math.Pow(max(bpe, 1), vcycleBPEExp) * workMargin
}

const (
	vcycleUnitNs = 208
	vcycleBPEExp = 0.49
)

// strongVCycleBudget is the budget of each V-cycle chain, in work units:
// strong's budget for a graph of m edges less the estimated wall time of
// the plan's candidates on two workers, and at least the share that
// planStrong left to the V-cycles. Default's candidates run whatever the
// budget says, and on dense social graphs their estimate alone passes it
// (CA-HepPh onto 4:8:2: 2.8e9 units for default's HM, which took 1.2 s
// of CPU), where the V-cycles gain most of the fit half (-2 to -3% J).
func strongVCycleBudget(m int64, k int, f features.Features, cands []candidate, budget int64) int64 {
	var load twoWorkerLoad
	span := int64(0)
	for _, c := range cands {
		span = load.take(work(m, k, f, c))
	}
	b := scaledBudget(m, budget)
	return max(int64(float64(b)*(1-strongCandidateShare)), b-span)
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
	units := int64(float64(budget) / vcycleNsPerUnit(blocksPerEdgeEnd(p.x, p.g, pes[order[0]], p.top.K())))
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
		cfg.Budget = units
		chains[i].st = vcycle.Run(x, p.g, p.top, chains[i].pe, maxW, cfg)
	}
	p.t.phase("v-cycles", func() {
		// Each chain on its own share of the threads; a chain's result
		// does not depend on how many it gets.
		par.Each(p.x.Threads(), len(chains), run)
	})
	best := 0
	for i, c := range chains {
		p.t.logf("strong: V-cycles from candidate %d: J %d -> %d (%d cycles, %d kept, %d of %d units)",
			c.from, c.st.Before, c.st.After, c.st.Cycles, c.st.Kept, c.st.Work, units)
		if c.st.After < chains[best].st.After {
			best = i
		}
	}
	return chains[best].from, chains[best].pe
}
