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

// Hand-checked: the star with 4 leaves has edge ends of degree 4 (four of
// them) and 1 (four): min(d, k) averages (4*4 + 4*1)/8 = 2.5 for k >= 4,
// (4*2 + 4*1)/8 = 1.5 for k = 2.
func TestDenseDegree(t *testing.T) {
	b := graph.NewBuilder(5)
	for v := 1; v < 5; v++ {
		b.AddEdge(0, v, 1)
	}
	star, _ := b.Build()
	for _, c := range []struct {
		k    int
		want float64
	}{{64, 2.5}, {4, 2.5}, {2, 1.5}} {
		if got := DenseDegree(star, c.k); got != c.want {
			t.Errorf("star, k=%d: %v, want %v", c.k, got, c.want)
		}
	}
	empty, _ := graph.NewBuilder(3).Build()
	if got := DenseDegree(empty, 8); got != 0 {
		t.Errorf("no edges: %v", got)
	}
}
