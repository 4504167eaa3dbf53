// Command gpumap maps METIS task graphs onto hierarchical machines and
// evaluates mappings.
//
//	gpumap map  -g G.graph -h 4:8:6 -d 1:10:100 -e 0.03 [-c fast|default|strong] [-s seed] [-t threads] -m out.map
//	gpumap eval -g G.graph -h 4:8:6 -d 1:10:100 -e 0.03 -m out.map [--svg OUT.svg [--svg-level node]]
//	gpumap convert -g G.graph -o G.bgf
//	gpumap place -g pattern.graph --hosts node0:8,node1:8 [-h 4:2] [-d 1:10:100] --rankfile out.rf [--machinefile out.mf]
//
// The mapping file has one PE id per line, in vertex order. Progress and
// per-phase times go to stderr (-q silences them); results go to stdout as
// key=value lines.
//
// Exit status: 0 success (and -help), 1 failure (unreadable, malformed or
// too large input), 2 bad usage (unknown flags, malformed or out-of-range
// -h, -d, -e, ...), 3 the mapping violates the balance constraint (it is
// still written or evaluated).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitInfeasible = 3
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	var err error
	code := exitOK
	switch args[0] {
	case "map":
		code, err = cmdMap(args[1:], stdout, stderr)
	case "eval":
		code, err = cmdEval(args[1:], stdout, stderr)
	case "gen":
		code, err = cmdGen(args[1:], stdout, stderr)
	case "place":
		code, err = cmdPlace(args[1:], stdout, stderr)
	case "convert":
		code, err = cmdConvert(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "gpumap", gpumap.Version)
		return exitOK
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "gpumap: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "gpumap:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		return exitFailure
	}
	return code
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  gpumap map  -g G.graph -h 4:8:6 -d 1:10:100 [-e 0.03] [-c fast|default|strong] [-s seed] [-t threads] -m out.map
  gpumap eval -g G.graph -h 4:8:6 -d 1:10:100 [-e 0.03] -m out.map [--svg OUT.svg [--svg-level node]]
  gpumap place -g pattern.graph --hosts node0:8,node1:8 [-h 4:2] [-d 1:10:100] [-c preset] --rankfile OUT [--machinefile OUT]
  gpumap gen  -t grid -dims 32x32x32 | -t rgg -n 1048576 | -t rmat -n 65536 [-ef 8] [-s seed] [-o out.graph]
  gpumap convert -g G.graph -o G.bgf   (ParHIP's binary format, unweighted, for gpumap-mpi)
  gpumap version
Run "gpumap map -help" for every option.
`)
}

// common holds the flags both commands share.
type common struct {
	graph, hier, dist, mapFile string
	eps                        float64
	maxBytes                   byteSize
	stats                      bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.graph, "g", "", "task graph in METIS format (gzip or zstd compressed input is fine), or ParHIP's binary format (.bgf, gpumap convert)")
	fs.StringVar(&c.hier, "h", "", "hierarchy a1:a2:...:aL, innermost first (e.g. 4:8:6), at most 64 levels")
	fs.StringVar(&c.dist, "d", "", "distances d1:d2:...:dL (e.g. 1:10:100)")
	fs.Float64Var(&c.eps, "e", 0.03, "allowed imbalance eps >= 0: Lmax = ceil((1+eps) c(V)/k)")
	fs.StringVar(&c.mapFile, "m", "", "mapping file (one PE per line)")
	fs.Var(&c.maxBytes, "max-graph-bytes", "largest graph text after decompression, e.g. 40G (default: 64 x a compressed file, at least 1M, at most 16G)")
}

// check validates the flags that need no file.
func (c *common) check() error {
	if !gpumap.ValidEps(c.eps) {
		return usageError{fmt.Errorf("-e %v: the imbalance must be a finite number in [0, %g]", c.eps, gpumap.MaxEps)}
	}
	return nil
}

func (c *common) load(stderr io.Writer, quiet bool) (*graph.Graph, *topology.Topology, error) {
	switch {
	case c.graph == "":
		return nil, nil, usageError{errors.New("missing -g graph file")}
	case c.hier == "":
		return nil, nil, usageError{errors.New("missing -h hierarchy")}
	case c.dist == "":
		return nil, nil, usageError{errors.New("missing -d distances")}
	case c.mapFile == "":
		return nil, nil, usageError{errors.New("missing -m mapping file")}
	}
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	top, err := topology.Parse(c.hier, c.dist)
	if err != nil {
		return nil, nil, usageError{err}
	}
	var g *graph.Graph
	pt := gpumap.Measure("read", c.stats, func() { g, err = graph.ReadFileLimit(c.graph, int64(c.maxBytes)) })
	if errors.Is(err, graph.ErrTooLarge) {
		return nil, nil, fmt.Errorf("%w (a larger limit: -max-graph-bytes)", err)
	}
	if err != nil {
		return nil, nil, err
	}
	if !quiet {
		fmt.Fprintf(stderr, "gpumap: read %s: n=%d m=%d\ngpumap: %s\n", c.graph, g.N(), g.M(), pt)
	}
	return g, top, nil
}

func cmdMap(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("gpumap map", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	preset := fs.String("c", "default", "preset: fast, default or strong")
	alg := fs.String("a", "auto", "algorithm: auto (by preset), im (integrated) or hm (multisection)")
	seed := fs.Uint64("s", 0, "random seed")
	threads := fs.Int("t", 0, fmt.Sprintf("threads (0: all %d cores)", runtime.NumCPU()))
	backend := fs.String("backend", "auto", "where data-parallel phases run: auto, cpu or gpu")
	quiet := fs.Bool("q", false, "no progress on stderr")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile (for developers)")
	tracefile := fs.String("trace", "", "write an execution trace (for developers: go tool trace)")
	stats := fs.Bool("stats", false, "report every phase's CPU time, threads kept busy and peak resident memory (Linux)")
	if err := fs.Parse(args); err != nil {
		return 0, usageError{err}
	}
	if *cpuprofile != "" {
		pf, err := graph.Create(*cpuprofile)
		if err != nil {
			return 0, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return 0, err
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := pf.Commit(); err != nil {
				fmt.Fprintf(stderr, "gpumap: %v\n", err)
			}
		}()
	}
	if *tracefile != "" {
		tf, err := graph.Create(*tracefile)
		if err != nil {
			return 0, err
		}
		defer tf.Close()
		if err := trace.Start(tf); err != nil {
			return 0, err
		}
		defer func() {
			trace.Stop()
			if err := tf.Commit(); err != nil {
				fmt.Fprintf(stderr, "gpumap: %v\n", err)
			}
		}()
	}
	if fs.NArg() > 0 {
		return 0, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	opt := gpumap.DefaultOptions()
	var err error
	if opt.Preset, err = gpumap.ParsePreset(*preset); err != nil {
		return 0, usageError{err}
	}
	if opt.Algorithm, err = gpumap.ParseAlgorithm(*alg); err != nil {
		return 0, usageError{err}
	}
	if opt.Backend, err = gpumap.ParseBackend(*backend); err != nil {
		return 0, usageError{err}
	}
	if *threads < 0 || *threads > gpumap.MaxThreads {
		return 0, usageError{fmt.Errorf("-t %d: thread count must be in [0, %d]", *threads, gpumap.MaxThreads)}
	}
	opt.Eps, opt.Seed, opt.Threads = c.eps, *seed, *threads
	if *threads > 0 {
		// -t bounds every goroutine of the run, the garbage collector's too.
		runtime.GOMAXPROCS(*threads)
	}
	if !*quiet {
		opt.Progress = stderr
	}
	opt.Stats = *stats
	c.stats = *stats
	g, top, err := c.load(stderr, *quiet)
	if err != nil {
		return 0, err
	}
	if opt.Threads == 0 { // so that the progress names what -t 0 asked for
		opt.Threads = runtime.GOMAXPROCS(0)
	}
	// The collector and the scheduler run on the threads the mapping
	// uses (gpumap.MappingThreads), not on those -t offered.
	if used := gpumap.MappingThreads(g, top, opt); used < opt.Threads {
		runtime.GOMAXPROCS(used)
	}
	start := time.Now()
	res, err := gpumap.Map(g, top, opt)
	if err != nil {
		return 0, err
	}
	// The mapper's wall time, what runs between its phases included (the
	// phases nest, so their sum would count the inner ones twice).
	total := time.Since(start)
	if err := graph.WriteFile(c.mapFile, func(w io.Writer) error { return graph.WriteMapping(w, res.PE) }); err != nil {
		return 0, err
	}
	printMetrics(stdout, res.Metrics)
	fmt.Fprintf(stdout, "time_ms=%.2f\nbackend=%s\n", float64(total.Microseconds())/1000, res.Backend)
	if !res.Metrics.Feasible {
		fmt.Fprintf(stderr, "gpumap: warning: the mapping is infeasible: heaviest PE %d > Lmax %d\n",
			res.Metrics.MaxBlock, res.Metrics.Lmax)
		return exitInfeasible, nil
	}
	return exitOK, nil
}

func cmdEval(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("gpumap eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	var svg svgFlags
	svg.register(fs)
	if err := fs.Parse(args); err != nil {
		return 0, usageError{err}
	}
	g, top, err := c.load(stderr, true)
	if err != nil {
		return 0, err
	}
	if err := graph.CheckCost(g, top.MaxDistance()); err != nil {
		return 0, err
	}
	level, err := svg.parseLevel(top)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(c.mapFile)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	pe, err := graph.ReadMapping(f, g.N(), top.K())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.mapFile, err)
	}
	m, err := graph.Evaluate(g, top, pe, c.eps)
	if err != nil {
		return 0, err
	}
	printMetrics(stdout, m)
	if err := svg.write(g, top, pe, level, c.graph, c.mapFile); err != nil {
		return 0, err
	}
	if !m.Feasible {
		fmt.Fprintf(stderr, "gpumap: the mapping is infeasible: heaviest PE %d > Lmax %d\n", m.MaxBlock, m.Lmax)
		return exitInfeasible, nil
	}
	return exitOK, nil
}

func printMetrics(w io.Writer, m graph.Metrics) { graph.WriteMetrics(w, m) }
