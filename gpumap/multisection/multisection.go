package multisection

import (
	"math"
	"sync"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/partition"
	"github.com/gpumap/gpumap/topology"
)

// Config controls Map.
type Config struct {
	Eps       float64
	Seed      uint64
	Partition partition.Config
}

// Map returns a PE for every vertex of g.
func Map(x *par.Exec, g *graph.Graph, top *topology.Topology, cfg Config) []int32 {
	m := &mapper{x: x, top: top, cfg: cfg, total: g.TotalVertexWeight(),
		sem: make(chan struct{}, x.Threads())}
	m.lmax = graph.Lmax(m.total, top.K(), cfg.Eps)
	pe := make([]int32, g.N())
	global := make([]int32, g.N())
	for i := range global {
		global[i] = int32(i)
	}
	m.rec(g, global, top.Root(), pe)
	m.wg.Wait()
	return pe
}

type mapper struct {
	x     *par.Exec
	top   *topology.Topology
	cfg   Config
	total int64
	lmax  int64
	sem   chan struct{}
	wg    sync.WaitGroup
}

// Limits returns the block limits for splitting a subgraph of weight w that
// lives on group grp into grp's children, following the adaptive imbalance
// rule; depth is the number of splits still to come, this one included.
func Limits(children []topology.Group, grpSize int, w, total int64, k int, eps float64, depth int, lmax int64) []int64 {
	epsP := 0.0
	if w > 0 {
		epsP = math.Pow((1+eps)*float64(grpSize)*float64(total)/(float64(k)*float64(w)), 1/float64(depth)) - 1
	}
	epsP = max(epsP, 0)
	maxW := make([]int64, len(children))
	for j, c := range children {
		share := float64(w) * float64(c.Size()) / float64(grpSize)
		lim := int64(math.Floor((1 + epsP) * share * (1 + 1e-12)))
		lim = max(lim, int64(math.Ceil(share*(1-1e-12))))
		maxW[j] = min(lim, lmax*int64(c.Size()))
	}
	return maxW
}

func (m *mapper) rec(g *graph.Graph, global []int32, grp topology.Group, pe []int32) {
	if g.N() == 0 {
		return
	}
	if grp.Level == 0 {
		for _, v := range global {
			pe[v] = int32(grp.Lo)
		}
		return
	}
	children := m.top.Children(grp)
	if len(children) == 1 {
		m.rec(g, global, children[0], pe)
		return
	}
	// grp.Level splits remain, this one included.
	maxW := Limits(children, grp.Size(), g.TotalVertexWeight(), m.total, m.top.K(), m.cfg.Eps, grp.Level, m.lmax)
	pc := m.cfg.Partition
	pc.Seed = m.cfg.Seed*0x9e3779b97f4a7c15 ^ uint64(grp.Lo)<<8 ^ uint64(grp.Level)
	part := partition.Partition(m.x, g, maxW, pc)
	if grp.Level == 1 {
		for i, v := range global {
			pe[v] = int32(children[part[i]].Lo)
		}
		return
	}
	subs := partition.Split(g, part, len(children))
	for j := range children {
		sub, child := subs[j], children[j]
		gl := make([]int32, len(sub.Global))
		for i, v := range sub.Global {
			gl[i] = global[v]
		}
		select {
		case m.sem <- struct{}{}:
			m.wg.Add(1)
			go func() {
				defer m.wg.Done()
				m.rec(sub.G, gl, child, pe)
				<-m.sem
			}()
		default:
			m.rec(sub.G, gl, child, pe)
		}
	}
}
