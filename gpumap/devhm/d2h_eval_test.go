package devhm_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// counting is the CPU backend, counting what the device would send the
// host: every downloaded graph as the CUDA backend copies it (offsets and
// vertex weights 8 bytes each, neighbours 4, edge weights 4 or 8) and
// every downloaded vector (4 bytes an entry). The Jet loop's scalars and
// the subgraphs' totals, a few bytes per call, are not counted.
type counting struct {
	*cpu.Backend
	bytes int64
}

// countedMap maps g onto top by GPU-HM on the CPU backend (default, or
// ultra, seed 1, eps 0.03), fails t where the mapping is infeasible
// (name says which), and returns the bytes downloaded to the host.
func countedMap(t *testing.T, name string, g *graph.Graph, top *topology.Topology, ultra bool) int64 {
	t.Helper()
	cfg := devhm.Default
	if ultra {
		cfg = devhm.Ultra
	}
	cfg.Seed = 1
	b := &counting{Backend: cpu.New(0)}
	pe, _, err := devhm.Map(b, par.New(0), g, top, 0.03, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := graph.Evaluate(g, top, pe, 0.03); !m.Feasible {
		t.Errorf("%s (ultra %v): infeasible", name, ultra)
	}
	return b.bytes
}

func (c *counting) DownloadGraph(g backend.Graph) (*graph.Graph, error) {
	h, err := c.Backend.DownloadGraph(g)
	if err == nil {
		w32, w64 := h.Weights()
		c.bytes += 8*int64(h.N()+1) + 8*int64(h.N()) + 4*int64(len(h.Adj)) + 4*int64(len(w32)) + 8*int64(len(w64))
	}
	return h, err
}

func (c *counting) DownloadVector(v backend.Vector) ([]int32, error) {
	c.bytes += 4 * int64(v.Len())
	return c.Backend.DownloadVector(v)
}

// TestEvalD2H measures GPU-HM ultra's traffic to the host against issue
// 26's bound 8n + 4 MiB, onto 4:8:2 and 4:8:6, on the CPU backend (the
// device's mapping, no emulator needed). A measurement: it runs only when
// GPUMAP_HM_D2H lists graph files, rggN (N vertices, seed 1), gridXxYxZ
// or randN_D (graph.Random: N vertices of mean degree D, unit weights,
// seed 1); GPUMAP_HM_MACHINES (comma-separated) replaces the machines,
// GPUMAP_HM_PRESET=default maps with GPU-HM's default instead of ultra;
// GPUMAP_HM_VCYCLES, GPUMAP_HM_TRIES and GPUMAP_HM_TOPTRIES, when set,
// replace ultra's VCycles, Tries and TopTries.
//
//	GPUMAP_HM_D2H=rgg131072,grid64x64x64 go test ./gpumap/devhm -run TestEvalD2H -v
func TestEvalD2H(t *testing.T) {
	list := os.Getenv("GPUMAP_HM_D2H")
	if list == "" {
		t.Skip("GPUMAP_HM_D2H not set")
	}
	for _, name := range strings.Split(list, ",") {
		var g *graph.Graph
		var n, x, y, z, d int
		if k, _ := fmt.Sscanf(name, "rand%d_%d", &n, &d); k == 2 {
			g = graph.Random(n, n*d/2, 1, 1, 1)
		} else if k, _ := fmt.Sscanf(name, "rgg%d", &n); k == 1 {
			g = graph.RandomGeometric(n, 1)
		} else if k, _ := fmt.Sscanf(name, "grid%dx%dx%d", &x, &y, &z); k == 3 {
			g = graph.Grid(x, y, z)
		} else {
			var err error
			if g, err = graph.ReadFile(name); err != nil {
				t.Fatal(err)
			}
		}
		machines := []string{"4:8:2", "4:8:6"}
		if s := os.Getenv("GPUMAP_HM_MACHINES"); s != "" {
			machines = strings.Split(s, ",")
		}
		for _, h := range machines {
			top, err := topology.Parse(h, "1:10:100")
			if err != nil {
				t.Fatal(err)
			}
			b := &counting{Backend: cpu.New(0)}
			cfg := devhm.Ultra
			if os.Getenv("GPUMAP_HM_PRESET") == "default" {
				cfg = devhm.Default
			}
			if v, err := strconv.Atoi(os.Getenv("GPUMAP_HM_VCYCLES")); err == nil {
				cfg.VCycles = v
			}
			if v, err := strconv.Atoi(os.Getenv("GPUMAP_HM_TRIES")); err == nil {
				cfg.Tries = v
			}
			if v, err := strconv.Atoi(os.Getenv("GPUMAP_HM_TOPTRIES")); err == nil {
				cfg.TopTries = v
			}
			pe, tm, err := devhm.Map(b, par.New(0), g, top, 0.03, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := graph.Evaluate(g, top, pe, 0.03)
			limit := 8*int64(g.N()) + 4<<20
			t.Logf("%s n=%d %s: d2h %d bytes, %.3f of 8n + 4 MiB (%d); %d partitions; J %d", name, g.N(), h, b.bytes, float64(b.bytes)/float64(limit), limit, tm.Splits, m.J)
			if b.bytes > limit {
				t.Errorf("%s %s: %d bytes to the host, more than %d", name, h, b.bytes, limit)
			}
		}
	}
}
