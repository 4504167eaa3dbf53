package features

import (
	"fmt"
	"math"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// Features are the measured properties of a graph.
type Features struct {
	// DegreeCV is the coefficient of variation of the vertex degrees
	// (standard deviation over mean; 0 for a regular graph).
	DegreeCV float64
	// VertexKeep and EdgeKeep are the fractions of the vertices and of the
	// edges left after two levels of heavy-edge matching.
	VertexKeep, EdgeKeep float64
}

// Kind is the class of a graph (see the package documentation).
type Kind int

const (
	Regular Kind = iota
	Skewed
	DenseBlocks
	Hubs
)

func (k Kind) String() string {
	switch k {
	case Skewed:
		return "skewed"
	case DenseBlocks:
		return "dense-blocks"
	case Hubs:
		return "hubs"
	}
	return "regular"
}

// Thresholds of Kind (measured on generated families, see DEVELOPERS.md):
// power-law and circuit graphs have DegreeCV 1.3-2.3 and keep 63-83% of
// their edges after two levels; meshes and geometric graphs keep 19-50%,
// and in them the edges shrink at least 0.68 times as fast as the vertices
// (EdgeKeep/VertexKeep), dense-block graphs at most 0.54 times. Matching
// keeps 25-40% of the vertices on all of these, and 52-57% on R-MAT graphs,
// where most vertices hang off a few hubs and find no partner.
const (
	SkewedCV       = 1.0
	SkewedEdgeKeep = 0.55
	DenseEdgeRatio = 0.6
	HubsVertexKeep = 0.47
)

// Kind classifies the graph.
func (f Features) Kind() Kind {
	switch {
	case f.DegreeCV >= SkewedCV && f.EdgeKeep >= SkewedEdgeKeep && f.VertexKeep >= HubsVertexKeep:
		return Hubs
	case f.DegreeCV >= SkewedCV && f.EdgeKeep >= SkewedEdgeKeep:
		return Skewed
	case f.VertexKeep > 0 && f.EdgeKeep < DenseEdgeRatio*f.VertexKeep:
		return DenseBlocks
	}
	return Regular
}

func (f Features) String() string {
	return fmt.Sprintf("degree cv %.2f, two matching levels keep %.0f%% of the vertices and %.0f%% of the edges: %s",
		f.DegreeCV, 100*f.VertexKeep, 100*f.EdgeKeep, f.Kind())
}

// DegreeCV is the coefficient of variation of g's vertex degrees (0 for a
// graph without edges): the cheap first feature, which Measure computes
// before the matching.
func DegreeCV(g *graph.Graph) float64 {
	n := g.N()
	if n == 0 || len(g.Adj) == 0 {
		return 0
	}
	mean := float64(len(g.Adj)) / float64(n)
	var ss float64
	for v := 0; v < n; v++ {
		d := float64(g.XAdj[v+1]-g.XAdj[v]) - mean
		ss += d * d
	}
	return math.Sqrt(ss/float64(n)) / mean
}

// DenseDegree is the mean, over the ends of g's edges, of min(degree, k)
// (0 for a graph without edges): one pass over the degrees. Moving a
// vertex in FM updates the connection table of each neighbour, whose size
// grows with its degree up to the k blocks, so this is FM's work per edge
// on dense rows: meshes 2-8, matrices and circuits 9-50, social graphs
// 20-130 (MIT8 onto 192 PEs: 129).
func DenseDegree(g *graph.Graph, k int) float64 {
	if len(g.Adj) == 0 {
		return 0
	}
	var s float64
	for v := 0; v < g.N(); v++ {
		d := int(g.XAdj[v+1] - g.XAdj[v])
		s += float64(d) * float64(min(d, k))
	}
	return s / float64(len(g.Adj))
}

// Measure computes the features of g. Graphs without edges, or too small to
// coarsen, keep 100% of both.
func Measure(x *par.Exec, g *graph.Graph) Features {
	n := g.N()
	f := Features{VertexKeep: 1, EdgeKeep: 1}
	if n == 0 || len(g.Adj) == 0 {
		return f
	}
	f.DegreeCV = DegreeCV(g)
	// Coarse vertices up to 1% of the total weight (at least four of the
	// heaviest): the cap does not bind on two levels of matching, so the
	// ratios show the structure, not the cap.
	// The second level is counted, not built (only its size is used).
	nc, adj := coarsening.CoarsestSize(x, g, coarsening.Config{StopSize: 1, MaxLevels: 2,
		MaxWeight: max(g.TotalVertexWeight()/100, 4*g.MaxVertexWeight()), Seed: 1})
	f.VertexKeep = float64(nc) / float64(n)
	f.EdgeKeep = float64(adj) / float64(len(g.Adj))
	return f
}
