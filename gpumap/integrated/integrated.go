package integrated

import (
	"fmt"
	"io"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/multisection"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/gpumap/runstat"
	"github.com/gpumap/gpumap/topology"
)

// Config sets the effort of IM.
type Config struct {
	Seed     uint64
	CoarsenC int                 // coarsen until at most CoarsenC*k vertices remain (0: 8)
	CapDiv   int64               // coarse vertices weigh at most Lmax/CapDiv (0: 2)
	Initial  multisection.Config // mapping of the coarsest graph; Eps and Seed are set here
	Jet      refinement.JetConfig
	// Cluster coarsens by size-constrained label-propagation clustering
	// where the backend can (backend.Clusterer: the CPU, and the CUDA
	// backend on the host), instead of two-hop matching. The caller sets
	// it on power-law graphs, where it measured J lower at less CPU (see
	// the default preset).
	Cluster  bool
	Progress io.Writer // per-phase times; nil for silence
	// InitialPE, when not nil on a graph that Map does not coarsen
	// (Uncoarsened), is the mapping that Initial's multisection computes
	// for it: the caller computed it already (the default preset's HM
	// candidate runs that multisection too), so Map refines it instead.
	InitialPE []int32
}

// Uncoarsened reports whether Map maps g onto top without coarsening it:
// g has at most CoarsenC vertices per PE and the machine is not truncated
// (Stages), so the multisection of Initial maps g itself.
func (c Config) Uncoarsened(g *graph.Graph, top *topology.Topology) bool {
	return c.Initial.Wide.Stages(g.N(), top) == nil && g.N() <= c.coarsenC()*top.K()
}

// coarsenC is CoarsenC, 0 meaning 8.
func (c Config) coarsenC() int {
	if c.CoarsenC == 0 {
		return 8
	}
	return c.CoarsenC
}

// Phase times of one run. Initial includes the coarsest graph's trip to
// the host and back; InitialHost is the host's own work in it (the
// multisection), which a device model does not cover, as it would take
// alone on the machine (runstat.Timed: other processes' load taken out).
type Times struct {
	Coarsen, Initial, Uncoarsen time.Duration
	InitialHost                 time.Duration
	// SplitHost is the host's splits of groups into smaller groups and
	// PEs on wide machines (multisection.FillGroups), measured as
	// InitialHost is.
	SplitHost time.Duration
	// Groups is the host's mappings of the top split's groups where the
	// caller maps top-down (gpumap's topDownIM), measured as InitialHost
	// is; integrated.Map leaves it 0.
	Groups time.Duration
	// Free is the release of the device's graphs and maps after the
	// final download: on the real H200 the rgg 2^22 mapping took 13-17 ms
	// more than its three phases, a cost that no phase and no model
	// counted.
	Free   time.Duration
	Levels int
}

// Add adds o's phase times to t's (the levels stay t's): the times of
// several mappings, as of several seeds.
func (t *Times) Add(o Times) {
	t.Coarsen += o.Coarsen
	t.Initial += o.Initial
	t.Uncoarsen += o.Uncoarsen
	t.InitialHost += o.InitialHost
	t.SplitHost += o.SplitHost
	t.Groups += o.Groups
	t.Free += o.Free
}

