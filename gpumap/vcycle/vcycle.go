// Package vcycle improves a finished mapping by V-cycles on J: the graph
// is coarsened again with the mapping as a constraint (only vertices on
// the same PE are matched, so the mapping projects exactly onto every
// coarse level and J is the same there), and on the way back up every
// level is refined by label propagation and localized k-way FM on J.
// Coarse vertices are clusters of the mapping's PEs, so their moves shift
// whole regions between PEs, which single-vertex moves on the input graph
// (the final J pass of the pipelines) cannot do without passing through
// worse mappings. A cycle is kept only when it lowers J.
//
// Everything is counted, never timed: the cycles stop when the next one
// would pass the budget of work units (the edges and vertices of every
// level visited, a deterministic count), so the result is the same for
// any thread count and load.
package vcycle

import (
	"sync/atomic"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Config tunes Run.
type Config struct {
	Seed uint64
	// Budget bounds the counted work of all cycles (Work's units); a cycle
	// starts only while the work so far plus the last cycle's fits it.
	Budget int64
	// MaxCycles bounds the cycles (0: no bound but the budget).
	MaxCycles int
	// Patience: the cycles stop after this many in a row that did not
	// lower J (0: 2). Each cycle draws a new matching order, so a failed
	// cycle says little about the next; two in a row say the mapping is
	// a local optimum of this neighbourhood.
	Patience int
	// LPRounds: label propagation rounds on J on every level before FM.
	LPRounds int
	// FM refines every level on J.
	FM refinement.FMConfig
	// WeightDiv caps a coarse vertex at Lmax/WeightDiv (0: 4): heavier
	// clusters would rarely fit into another PE.
	WeightDiv int64
	// PerPE: coarsening stops at PerPE vertices per PE (0: 4).
	PerPE int
	// EntryUnits is the work charged per connectivity entry the levels'
	// FM built or updated (refinement.FMConfig.Work), in Work's units
	// (0: FM is not charged). On hub rows a move updates a whole
	// neighbourhood, which the levels' sizes do not tell.
	EntryUnits float64
	// FirstWork, when > 0, is the first cycle's estimated work (0: twice
	// the finest level's Work); the later cycles are estimated by the last
	// one's counted work.
	FirstWork int64
}

// Stats says what Run did.
type Stats struct {
	Cycles, Kept  int
	Before, After int64 // J
	Work          int64 // counted work units, Entries' share included
	Entries       int64 // connectivity entries the levels' FM counted
	Largest       int64 // the work of the costliest cycle
}

// Work is the counted cost of refining a graph of n vertices and m edges
// (each direction counted) once: every level of a cycle is matched,
// contracted and refined, each pass linear in n + m.
func Work(n, m int) int64 { return int64(n) + int64(m) }

// Run refines pe, a feasible mapping of g onto top whose PEs weigh at
// most maxW, by V-cycles and returns what they did. pe is changed only
// by cycles that lowered J; an infeasible mapping is left as it is.
func Run(x *par.Exec, g *graph.Graph, top *topology.Topology, pe []int32, maxW []int64, cfg Config) Stats {
	k := top.K()
	obj := refinement.Mapping(top)
	j := obj.CostParallel(x, g, pe)
	st := Stats{Before: j, After: j}
	if refinement.NewState(g, k, pe, maxW, obj).Overloaded() > 0 {
		return st
	}
	patience := cfg.Patience
	if patience <= 0 {
		patience = 2
	}
	div := cfg.WeightDiv
	if div <= 0 {
		div = 4
	}
	perPE := cfg.PerPE
	if perPE <= 0 {
		perPE = 4
	}
	minW := maxW[0]
	for _, w := range maxW {
		minW = min(minW, w)
	}
	// The first cycle's work is not known before it ran: its finest level
	// and a geometric series of coarser ones, unless the caller knows more.
	next := 2 * Work(g.N(), len(g.Adj))
	if cfg.FirstWork > 0 {
		next = cfg.FirstWork
	}
	cur := make([]int32, len(pe))
	failed := 0
	for c := 0; (cfg.MaxCycles <= 0 || c < cfg.MaxCycles) && st.Work+next <= cfg.Budget && failed < patience; c++ {
		copy(cur, pe)
		seed := cfg.Seed + uint64(c)*0x9e3779b97f4a7c15
		nj, w, e := cycle(x, g, k, cur, maxW, obj, j, seed, minW/div, perPE*k, cfg)
		st.Cycles++
		st.Work += w
		st.Entries += e
		st.Largest = max(st.Largest, w)
		next = w
		if nj < j {
			copy(pe, cur)
			j = nj
			st.Kept++
			failed = 0
		} else {
			failed++
		}
	}
	st.After = j
	return st
}

// hierarchy coarsens g with part as the constraint: a coarse vertex is
// a cluster of one block, Level.Block its block, so part projects exactly
// onto every level (J and the block weights are the same on all).
func hierarchy(x *par.Exec, g *graph.Graph, part []int32, seed uint64, maxWeight int64, stop int) []coarsening.Level {
	return coarsening.Coarsen(x, g, coarsening.Config{StopSize: stop, MaxWeight: max(maxWeight, 1),
		Block: part, Seed: seed})
}

// cycle runs one V-cycle on part, whose J is j, and returns the new J
// (computed from scratch, not from the refiners' gains), the counted
// work and the FM's counted entries (charged in the work).
func cycle(x *par.Exec, g *graph.Graph, k int, part []int32, maxW []int64, obj refinement.Objective,
	j int64, seed uint64, maxWeight int64, stop int, cfg Config) (int64, int64, int64) {
	levels := hierarchy(x, g, part, seed, maxWeight, stop)
	work := Work(g.N(), len(g.Adj))
	for _, l := range levels {
		work += Work(l.Graph.N(), len(l.Graph.Adj))
	}
	var entries atomic.Int64
	refine := func(lg *graph.Graph, p []int32, at int) {
		s := refinement.NewState(lg, k, p, maxW, obj)
		lvSeed := seed ^ uint64(at+1)*0xbf58476d1ce4e5b9
		if cfg.LPRounds > 0 {
			if lg.N() >= refinement.ParallelFMMin {
				j -= refinement.LabelPropagationParallel(x, s, cfg.LPRounds, lvSeed)
			} else {
				j -= refinement.LabelPropagation(s, cfg.LPRounds, lvSeed)
			}
		}
		fm := cfg.FM
		fm.Seed, fm.Work = lvSeed, &entries
		j -= refinement.RunFMParallel(x, s, fm, j)
	}
	if len(levels) > 0 {
		cur := append([]int32(nil), levels[len(levels)-1].Block...)
		for at := len(levels) - 1; at >= 0; at-- {
			refine(levels[at].Graph, cur, at+1)
			fine := part
			if at > 0 {
				fine = make([]int32, levels[at-1].Graph.N())
			}
			coarsening.Project(x, levels[at].CMap, cur, fine)
			cur = fine
		}
	}
	refine(g, part, 0)
	e := entries.Load()
	return obj.CostParallel(x, g, part), work + int64(float64(e)*cfg.EntryUnits), e
}
