// Package devhm is hierarchical multisection on a data-parallel backend:
// the GPU-HM of the GPU process-mapping paper (its section 4.1, Algorithm
// 2). The machine's hierarchy is split top down: the whole graph into the
// groups of the top level, each group's subgraph into its children, down
// to single PEs. Every split is a multilevel edge-cut partition run where
// the graph lives (the integrated mapper's matching, contraction,
// projection and Jet loop, on a machine of a_i PEs at distance 1, where J
// is the edge cut), with the paper's adaptive imbalance (its Equation 2,
// multisection.Limits); each part's subgraph is built there too
// (backend.Multisection.Extract). Only the coarsest graph of each split
// crosses to the host, where partition.Partition gives its initial
// partition, and the mapping at the end.
//
// The result depends only on the graph, the machine, eps and the seed:
// the CPU and CUDA backends give the same mapping.
package devhm

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/multisection"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// ErrIrregular: GPU-HM places a split's parts by stride, so every group
// it splits must have children of one size.
var ErrIrregular = errors.New("GPU multisection needs a machine whose groups have children of equal size")

// Config sets the effort of GPU-HM.
type Config struct {
	Seed     uint64
	CoarsenC int // coarsen a split's graph until at most CoarsenC*a vertices remain (0: 30)
	// TopCoarsest, when larger, is the size the whole graph's split
	// coarsens to: the host partitions a coarsest graph that still shows
	// the input's shape (a few ms once), where a tiny one of a mesh sends
	// the cut of the most expensive level astray.
	TopCoarsest int
	CapDiv      int64 // coarse vertices weigh at most the block limit / CapDiv (0: 2)
	// TopTries splits the whole graph this many times (seeds differ) and
	// keeps the lowest cut, the first on ties (0: 1); Tries does so for
	// every other split (0: 1).
	TopTries, Tries int
	// SlackDepth shares eps out among the levels as
	// multisection.Config.SlackDepth does (1: the rule as published, 0:
	// every split takes all the slack left).
	SlackDepth float64
	Initial    partition.Config     // the coarsest graph's partition, on the host
	Jet        refinement.JetConfig // per level of every split
	// CoarseIterations, when > 0, replaces Jet.Iterations on the coarse
	// levels of a split: every level costs the device the same launches
	// and synchronisations per iteration however small its graph is, and
	// the finest level decides most of the cut.
	CoarseIterations int
	Progress         io.Writer // one line per split of the whole graph; nil for silence
}

// Default is GPU-HM's configuration under the default preset: the
// coarsest graphs get the default preset's partitioner, the splits share
// eps as its multisection does, and the split of the whole machine (the
// most expensive cut, one split of 55 on 4:8:6) gets 3 tries from a
// coarsest graph of 3000 vertices, as the CPU default's gets 3 tries. The
// coarse levels of a split get 2 Jet iterations without progress: their
// refinement barely moved J on the tuning graphs (geomean against the CPU
// default 1.047 at 2, 1.043 at 4, 1.046 at 12), and each costs the device
// the launches and syncs of a fine one. Ultra (the paper's
// GPU-HM-ultra, the strong preset) tries every split more often and runs
// longer Jet loops. The caller sets Seed.
var (
	Default = Config{CoarsenC: 30, TopCoarsest: 3000, CapDiv: 2, SlackDepth: 0.03, TopTries: 3, CoarseIterations: 2,
		Initial: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2, FM: refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25}}}
	Ultra = Config{CoarsenC: 30, TopCoarsest: 3000, CapDiv: 2, SlackDepth: 0.03, TopTries: 6, Tries: 2,
		Jet: refinement.JetConfig{Iterations: 24}, CoarseIterations: 8,
		Initial: partition.Config{Tries: 8, LPRounds: 2, FMRounds: 2, FM: refinement.FMConfig{Alpha: 30, SkipExplored: true, Waste: 0.25}}}
)

