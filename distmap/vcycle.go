package distmap

import (
	"fmt"
	"sort"

	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// The V-cycle after the levels (vcycle; issue 24, FE meshes). Where the
// levels lose against the one-process mapper (wing x3 onto 4:8:6 at
// P=2, seed 1: J 409,029 against map -t 2's 375,590, 1.089x), the
// one-process mapping projected onto the coarsest graph (P=1, each
// cluster to its majority PE) costs 639,993 and overloads a PE by 16%
// (the clusters straddle its cuts), and the levels refining it from there
// end at 396,783 (1.056x): the loss is in the levels, not only in the
// coarsest mapping. Coarsening again inside the finished mapping's PEs
// lets the Jet loop and FM move whole clusters across the cuts. A cycle
// as deep as the first (stopping where a level keeps 90% of its
// vertices: 5 levels on wing x3) gained on its levels 1 and 0 only
// (409,029 -> 408,438 on levels 4-2, then 404,241 and 399,638), so the
// V-cycle coarsens once. J over seeds 1, 2, 3, 21 summed against none
// (P=2 / P=4): fit half fe_pwt x5 0.995 / 0.992, t60k x3 0.973 / 0.978;
// report half wing x3 0.983 / 0.979, fe_body x4 0.978 / 0.991, bcsstk29
// x10 0.998 / 0.991; at P=2 finan512 x2 0.986, rgg 2^20 0.994; no
// (graph, P, seed) rose. CPU at P=2 on wing x3 1.22-1.36x (3 alternating
// pairs). Jet's iterations without progress cut to 2 on both levels
// kept half the gain (wing x3 0.990, t60k x3 0.988 at P=2).
const (
	vcycleLevels = 1
	// Label-propagation rounds of the V-cycle's clustering: the clusters
	// only need to be small groups inside a PE. J summed over seeds 1,
	// 2, 3, 21 at P=2 against 4 rounds: fe_pwt x5 1.001 (1 round) / 1.002
	// (2 rounds), t60k x3 1.002 / 1.000.
	vcycleRounds = 2
	// vcycleSalt tags the V-cycle's seeds (clustering, Jet, FM), so that
	// they differ from the first cycle's on the same level.
	vcycleSalt = 0x7663796c
)

// vcycle coarsens g again with every cluster inside one PE of the mapping
// pe (local vertices, then ghosts), so that each coarse graph carries the
// mapping exactly (restrict), and refines it up the levels with the Jet
// loop and FM as mapLevels does. pe ends as the refined mapping; J never
// rises (Jet keeps the best balanced mapping of a level, the start's
// included, and FM moves only where J falls within Lmax). Collective.
func vcycle(g *Graph, top *topology.Topology, pe []int32, lmax, limit int64, opt Options, block int) error {
	ph := opt.Phases
	seed := opt.Seed ^ vcycleSalt
	var levels []*level
	cur, cpe := g, pe
	// The garbage of the levels' last FM and of the V-cycle's clustering
	// collected before the next phase allocates, and the coarse graph
	// after its level, as mapLevels does: rgg 2^20 at P=4 (seed 1, 3
	// alternating pairs) peaked at 113.5-114.6 MiB on the largest rank
	// without these collections, 82.9-86.9 MiB with them (main, without
	// the V-cycle: 82.8-84.0 MiB; gpumap map -t 1: 305 MiB); rgg 2^22 at
	// P=4 (2 runs each) 438.8-445.9 MiB without, 272.3-275.7 MiB with
	// them (main 269.4-280.2 MiB; map -t 1 1,256 MiB: issue 24 allows
	// 0.45x); the same mappings. The collection after the clustering
	// saved the most (rgg 2^20: 99 -> 85 MiB).
	collect()
	for len(levels) < vcycleLevels {
		c, err := newClustering(cur, limit, seed, len(levels), 1, block)
		if err != nil {
			return err
		}
		c.within = cpe
		if err := c.run(vcycleRounds); err != nil {
			return err
		}
		lv, err := contract(cur, c.label)
		if err != nil {
			return err
		}
		c = nil // its labels and weight tables (collected as above)
		collect()
		if lv.coarse.GlobalN() > cur.GlobalN()*9/10 {
			break
		}
		if cpe, err = restrict(cur, lv, cpe); err != nil {
			return err
		}
		levels = append(levels, lv)
		cur = lv.coarse
	}
	if err := ph.Done("vcycle coarsen"); err != nil {
		return err
	}
	for i := len(levels); i >= 0; i-- {
		fine := g
		if i > 0 {
			fine = levels[i-1].coarse
		}
		if i < len(levels) {
			var err error
			if cpe, err = projectAll(fine, levels[i], cpe[:levels[i].coarse.N()]); err != nil {
				return err
			}
			levels[i] = nil
			collect() // as above
			if err := ph.Done(fmt.Sprintf("level %d vproject", i)); err != nil {
				return err
			}
		}
		if i == 0 {
			copy(pe, cpe)
			cpe = pe
		}
		if err := trace(fine, top, cpe, opt, i, "vstart"); err != nil {
			return err
		}
		// As mapLevels refines its levels; the coarse level carries the
		// input's mapping and its loads, so it enters above Lmax (label
		// propagation instead of Jet) only where that mapping is
		// infeasible, as with a vertex heavier than Lmax.
		if err := refineLevel(fine, top, cpe, lmax, seed, i, opt, "v", false); err != nil {
			return err
		}
	}
	collect()
	return nil
}

// restrict gives each coarse vertex of lv (this rank's range, then its
// ghosts) the PE of its fine vertices in pe, which vcycle's clusters keep
// within one PE (collective).
func restrict(g *Graph, lv *level, pe []int32) ([]int32, error) {
	cg := lv.coarse
	lo, hi := cg.First(), cg.First()+int64(cg.N())
	out := make([]int32, cg.N())
	// (coarse id, PE) pairs for the other ranks' coarse vertices, grouped
	// by owner (the owners' ranges are in rank order).
	owner := func(x int64) int {
		return sort.Search(g.size, func(r int) bool { return cg.VtxDist[r+1] > x })
	}
	off := make([]int64, g.size+1)
	for v, x := range lv.up {
		if x >= lo && x < hi {
			out[x-lo] = pe[v]
		} else {
			off[owner(x)+1] += 2
		}
	}
	for r := range g.size {
		off[r+1] += off[r]
	}
	send := make([]int64, off[g.size])
	at := append([]int64(nil), off[:g.size]...)
	for v, x := range lv.up {
		if x < lo || x >= hi {
			r := owner(x)
			send[at[r]], send[at[r]+1] = x, int64(pe[v])
			at[r] += 2
		}
	}
	got, _, err := mpi.Alltoallv(g.c, send, off, g.size)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(got); i += 2 {
		out[got[i]-lo] = int32(got[i+1])
	}
	gp, err := exchange(cg, out)
	if err != nil {
		return nil, err
	}
	return append(out, gp...), nil
}
