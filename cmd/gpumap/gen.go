package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// cmdGen writes generated benchmark graphs: d-dimensional grids (stencil
// rank graphs), 2D random geometric graphs and R-MAT graphs (hubs and a
// long tail, like web and social graphs).
func cmdGen(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("gpumap gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("t", "grid", "graph type: grid, rgg or rmat")
	dims := fs.String("dims", "16x16", "grid extents, e.g. 32x32x32")
	n := fs.Int("n", 1<<16, "rgg: number of points; rmat: ids, rounded up to a power of two")
	ef := fs.Int("ef", 8, "rmat: edge draws per id")
	seed := fs.Uint64("s", 1, "rgg, rmat: random seed")
	out := fs.String("o", "", "output file (default stdout)")
	if err := fs.Parse(args); err != nil {
		return 0, usageError{err}
	}
	var g *graph.Graph
	switch *kind {
	case "grid":
		var ext []int
		total := int64(1)
		for _, f := range strings.Split(*dims, "x") {
			v, err := strconv.Atoi(f)
			if err != nil || v <= 0 {
				return 0, usageError{fmt.Errorf("-dims %q: extent %q is not a positive integer", *dims, f)}
			}
			total *= int64(v)
			if total > graph.MaxVertices {
				return 0, usageError{fmt.Errorf("-dims %q: too many vertices", *dims)}
			}
			ext = append(ext, v)
		}
		// A vertex has up to 2 neighbours per dimension of extent > 1.
		deg := int64(0)
		for _, v := range ext {
			if v > 1 {
				deg += 2
			}
		}
		if err := fits(total, 24+12*deg); err != nil {
			return 0, err
		}
		g = graph.Grid(ext...)
	case "rgg":
		if *n < 2 || int64(*n) > graph.MaxVertices {
			return 0, usageError{fmt.Errorf("-n %d out of range", *n)}
		}
		// About ln(n) neighbours per point, coordinates and cell order.
		if err := fits(int64(*n), 64+12*int64(math.Log(float64(*n))+1)); err != nil {
			return 0, err
		}
		g = graph.RandomGeometric(*n, *seed)
	case "rmat":
		if *n < 2 || int64(*n) > graph.MaxVertices {
			return 0, usageError{fmt.Errorf("-n %d out of range", *n)}
		}
		if *ef < 1 || *ef > 1024 {
			return 0, usageError{fmt.Errorf("-ef %d out of range (1 to 1024)", *ef)}
		}
		scale := bits.Len(uint(*n - 1))
		if int64(1)<<scale > graph.MaxVertices {
			return 0, usageError{fmt.Errorf("-n %d: 2^%d ids are too many", *n, scale)}
		}
		// Two ids per draw, ids, and the builder's arcs in both directions.
		if err := fits(int64(1)<<scale, 16+40*int64(*ef)); err != nil {
			return 0, err
		}
		g = graph.RMAT(scale, *ef, *seed)
	default:
		return 0, usageError{fmt.Errorf("unknown graph type %q (want grid, rgg or rmat)", *kind)}
	}
	if *out != "" {
		return exitOK, graph.WriteFile(*out, func(w io.Writer) error { return graph.WriteMETIS(w, g) })
	}
	return exitOK, graph.WriteMETIS(stdout, g)
}

// fits refuses a graph of n vertices needing about perVertex bytes each
// when that exceeds the memory available (MemAvailable in /proc/meminfo):
// a clear error instead of the runtime dying out of memory.
func fits(n, perVertex int64) error {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return nil // unknown: try
	}
	for _, ln := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(ln, "MemAvailable: %d kB", &kb); err == nil {
			if need := n * perVertex; need > kb<<10 {
				return fmt.Errorf("a graph of %d vertices needs about %.1f GiB, more than the %.1f GiB of memory available", n, float64(need)/(1<<30), float64(kb)/(1<<20))
			}
			return nil
		}
	}
	return nil
}
