package features

import (
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
)

func TestKinds(t *testing.T) {
	x := par.New(2)
	for _, c := range []struct {
		name string
		g    *graph.Graph
		want Kind
	}{
		{"grid 2D", graph.Grid(60, 60), Regular},
		{"grid 3D", graph.Grid(16, 16, 16), Regular},
		{"rgg", graph.RandomGeometric(5000, 3), Regular},
		{"power law", graph.PowerLaw(5000, 4, 5), Skewed},
		{"dense blocks", graph.DenseBlocks(80, 20, 80, 7), DenseBlocks},
		{"r-mat", graph.RMAT(13, 8, 3), Hubs},
	} {
		f := Measure(x, c.g)
		if got := f.Kind(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, f, c.want)
		}
	}
}

func TestNoEdges(t *testing.T) {
	b := graph.NewBuilder(5)
	g, _ := b.Build()
	f := Measure(par.New(1), g)
	if f.DegreeCV != 0 || f.VertexKeep != 1 || f.EdgeKeep != 1 || f.Kind() != Regular {
		t.Fatalf("graph without edges: %+v", f)
	}
}

// Hand-checked: a star with 4 leaves has degrees 4,1,1,1,1 (mean 1.6,
// standard deviation 1.2, cv 0.75); a path of 4 vertices is matched into
// 2 pairs (one edge left of 3), then into one vertex (none left).
func TestDegreeCVAndKeep(t *testing.T) {
	b := graph.NewBuilder(5)
	for v := 1; v < 5; v++ {
		b.AddEdge(0, v, 1)
	}
	star, _ := b.Build()
	if f := Measure(par.New(1), star); f.DegreeCV < 0.7499 || f.DegreeCV > 0.7501 {
		t.Fatalf("star: cv %v, want 0.75", f.DegreeCV)
	}
	path := graph.Grid(4)
	f := Measure(par.New(1), path)
	if f.VertexKeep != 0.25 || f.EdgeKeep != 0 {
		t.Fatalf("path of 4: %+v, want vertex keep 1/4, edge keep 0", f)
	}
}