// Map computes a mapping of g onto top with imbalance eps on backend b.
// Host-side work (the coarsest graph's multisection) uses x.
func Map(b backend.Backend, x *par.Exec, g *graph.Graph, top *topology.Topology, eps float64, cfg Config) (out []int32, tm Times, err error) {
	cfg.CoarsenC = cfg.coarsenC()
	if cfg.CapDiv == 0 {
		cfg.CapDiv = 2
	}
	k := top.K()
	lmax := graph.Lmax(g.TotalVertexWeight(), k, eps)
	maxW := max(lmax/cfg.CapDiv, g.MaxVertexWeight(), 1)
	// Wide machines (k close to n) are truncated (multisection.Stages):
	// the coarse levels map onto the machine above bottom groups that hold
	// many vertices (the coarser the graph, the larger: CoarseStage), so
	// that the graph coarsens below n and the host maps a small graph; as
	// the graph gets finer the groups are split into smaller groups, on
	// the input graph down to PEs, each stage refined on its machine.
	stages := cfg.Initial.Wide.Stages(g.N(), top)
	wide := stages != nil
	var tr multisection.Truncation
	if wide {
		tr = stages[0]
	}
	coarseTop, coarseLmax, stop := top, lmax, cfg.CoarsenC*k
	if wide {
		coarseTop, coarseLmax = tr.Top, tr.TopLmax(lmax)
		stop = max(cfg.Initial.Wide.CoarsenC, 1) * tr.Top.K()
		maxW = max(coarseLmax/max(cfg.Initial.Wide.CapDiv, 1), g.MaxVertexWeight(), 1)
	}

	start := time.Now()
	dg, err := b.UploadGraph(g)
	if err != nil {
		return nil, tm, err
	}
	graphs := []backend.Graph{dg}
	var cmaps []backend.Vector
	var dpe backend.Vector
	defer func() { // everything, the input graph last
		start := time.Now()
		defer func() { tm.Free = time.Since(start) }()
		for i := len(graphs) - 1; i >= 0; i-- {
			b.Free(graphs[i])
		}
		for _, c := range cmaps {
			b.Free(c)
		}
		if dpe != nil {
			b.Free(dpe)
		}
	}()
	clusterer, cluster := b.(backend.Clusterer)
	cluster = cluster && cfg.Cluster
	for cur := dg; cur.N() > stop; {
		seed := cfg.Seed + uint64(len(cmaps))*0x9e37
		coarse, cmap, err := coarsen(b, clusterer, cluster, cur, maxW, seed)
		if err != nil {
			return nil, tm, err
		}
		if float64(coarse.N()) > 0.95*float64(cur.N()) {
			b.Free(coarse, cmap)
			break // matching stalled
		}
		graphs = append(graphs, coarse)
		cmaps = append(cmaps, cmap)
		cur = coarse
	}
	tm.Coarsen = time.Since(start)
	tm.Levels = len(cmaps)

	start = time.Now()
	coarsest, err := b.DownloadGraph(graphs[len(graphs)-1])
	if err != nil {
		return nil, tm, err
	}
	ic := cfg.Initial
	ic.Eps, ic.Seed = eps, cfg.Seed
	var pe []int32
	if wide {
		tr = cfg.Initial.Wide.CoarseStage(coarsest.N(), top, stages[0])
		coarseTop, coarseLmax = tr.Top, tr.TopLmax(lmax)
	}
	_, tm.InitialHost = runstat.Timed(func() {
		if wide {
			_, shared := multisection.Slack(g, k, eps)
			pe = multisection.MapTop(x, coarsest, tr, g.TotalVertexWeight(), lmax, shared, ic)
		} else if cfg.InitialPE != nil && len(cmaps) == 0 && cfg.Uncoarsened(g, top) {
			pe = cfg.InitialPE
		} else {
			pe = multisection.Map(x, coarsest, top, ic)
		}
	})
	if dpe, err = b.UploadVector(pe); err != nil {
		return nil, tm, err
	}
	tm.Initial = time.Since(start)

	start = time.Now()
	// split splits the groups of stage from into those of stage to on
	// level i, on the host (a coarse level's graph makes the trip, a small
	// one): by the partitioner a group at a time on a coarse level where
	// the children lie one machine level below (WideConfig.Split), else
	// linear, FillGroups.
	// within reports whether every PE of the split is within lmax (set
	// by split on its way to the whole machine, to.Size 1).
	within := false
	split := func(i int, from, to multisection.Truncation) error {
		host := g
		if i > 0 {
			var err error
			if host, err = b.DownloadGraph(graphs[i]); err != nil {
				return err
			}
		}
		group, err := b.DownloadVector(dpe)
		if err != nil {
			return err
		}
		var fine []int32
		sub := from.Within(to)
		_, d := runstat.Timed(func() {
			if sc := cfg.Initial.Wide.Split; sc.Tries > 0 && i > 0 && sub.Bottom == 1 {
				sc.Seed = cfg.Seed ^ uint64(i)*0x5b1
				fine = multisection.PartitionGroups(x, host, sub, group, to.TopLmax(lmax), sc)
			} else {
				fine = multisection.FillGroups(x, host, to.Top, sub, group)
			}
			if to.Size == 1 {
				limits := make([]int64, to.Top.K())
				for p := range limits {
					limits[p] = lmax
				}
				within = refinement.NewState(host, to.Top.K(), fine, limits, refinement.Mapping(to.Top)).Excess() == 0
			}
		})
		tm.SplitHost += d
		b.Free(dpe)
		dpe = nil
		dpe, err = b.UploadVector(fine)
		return err
	}
	jc := cfg.Jet
	for i := len(cmaps); i >= 0; i-- {
		if i < len(cmaps) {
			fine, err := b.Project(cmaps[i], dpe)
			if err != nil {
				return nil, tm, err
			}
			b.Free(dpe)
			dpe = fine
		}
		if wide {
			// Finer graphs, smaller groups (CoarseStage); the input graph
			// starts at the first stage.
			next := stages[0]
			if i > 0 {
				next = cfg.Initial.Wide.CoarseStage(graphs[i].N(), top, stages[0])
			}
			if next.Bottom < tr.Bottom {
				if err := split(i, tr, next); err != nil {
					return nil, tm, err
				}
				tr = next
				coarseTop, coarseLmax = tr.Top, tr.TopLmax(lmax)
			}
		}
		jc.Seed = cfg.Seed ^ uint64(i)*0x51
		if err := b.Refine(graphs[i], dpe, coarseTop, coarseLmax, jc); err != nil {
			return nil, tm, fmt.Errorf("refining level %d: %w", i, err)
		}
	}
	for s := 1; s < len(stages); s++ {
		// The groups into the next stage's groups, and at last into PEs,
		// each stage refined by the Jet loop.
		st := stages[s]
		if err := split(0, stages[s-1], st); err != nil {
			return nil, tm, err
		}
		if st.Size == 1 && within && cfg.Initial.Wide.SkipPEJet {
			// Every PE within lmax: the whole machine's Jet loop moved
			// nothing on any instance measured (WideConfig.SkipPEJet).
			break
		}
		jc.Seed = cfg.Seed ^ 0x5117 ^ uint64(s)
		if err := b.Refine(dg, dpe, st.Top, st.TopLmax(lmax), jc); err != nil {
			return nil, tm, fmt.Errorf("refining stage %d: %w", s, err)
		}
	}
	out, err = b.DownloadVector(dpe)
	tm.Uncoarsen = time.Since(start)
	return out, tm, err
}

// coarsen is one level of Map's coarsening: clustering where cluster is
// set (c is then b's Clusterer), else two-hop matching and contraction.
func coarsen(b backend.Backend, c backend.Clusterer, cluster bool, g backend.Graph, maxW int64, seed uint64) (backend.Graph, backend.Vector, error) {
	if cluster {
		return c.Cluster(g, maxW, seed)
	}
	match, err := b.Match(g, maxW, seed)
	if err != nil {
		return nil, nil, err
	}
	defer b.Free(match)
	return b.Contract(g, match)
}
