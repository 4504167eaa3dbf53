// Package backend defines where the data-parallel phases of the integrated
// mapper run. The orchestration (package integrated) is written once
// against this interface; package cpu implements it with goroutines over
// host memory, package cuda with CUDA kernels over device memory.
//
// Every phase is built from the same data-parallel primitives on both
// sides: parallel for over vertices or edges, reductions, prefix sums and
// atomic hashing (compare-and-swap insertion for contraction and the
// connectivity tables). Graphs and vectors stay resident on the backend
// between phases; only the coarsest graph and the final mapping cross to
// the host.
package backend

import (
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// Graph is a task graph resident on a backend.
type Graph interface {
	N() int
	// DirectedEdges is the number of adjacency entries (two per edge),
	// known without a copy: GPU-HM sizes what it downloads by it.
	DirectedEdges() int64
}

// Vector is an int32 per vertex resident on a backend.
type Vector interface {
	Len() int
}

// Backend runs the data-parallel phases of integrated mapping. A Backend
// is used by one goroutine at a time.
type Backend interface {
	// Name identifies the backend and its device ("cpu (2 threads)").
	Name() string
	UploadGraph(g *graph.Graph) (Graph, error)
	DownloadGraph(g Graph) (*graph.Graph, error)
	UploadVector(v []int32) (Vector, error)
	DownloadVector(v Vector) ([]int32, error)
	// Match returns a matching (partner or self per vertex) by two-hop
	// matching with the exp*2 rating; pairs weigh at most maxWeight.
	Match(g Graph, maxWeight int64, seed uint64) (Vector, error)
	// Contract builds the coarse graph of a matching and the
	// fine-to-coarse vertex map.
	Contract(g Graph, match Vector) (coarse Graph, cmap Vector, err error)
	// Project maps a coarse mapping to the finer graph: fine[v] =
	// coarse[cmap[v]].
	Project(cmap, coarse Vector) (Vector, error)
	// Refine runs the Jet refinement loop on the mapping pe of g (in
	// place), every PE limited to lmax.
	Refine(g Graph, pe Vector, top *topology.Topology, lmax int64, cfg refinement.JetConfig) error
	// Free releases backend memory early; values must not be used after.
	Free(values ...any)
	// Close releases the backend.
	Close() error
}

// Clusterer is a Backend that can also coarsen by size-constrained
// label-propagation clustering (coarsening.Cluster): a cluster takes as
// many vertices as its weight allows, where a matching merges two, so
// the stars around hubs of power-law graphs shrink in one level.
// integrated.Config.Cluster asks for it; a backend without it matches
// instead, which gives another mapping (the CUDA backend has it, on the
// host: a mapping must not depend on the backend).
type Clusterer interface {
	// Cluster returns the coarse graph of a clustering of g whose
	// clusters weigh at most maxWeight, and the fine-to-coarse map.
	Cluster(g Graph, maxWeight int64, seed uint64) (coarse Graph, cmap Vector, err error)
}
