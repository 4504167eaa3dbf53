package graph

import (
	"fmt"
	"io"

	"github.com/gpumap/gpumap/topology"
)

// WriteMetrics prints m as the commands do (gpumap map and eval,
// gpumap-mpi map), one key=value per line, so that scripts read them all
// the same way.
func WriteMetrics(w io.Writer, m Metrics) {
	fmt.Fprintf(w, "J=%d\ncut=%d\ncut_per_level=%s\nmax_block=%d\nlmax=%d\nimbalance=%.4f\nfeasible=%v\n",
		m.J, m.Cut, topology.FormatInts(m.CutPerLevel), m.MaxBlock, m.Lmax, m.Imbalance, m.Feasible)
}
