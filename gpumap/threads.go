package gpumap

import (
	"fmt"
	"runtime"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// defaultSerialMaxVertices: graphs of fewer vertices map on one thread
// under the fast and default presets, whatever Options.Threads says
// (issue 25). It is the default of refinement.ParallelFMMin, where the FM
// searches (most of a mapping's CPU) start to run in parallel; below it a
// second thread only runs whole sub-problems side by side (HM beside IM,
// the top split's tries), which on the corpus's fit half (every graph
// below it) bought no wall time worth its CPU: -t 2 took 1.05-1.42x the
// CPU of -t 1 (1.15x summed). DEVELOPERS.md ("How many threads a mapping
// uses") has the numbers.
const defaultSerialMaxVertices = refinement.DefaultParallelFMMin

// serialMaxVertices is defaultSerialMaxVertices; the package's tests set
// it to 0 (TestMain) so that their small graphs keep running the parallel
// paths, and back where they test the rule.
var serialMaxVertices = defaultSerialMaxVertices

// MappingThreads is the number of threads Map maps g onto top with under
// opt: opt.Threads (0: all cores, GOMAXPROCS), except that the fast and
// default presets map graphs of fewer than defaultSerialMaxVertices
// vertices on one thread. The mapping is the same on any thread count,
// so only the time changes. Strong keeps its threads: it spends a wall
// budget, which its two chains share. One-to-one instances (rank
// reordering) keep theirs too: their candidates run side by side, and
// what a second thread buys there was not measured. A caller that sizes
// a thread pool (the command's GOMAXPROCS) asks this before Map.
func MappingThreads(g *graph.Graph, top *topology.Topology, opt Options) int {
	t := opt.Threads
	if t <= 0 {
		t = runtime.GOMAXPROCS(0)
	}
	if t > 1 && g != nil && top != nil && serialAtSize(g, top, opt) {
		return 1
	}
	return t
}

// serialAtSize reports whether opt maps g onto top on one thread
// (MappingThreads).
func serialAtSize(g *graph.Graph, top *topology.Topology, opt Options) bool {
	if opt.Preset == Strong || g.N() >= serialMaxVertices {
		return false
	}
	// One-to-one as mapMetered decides it: on a sparse machine's first
	// PEs where g is mapped onto those (an rgg of 4,096 vertices onto
	// 64:64:8 is one-to-one on its first 4,096 PEs; the whole machine's
	// check said not, and put it on one thread: the review).
	total := g.TotalVertexWeight()
	r, eps, _ := mappedMachine(g, top, total, opt.Eps)
	return !isOneToOne(g, r.K(), total, eps)
}

// threadsNote is what the progress adds to a thread count that
// MappingThreads lowered from asked: nothing where it did not.
func threadsNote(used, asked int) string {
	if used == asked {
		return ""
	}
	return fmt.Sprintf(" (of %d: graphs below %d vertices map on one thread)", asked, serialMaxVertices)
}
