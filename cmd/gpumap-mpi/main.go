// Command gpumap-mpi maps a graph that is read and mapped by many MPI
// processes together (package distmap):
//
//	mpirun -np P gpumap-mpi map -g G -h H -d D [-e E] [-c C] [-s S] [-t T] -m OUT
//
// Each process reads its own part of the graph file: a byte range of
// METIS text, or its vertices of a binary graph (ParHIP's format, as
// gpumap convert writes it); a graph small enough to be mapped whole
// (2^17 vertices), every process reads whole. Read in parts, every
// rank's -g must be rank 0's file (its size and 16 blocks of 64 KiB
// spread over it are compared; paths are not); mapped whole, rank 0's
// graph is sent to the ranks whose file differs or is missing. Rank 0 prints
// the metrics in gpumap map's format and writes the mapping file.
//
// Under OpenMPI's mpirun with every rank on one node, it sets
// OMPI_MCA_pml=ob1 before MPI_Init unless a pml or mtl was chosen: in
// the environment, on mpirun, or in a parameter file OpenMPI reads (the
// user's, and the system's found from the loaded libmpi: localPML,
// siteFiles; where the system's file is not found, nothing is set);
// GPUMAP_MPI_SHM=0 turns that off.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/gpumap/gpumap/distmap"
	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/runstat"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// The exit codes of gpumap map.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitInfeasible = 3
)

