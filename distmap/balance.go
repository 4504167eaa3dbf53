package distmap

import (
	"slices"

	"github.com/gpumap/gpumap/topology"
)

// balanceRounds bounds the rebalancing rounds without progress (less
// excess) of balance, as refinement.RunJet's Iterations bound its loop.
const balanceRounds = 12

// balance moves weight out of the PEs above lmax in the mapping pe (local
// vertices and ghosts) by the distributed Jet's rebalancing, until no PE
// is above lmax or balanceRounds rounds in a row bring no less excess;
// pe ends as the least overloaded mapping seen. Label propagation and FM
// keep balance but never restore it: a coarsest mapping above lmax (its
// vertices too heavy to balance at eps 0) stayed so on every level (rgg
// 200k onto 4:8:6 at eps 0: heaviest PE 1089 > Lmax 1042 at P=1..4,
// where gpumap map is feasible). The choices are the distributed Jet's
// (prefixes of orders over all vertices): from a given mapping, balance
// moves the same vertices at every P. Collective; only an allreduce of
// the loads where pe is balanced (the mapping is then unchanged).
//
// First rounds that move a vertex only where it fits below lmax, and
// only what the destinations accept (distJet.fit), so that the excess
// never grows; where they stall, the Jet's own (two weak rounds, then a
// strong one, as refinement.RunJet), which may overshoot a destination,
// then fitting rounds again. Starting with the Jet's rounds cost J at eps
// 0 onto 4:8:6 (rgg 200k P=2 565k against 524k, P=4 656k against 598k;
// with vertex weights 1-9 P=2 849k against 651k; gpumap map -t 1 on rgg
// 200k 526k), and near the end they overshot the little room left (the
// weighted rgg's excess cycled at 6-8 for 60 rounds at P=1).
func balance(g *Graph, top *topology.Topology, pe []int32, lmax int64, seed uint64) error {
	n, all := g.N(), len(pe)
	j := &distJet{g: g, top: top, labels: top.Labels(), lmax: lmax, seed: seed, pe: pe,
		bw: make([]int64, top.K()), cand: make([]bool, all), dest: make([]int32, all), gain: make([]int64, all),
		locked: make([]bool, n), moved: make([]bool, n)}
	if err := j.loads(); err != nil {
		return err
	}
	best, _ := j.Excess()
	if best == 0 {
		return nil
	}
	j.r.setRange(0, top.K())
	j.pr.use(top, j.labels)
	saved := slices.Clone(pe)
	// rounds runs rebalancing rounds from the best mapping seen (fit:
	// fitting ones) while one in balanceRounds lowers the excess.
	rounds := func(fit bool) error {
		copy(pe, saved)
		if err := j.refresh(); err != nil {
			return err
		}
		j.fit = fit
		weak := 0
		for idle := 0; idle < balanceRounds && best > 0; idle++ {
			strong := fit || weak == 2
			if strong {
				weak = 0
			} else {
				weak++
			}
			if err := j.Rebalance(strong); err != nil {
				return err
			}
			if ex, _ := j.Excess(); ex < best {
				best, idle = ex, -1
				copy(saved, pe)
			}
		}
		return nil
	}
	for _, fit := range []bool{true, false, true} {
		if best == 0 {
			break
		}
		if err := rounds(fit); err != nil {
			return err
		}
	}
	copy(pe, saved)
	return nil
}