// Times are the host phases of one run (the rest is device work, which a
// device backend models itself) and counts.
type Times struct {
	Initial time.Duration // the coarsest graphs' partitions on the host
	Total   time.Duration
	Splits  int // partitions computed (tries included)
	Levels  int // coarsening levels, over all splits
}

// Map maps g onto top with imbalance eps on b. Host-side work (the
// coarsest graphs' partitions) uses x.
func Map(b backend.Multisection, x *par.Exec, g *graph.Graph, top *topology.Topology, eps float64, cfg Config) ([]int32, Times, error) {
	start := time.Now()
	if cfg.CoarsenC <= 0 {
		cfg.CoarsenC = 30
	}
	if cfg.CapDiv <= 0 {
		cfg.CapDiv = 2
	}
	m := &mapper{b: b, x: x, top: top, cfg: cfg, total: g.TotalVertexWeight(), maxV: g.MaxVertexWeight()}
	k := top.K()
	m.lmax = graph.Lmax(m.total, k, eps)
	m.eps = eps
	// Lmax is rounded up; with unit weights that slack is usable, as in
	// the CPU multisection.
	if unitV, _ := g.UnitWeights(); unitV && m.total > 0 {
		m.eps = max(eps, float64(m.lmax)*float64(k)/float64(m.total)-1)
	}
	dg, err := b.UploadGraph(g)
	if err != nil {
		return nil, m.tm, err
	}
	defer b.Free(dg)
	pe, err := b.NewVector(g.N())
	if err != nil {
		return nil, m.tm, err
	}
	defer b.Free(pe)
	m.pe = pe
	if err := m.rec(dg, nil, m.total, top.Root()); err != nil {
		return nil, m.tm, err
	}
	out, err := b.DownloadVector(pe)
	m.tm.Total = time.Since(start)
	return out, m.tm, err
}

type mapper struct {
	b           backend.Multisection
	x           *par.Exec
	top         *topology.Topology
	cfg         Config
	total, maxV int64
	lmax        int64
	eps         float64
	pe          backend.Vector
	tm          Times
}

// rec maps subgraph g (its vertices stand for orig's input vertices; nil
// on the input graph) of weight w onto group grp, depth first.
func (m *mapper) rec(g backend.Graph, orig backend.Vector, w int64, grp topology.Group) error {
	if g.N() == 0 {
		return nil
	}
	children := m.top.Children(grp)
	switch {
	case grp.Level == 0:
		return m.b.Place(m.pe, orig, nil, int32(grp.Lo), 0)
	case len(children) == 1:
		return m.rec(g, orig, w, children[0])
	}
	stride := children[0].Size()
	for j, c := range children {
		if c.Size() != stride || c.Lo != children[0].Lo+j*stride {
			return ErrIrregular
		}
	}
	// grp.Level splits remain, this one included.
	depth := 1 + float64(grp.Level-1)*max(m.cfg.SlackDepth, 0)
	maxW := multisection.Limits(children, grp.Size(), w, m.total, m.top.K(), m.eps, depth, m.lmax, m.maxV)
	part, err := m.split(g, grp, len(children), maxW[0])
	if err != nil {
		return err
	}
	defer m.b.Free(part)
	if grp.Level == 1 {
		return m.b.Place(m.pe, orig, part, int32(children[0].Lo), int32(stride))
	}
	for j, c := range children {
		sub, sorig, sw, err := m.b.Extract(g, orig, part, int32(j))
		if err != nil {
			return err
		}
		err = m.rec(sub, sorig, sw, c)
		m.b.Free(sub, sorig)
		if err != nil {
			return err
		}
	}
	return nil
}