func main() {
	// MPI is called from this thread only.
	runtime.LockOSThread()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	began := time.Now()
	// Argument errors are found before MPI starts, the same on every rank
	// (every rank sees the same arguments, exits with exitUsage): rank 0
	// alone, as the launcher's environment names it, says them, as it
	// says every later error. Each rank said them, and as many of P=4 as
	// ran before mpirun killed the rest printed the message (2-3).
	say := onRank0(stderr)
	if len(args) == 0 || args[0] != "map" {
		fmt.Fprintln(say, "usage: mpirun -np P gpumap-mpi map -g graph -h hierarchy -d distances [-e eps] [-c preset] [-s seed] [-t threads] -m mapping")
		fmt.Fprintln(say, "  (OpenMPI, all ranks on one node: OMPI_MCA_pml=ob1 unless a pml or mtl is chosen; GPUMAP_MPI_SHM=0 turns that off)")
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
			return exitOK
		}
		return exitUsage
	}
	// Flags are checked before MPI starts: every rank sees the same
	// arguments and fails the same way.
	fs := flag.NewFlagSet("gpumap-mpi map", flag.ContinueOnError)
	fs.SetOutput(say)
	g := fs.String("g", "", "task graph: METIS text, or ParHIP's binary format (.bgf, gpumap convert); each process reads its part")
	h := fs.String("h", "", "hierarchy a1:a2:...:aL, innermost first (e.g. 4:8:6)")
	d := fs.String("d", "", "distances d1:d2:...:dL (e.g. 1:10:100)")
	eps := fs.Float64("e", 0.03, "allowed imbalance eps >= 0: Lmax = ceil((1+eps) c(V)/k)")
	preset := fs.String("c", "default", "preset of the coarsest graph's mapping: fast, default or strong")
	seed := fs.Uint64("s", 0, "random seed")
	threads := fs.Int("t", 1, "threads per process")
	out := fs.String("m", "", "mapping file (one PE per line), written by rank 0")
	quiet := fs.Bool("q", false, "no progress on stderr")
	stats := fs.Bool("stats", false, "report the peak resident memory of the largest rank and of all ranks (Linux)")
	cpuprofile := fs.String("cpuprofile", "", "write each rank's CPU profile to this path with .RANK appended (for developers)")
	trace := fs.Bool("trace", false, "write the J of every level after each step to stderr (rank 0; for developers)")
	phases := fs.Bool("phases", false, "write the wall time (slowest rank) and CPU time (all ranks) of each phase to stderr (rank 0; for developers)")
	coarsest := fs.Int64("coarsest", 0, "stop coarsening at this many vertices (0: max(8000, 20k); for developers)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	// The command's threads are all gpumap's: a duel's HM may take its IM
	// rank's CPUs, and rank 0's lone pipeline rank 1's threads and CPUs
	// on one node (distmap.Options.TakeCPUs).
	opt := distmap.Options{Eps: *eps, Seed: *seed, Threads: *threads, Coarsest: *coarsest, TakeCPUs: true}
	if *trace {
		opt.Trace = stderr
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *g == "":
		err = errors.New("missing -g graph file")
	case *h == "":
		err = errors.New("missing -h hierarchy")
	case *d == "":
		err = errors.New("missing -d distances")
	case *out == "":
		err = errors.New("missing -m mapping file")
	case !gpumap.ValidEps(*eps):
		err = fmt.Errorf("-e %v: the imbalance must be a finite number in [0, %g]", *eps, gpumap.MaxEps)
	case *coarsest < 0:
		err = fmt.Errorf("-coarsest %d: must be >= 0", *coarsest)
	case *threads < 1 || *threads > gpumap.MaxThreads:
		err = fmt.Errorf("-t %d: thread count must be in [1, %d]", *threads, gpumap.MaxThreads)
	}
	if err == nil {
		opt.Preset, err = gpumap.ParsePreset(*preset)
	}
	var top *topology.Topology
	if err == nil {
		top, err = topology.Parse(*h, *d)
	}
	if err != nil {
		fmt.Fprintln(say, "gpumap-mpi:", err)
		return exitUsage
	}
	runtime.GOMAXPROCS(*threads)
	// OpenMPI's shared-memory path when every rank is on this node
	// (localPML), set before any other thread runs.
	warning := chooseLocalPML()
	// A graph to map whole is read, and where the launcher says which
	// rank this is and that every rank runs on this node, its share of
	// the mapping started, while MPI_Init runs (distmap.StartWhole; the
	// guess is checked once MPI is up). On one node a duel's IM shares
	// its HM's node, and rank 1 rank 0's, as the started HM assumes when
	// it counts IM's threads and a started lone pipeline rank 1's; on
	// several, where that is known only once MPI is up, the graph is read
	// early and the mapping starts after MPI_Init.
	var launch distmap.Launch
	if r, s, ok := mpi.Launched(); ok && mpi.LaunchedOnOneNode() {
		launch = distmap.Launch{Rank: r, Size: s}
	}
	pre := distmap.StartWhole(*g, top, opt, launch)
	// Pipelines that no Map used (an error, a graph read in parts) are
	// given up.
	defer pre.Close()
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(stderr, "gpumap-mpi:", err)
		return exitFailure
	}
	if _, _, _, _, rank := mpi.Inspect(mpi.World()); rank == 0 && warning != "" {
		fmt.Fprintln(stderr, "gpumap-mpi: warning:", warning)
	}
	if *cpuprofile != "" {
		_, _, _, _, rank := mpi.Inspect(mpi.World())
		if pf, err := graph.Create(fmt.Sprintf("%s.%d", *cpuprofile, rank)); err == nil {
			defer pf.Close()
			if pprof.StartCPUProfile(pf) == nil {
				defer func() {
					pprof.StopCPUProfile()
					pf.Commit()
				}()
			}
		}
	}
	code, err := mapGraph(pre, *g, *out, top, opt, *quiet, *stats, *phases, began, stdout, stderr)
	if err != nil {
		// Every rank has the same error; rank 0 says it.
		if _, _, _, _, rank := mpi.Inspect(mpi.World()); rank == 0 {
			fmt.Fprintln(stderr, "gpumap-mpi:", err)
		}
		code = exitFailure
	}
	_, _, _, _, rank := mpi.Inspect(mpi.World())
	fin := time.Now()
	if err := mpi.Finalize(); err != nil && code == exitOK {
		code = exitFailure
	}
	if *phases && rank == 0 {
		// After MPI_Finalize no collective times it: rank 0's own.
		fmt.Fprintf(stderr, "phase %-22s wall %7.3f s  (rank 0; since its start %.3f s)\n", "MPI_Finalize", time.Since(fin).Seconds(), time.Since(began).Seconds())
	}
	return code
}

// onRank0 is w where the launcher's environment names no rank or rank 0
// (mpi.Launched), or the first rank of an MPMD launch's other command
// line (OpenMPI's app contexts, appFirst: its flags may be the ones that
// are wrong; before, such a rank exited 2 saying nothing), else
// io.Discard.
func onRank0(w io.Writer) io.Writer {
	if r, _, ok := mpi.Launched(); ok && r != 0 && !appFirst(mpi.Getenv, r) {
		return io.Discard
	}
	return w
}

