package partition

import (
	"fmt"
	"testing"

	"github.com/gpumap/gpumap/gpumap/coarsening"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/gpumap/refinement"
)

func TestZZCoarse(t *testing.T) {
	coarsening.GreedyTieMode = 2
	coarsening.NaturalOrder = true
	n := 512
	g := graph.Grid(n, n)
	x := par.New(1)
	total := int64(n * n)
	stop := 160
	capW := 3 * total / int64(2*stop)
	levels := coarsening.Coarsen(x, g, coarsening.Config{StopSize: stop, MaxWeight: capW, Seed: 1})
	// straight partition: first half of rows.
	part := make([]int32, n*n)
	for v := range part {
		if v >= n*n/2 {
			part[v] = 1
		}
	}
	o := refinement.Cut()
	cur := g
	for li, l := range levels {
		// majority vote per coarse vertex
		votes := make([]int64, 2*l.Graph.N())
		for v := 0; v < cur.N(); v++ {
			votes[2*l.CMap[v]+part[v]] += cur.VW[v]
		}
		cp := make([]int32, l.Graph.N())
		var w0 int64
		for c := range cp {
			if votes[2*c+1] > votes[2*c] {
				cp[c] = 1
			} else {
				w0 += l.Graph.VW[c]
			}
		}
		mv := l.Graph.MaxVertexWeight()
		if li%3 == 0 || li == len(levels)-1 {
			fmt.Printf("level %d n=%d maxvw=%d projected cut %d w0=%d\n", li, l.Graph.N(), mv, o.Cost(l.Graph, cp), w0)
		}
		part, cur = cp, l.Graph
	}
	lim := graph.Lmax(total, 2, 0.01) + cur.MaxVertexWeight()
	DebugLevels = true
	p := flatBisect(cur, [2]int64{lim, lim}, 32, refinement.FMConfig{}, 1)
	fmt.Println("\nflat on coarsest:", o.Cost(cur, p))
	// FM from the projected straight partition
	s := refinement.NewState(cur, 2, part, []int64{lim, lim}, o)
	refinement.NewFM(s, refinement.FMConfig{Seeds: cur.N(), Alpha: 100, Rounds: 10}).Run(s.Cost())
	fmt.Println("FM from projected:", s.Cost(), s.BW)
}
