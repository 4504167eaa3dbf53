package distmap

import (
	"slices"

	"github.com/gpumap/gpumap/topology"
)

// balanceRounds bounds the rebalancing rounds without progress (less
// excess) of balance, as refinement.RunJet's Iterations bound its loop.
const balanceRounds = 12

// balance moves weight out of the PEs above lmax in the mapping pe (local
// vertices and ghosts) by the distributed Jet's rebalancing (two weak
// rounds, then a strong one, as refinement.RunJet), until no PE is above
// lmax or balanceRounds rounds in a row bring no less excess; pe ends as
// the least overloaded mapping seen. Label propagation and FM keep
// balance but never restore it: a coarsest mapping above lmax (its
// vertices too heavy to balance at eps 0) stayed so on every level
// (rgg 2^18-ish, 200k vertices, onto 4:8:6 at eps 0: heaviest PE 1089 >
// Lmax 1042 at P=1..4, where gpumap map is feasible). The choices are
// the distributed Jet's (prefixes of orders over all vertices), so the
// mapping is the same at every P. Collective; only an allreduce of the
// loads where pe is balanced.
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
	weak := 0
	for idle := 0; idle < balanceRounds && best > 0; idle++ {
		strong := weak == 2
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
	// The Jet's rounds overshoot the destinations' little room near the
	// end (rgg 200k with vertex weights 1-9 onto 4:8:6 at eps 0, P=1:
	// the excess cycled through 6-8 for 60 rounds): the last rounds move
	// only what fits, so the excess never grows.
	if best > 0 {
		copy(pe, saved)
		if err := j.refresh(); err != nil {
			return err
		}
		j.fit = true
		for idle := 0; idle < balanceRounds && best > 0; idle++ {
			if err := j.Rebalance(true); err != nil {
				return err
			}
			if ex, _ := j.Excess(); ex < best {
				best, idle = ex, -1
				copy(saved, pe)
			}
		}
	}
	copy(pe, saved)
	return nil
}