// appFirst reports whether rank r is the first rank of its app context
// (`mpirun -np 2 a : -np 2 b`: ranks 0 and 2) by OpenMPI's environment:
// OMPI_MCA_orte_app_num, its context's index, and OMPI_APP_CTX_NUM_PROCS,
// the contexts' sizes. False where they are absent (MPICH's hydra names
// no context) or make no sense.
func appFirst(lookup func(string) (string, bool), r int) bool {
	app, ok := mpi.EnvInt(lookup, "OMPI_MCA_orte_app_num")
	sizes, set := lookup("OMPI_APP_CTX_NUM_PROCS")
	if !ok || !set || app < 1 {
		return false
	}
	f := strings.Fields(sizes)
	if app >= len(f) {
		return false
	}
	first := 0
	for _, x := range f[:app] {
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 {
			return false
		}
		first += n
	}
	return r == first
}

// mapGraph reads, maps and writes on a private copy of MPI_COMM_WORLD
// that returns MPI errors instead of aborting.
func mapGraph(pre *distmap.WholeRead, path, out string, top *topology.Topology, opt distmap.Options, quiet, stats, phases bool, began time.Time, stdout, stderr io.Writer) (int, error) {
	c, err := mpi.Copy(mpi.World(), true)
	if err != nil {
		return 0, err
	}
	defer mpi.Free(c)
	_, _, _, size, rank := mpi.Inspect(c)
	if phases {
		opt.Phases = distmap.NewPhases(c, stderr, began)
	}
	ph := opt.Phases
	if err := ph.Done("start (MPI_Init)"); err != nil {
		return 0, err
	}
	start := time.Now()
	// A graph that is mapped whole is read whole by every rank (rank 0's
	// graph where the files differ, or another rank's is missing: a node
	// without the file may join); a larger one is read in parts, where
	// every rank's file must be rank 0's (distmap.ReadGraph, which
	// compares the files, not their paths).
	whole, err := pre.Finish(c)
	if err != nil {
		return 0, err
	}
	var dg *distmap.Graph
	n := int64(0)
	if whole != nil {
		n = int64(whole.N())
	} else {
		if dg, err = distmap.ReadGraph(c, path); err != nil {
			return 0, err
		}
		n = dg.GlobalN()
	}
	if err := ph.Done("read"); err != nil {
		return 0, err
	}
	if rank == 0 && !quiet {
		how := "in parts"
		if whole != nil {
			how = "whole"
		}
		fmt.Fprintf(stderr, "gpumap-mpi: read %s %s (%d processes): n=%d in %.2fs\n", path, how, size, n, time.Since(start).Seconds())
	}
	mapStart := time.Now()
	res := &distmap.Result{CoarseN: n}
	var all []int32
	if whole != nil {
		all, res.Metrics, err = pre.Map(c, whole, top, opt)
	} else {
		res, err = distmap.Map(dg, top, opt)
	}
	if err != nil {
		return 0, err
	}
	total := time.Since(mapStart)
	if rank == 0 && !quiet {
		how := ""
		if whole != nil && pre.Started() {
			how = " (started before MPI_Init)"
		}
		fmt.Fprintf(stderr, "gpumap-mpi: %d levels, coarsest n=%d, mapped in %.2fs%s\n", res.Levels, res.CoarseN, total.Seconds(), how)
		for _, note := range res.Notes {
			fmt.Fprintln(stderr, "gpumap-mpi:", note)
		}
	}
	if err := ph.Done("map (the rest)"); err != nil {
		return 0, err
	}
	if whole != nil {
		err = distmap.WriteWhole(c, all, out)
	} else {
		err = distmap.WriteMapping(dg, res.PE, out)
	}
	if err != nil {
		return 0, err
	}
	if err := ph.Done("write"); err != nil {
		return 0, err
	}
	if stats {
		peak := runstat.Read().Peak
		most, sum := []int64{peak}, []int64{peak}
		if err := mpi.Allreduce(c, most, mpi.Max); err != nil {
			return 0, err
		}
		if err := mpi.Allreduce(c, sum, mpi.Sum); err != nil {
			return 0, err
		}
		if rank == 0 {
			fmt.Fprintf(stderr, "gpumap-mpi: peak RSS: largest rank %.1f MiB, all %d ranks %.1f MiB\n",
				runstat.MB(most[0]), size, runstat.MB(sum[0]))
		}
	}
	if rank != 0 {
		return exitOK, nil
	}
	graph.WriteMetrics(stdout, res.Metrics)
	fmt.Fprintf(stdout, "time_ms=%.2f\nbackend=cpu\n", float64(total.Microseconds())/1000)
	if !res.Metrics.Feasible {
		fmt.Fprintf(stderr, "gpumap-mpi: warning: the mapping is infeasible: heaviest PE %d > Lmax %d\n",
			res.Metrics.MaxBlock, res.Metrics.Lmax)
		return exitInfeasible, nil
	}
	return exitOK, nil
}
