package backend

import (
	"sync"

	"github.com/gpumap/gpumap/topology"
)

// Multisection is what hierarchical multisection on a backend (package
// devhm, the GPU-HM of the paper) needs beyond the phases of integrated
// mapping: the graph of one level of the machine built where the graph
// lives (the input without the edges between the groups of the level
// above, so that one pass of every phase splits all of the level's
// groups), parts carried through contractions, and block weights, so
// that no graph crosses to the host but the small coarsest ones.
type Multisection interface {
	Backend
	// Restrict returns g without its edges between vertices of different
	// parts: the same vertices, ids and weights, the kept edges in g's
	// order with weights in g's form.
	Restrict(g Graph, part Vector) (Graph, error)
	// Weights returns the total vertex weight of each of the k parts of g.
	Weights(g Graph, part Vector, k int) ([]int64, error)
	// Place sets pe[orig[v]] = base + stride*part[v] for every v (orig
	// nil: v itself; part nil: 0): with orig a coarse map, it carries a
	// part to the coarse graph.
	Place(pe, orig, part Vector, base, stride int32) error
	// Keep returns a copy of v that no later phase overwrites (Project's
	// results are reused).
	Keep(v Vector) (Vector, error)
	// NewVector returns a vector of n zeros.
	NewVector(n int) (Vector, error)
	// Cut is the edge cut of the partition part of g into k blocks.
	Cut(g Graph, part Vector, k int) (int64, error)
}

// FlatTopology is the machine of k PEs at distance 1, on which J is the
// edge cut: GPU-HM refines its splits with the Jet loop on it. One value
// per k, so that a backend keeps its per-machine arrays of refinement
// from one split to the next.
func FlatTopology(k int) *topology.Topology {
	flatMu.Lock()
	defer flatMu.Unlock()
	if t, ok := flat[k]; ok {
		return t
	}
	t, err := topology.NewRegular([]int{k}, []int64{1})
	if err != nil {
		panic(err) // any k >= 1 makes a machine
	}
	flat[k] = t
	return t
}

var (
	flatMu sync.Mutex
	flat   = map[int]*topology.Topology{}
)
