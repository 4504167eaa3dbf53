// Package cpu is the goroutine implementation of backend.Backend: every
// phase is a sequence of parallel loops, reductions and prefix sums from
// package par over host memory.
package cpu

import (
	"fmt"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Backend runs on the host's cores.
type Backend struct {
	x *par.Exec
}

// New returns a CPU backend with the given thread count (0: all cores).
func New(threads int) *Backend { return &Backend{x: par.New(threads)} }

type hostGraph struct{ g *graph.Graph }

func (h hostGraph) N() int { return h.g.N() }

func (h hostGraph) DirectedEdges() int64 { return h.g.DirectedEdges() }

type hostVector []int32

func (h hostVector) Len() int { return len(h) }

func (b *Backend) Name() string { return fmt.Sprintf("cpu (%d threads)", b.x.Threads()) }

func (b *Backend) UploadGraph(g *graph.Graph) (backend.Graph, error) { return hostGraph{g}, nil }

func (b *Backend) DownloadGraph(g backend.Graph) (*graph.Graph, error) { return g.(hostGraph).g, nil }

func (b *Backend) UploadVector(v []int32) (backend.Vector, error) {
	return hostVector(append([]int32(nil), v...)), nil
}

func (b *Backend) DownloadVector(v backend.Vector) ([]int32, error) {
	return append([]int32(nil), v.(hostVector)...), nil
}

func (b *Backend) Match(g backend.Graph, maxWeight int64, seed uint64) (backend.Vector, error) {
	return hostVector(coarsening.TwoHop(b.x, g.(hostGraph).g, coarsening.TwoHopConfig{MaxWeight: maxWeight, Seed: seed})), nil
}

func (b *Backend) Contract(g backend.Graph, match backend.Vector) (backend.Graph, backend.Vector, error) {
	m := match.(hostVector)
	cmap, leaders := coarsening.CoarseMap(b.x, m)
	return hostGraph{coarsening.Contract(b.x, g.(hostGraph).g, m, cmap, leaders)}, hostVector(cmap), nil
}

// Cluster is coarsening.Cluster, contracted on the executor's threads;
// the clustering is sequential, so the coarse graph is the same for any
// thread count.
func (b *Backend) Cluster(g backend.Graph, maxWeight int64, seed uint64) (backend.Graph, backend.Vector, error) {
	h := g.(hostGraph).g
	cmap, gr := coarsening.ClusterMap(coarsening.Cluster(h, maxWeight, seed, nil, false))
	return hostGraph{coarsening.ContractGroups(b.x, h, cmap, gr)}, hostVector(cmap), nil
}

func (b *Backend) Project(cmap, coarse backend.Vector) (backend.Vector, error) {
	c := cmap.(hostVector)
	fine := make([]int32, len(c))
	coarsening.Project(b.x, c, coarse.(hostVector), fine)
	return hostVector(fine), nil
}

func (b *Backend) Refine(g backend.Graph, pe backend.Vector, top *topology.Topology, lmax int64, cfg refinement.JetConfig) error {
	maxW := make([]int64, top.K())
	for i := range maxW {
		maxW[i] = lmax
	}
	s := refinement.NewState(g.(hostGraph).g, top.K(), pe.(hostVector), maxW, refinement.Mapping(top))
	refinement.Jet(b.x, s, cfg)
	return nil
}

func (b *Backend) Free(...any) {}

func (b *Backend) Close() error { return nil }

var (
	_ backend.Backend   = (*Backend)(nil)
	_ backend.Clusterer = (*Backend)(nil)
)