// split partitions g into a blocks of at most lim each; with several
// tries the lowest cut wins (the first on ties). The result is the
// caller's to free.
func (m *mapper) split(g backend.Graph, grp topology.Group, a int, lim int64) (backend.Vector, error) {
	tries := max(m.cfg.Tries, 1)
	if grp.Size() == m.top.K() {
		tries = max(m.cfg.TopTries, 1)
	}
	var best backend.Vector
	var bestCut int64
	for t := 0; t < tries; t++ {
		seed := m.cfg.Seed*0x9e3779b97f4a7c15 ^ uint64(grp.Lo)<<8 ^ uint64(grp.Level) ^ uint64(t)<<40
		coarsest := m.cfg.CoarsenC * a
		if grp.Size() == m.top.K() {
			coarsest = max(coarsest, m.cfg.TopCoarsest)
		}
		part, err := m.partition(g, a, lim, seed, coarsest)
		if err != nil {
			if best != nil {
				m.b.Free(best)
			}
			return nil, err
		}
		if tries == 1 {
			return part, nil
		}
		cut, err := m.b.Cut(g, part, a)
		if err != nil {
			m.b.Free(part)
			if best != nil {
				m.b.Free(best)
			}
			return nil, err
		}
		if m.cfg.Progress != nil && grp.Size() == m.top.K() {
			fmt.Fprintf(m.cfg.Progress, "gpu-hm: split of the whole machine, try %d: cut %d\n", t, cut)
		}
		if best == nil || cut < bestCut {
			if best != nil {
				m.b.Free(best)
			}
			best, bestCut = part, cut
		} else {
			m.b.Free(part)
		}
	}
	return best, nil
}

// partition is one multilevel a-way edge-cut partition of g: coarsening
// where g lives (to at most coarsest vertices), the coarsest graph partitioned on the host, then
// projection and the Jet loop level by level.
func (m *mapper) partition(g backend.Graph, a int, lim int64, seed uint64, coarsest int) (backend.Vector, error) {
	b := m.b
	m.tm.Splits++
	capW := max(lim/m.cfg.CapDiv, m.maxV, 1)
	graphs := []backend.Graph{g}
	var cmaps []backend.Vector
	var dpe backend.Vector
	defer func() { // the coarse levels (not g), and dpe unless kept
		for i := len(graphs) - 1; i > 0; i-- {
			b.Free(graphs[i])
		}
		for _, c := range cmaps {
			b.Free(c)
		}
		if dpe != nil {
			b.Free(dpe)
		}
	}()
	for cur := g; cur.N() > coarsest; {
		match, err := b.Match(cur, capW, seed+uint64(len(cmaps))*0x9e37)
		if err != nil {
			return nil, err
		}
		coarse, cmap, err := b.Contract(cur, match)
		b.Free(match)
		if err != nil {
			return nil, err
		}
		if float64(coarse.N()) > 0.95*float64(cur.N()) {
			b.Free(coarse, cmap)
			break // matching stalled
		}
		graphs = append(graphs, coarse)
		cmaps = append(cmaps, cmap)
		cur = coarse
	}
	m.tm.Levels += len(cmaps)

	start := time.Now()
	cg, err := b.DownloadGraph(graphs[len(graphs)-1])
	if err != nil {
		return nil, err
	}
	maxW := make([]int64, a)
	for i := range maxW {
		maxW[i] = lim
	}
	pc := m.cfg.Initial
	pc.Seed = seed
	part := partition.Partition(m.x, cg, maxW, pc)
	m.tm.Initial += time.Since(start)
	if dpe, err = b.UploadVector(part); err != nil {
		return nil, err
	}

	flat := backend.FlatTopology(a)
	jc := m.cfg.Jet
	for i := len(cmaps); i >= 0; i-- {
		if i < len(cmaps) {
			fine, err := b.Project(cmaps[i], dpe)
			if err != nil {
				return nil, err
			}
			b.Free(dpe)
			dpe = fine
		}
		jc.Seed = seed ^ uint64(i)*0x51
		jc.Iterations = m.cfg.Jet.Iterations
		if i > 0 && m.cfg.CoarseIterations > 0 {
			jc.Iterations = m.cfg.CoarseIterations
		}
		if err := b.Refine(graphs[i], dpe, flat, lim, jc); err != nil {
			return nil, fmt.Errorf("refining level %d of a split: %w", i, err)
		}
	}
	return b.Keep(dpe)
}
