package gpumap_test

import (
	"fmt"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Map a 16x16 stencil, one task per PE, onto 8 nodes of 8 sockets with 4
// cores each: the result is the hierarchical block tiling.
func Example() {
	g := graph.Grid(16, 16)
	top, err := topology.Parse("4:8:8", "1:10:100")
	if err != nil {
		panic(err)
	}
	opt := gpumap.DefaultOptions()
	opt.Eps = 0
	res, err := gpumap.Map(g, top, opt)
	if err != nil {
		panic(err)
	}
	fmt.Println("one-to-one:", res.OneToOne, "feasible:", res.Metrics.Feasible)
	fmt.Println("node cut:", res.Metrics.CutPerLevel[2])
	// Output:
	// one-to-one: true feasible: true
	// node cut: 64
}
