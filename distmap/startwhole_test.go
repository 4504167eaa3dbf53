package distmap

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// StartWhole on 1, 2 and 3 ranks: the pipelines started before MPI_Init
// on the launcher's rank and size (mpi.Launched, which agrees with MPI)
// give MapWhole's mapping byte for byte, and are used on every rank; a
// launcher that lies (another rank, another size, one rank alone), a
// rank's file that is another graph, or options that differ from
// StartWhole's, make every rank map again from the start, to the same
// mapping as MapWhole's of rank 0's graph. Graphs: R-MAT 2^11 onto 4:8
// (a duel that stops HM), a grid (a duel that HM wins or runs to its
// end), and a grid with fast and TakeCPUs (a lone pipeline that rank 1
// lends its threads to: rank 0 runs it on 2x Threads, also where the
// started run is dropped because the last rank lied, whose plan was
// already widened).
func TestStartWhole(t *testing.T) {
	if !mpitest.Child() {
		dir := t.TempDir()
		t.Setenv(binDirEnv, dir)
		for name, g := range map[string]*graph.Graph{"rmat.graph": graph.RMAT(11, 8, 1), "grid.graph": graph.Grid(40, 40),
			"other.graph": graph.Grid(40, 41)} {
			if err := graph.WriteFile(filepath.Join(dir, name), func(w io.Writer) error { return graph.WriteMETIS(w, g) }); err != nil {
				t.Fatal(err)
			}
		}
		runRanks(t, "TestStartWhole", 1, 2, 3)
		return
	}
	defer rankRecover()
	dir := os.Getenv(binDirEnv)
	top, _ := topology.Parse("4:8", "1:10")
	opt := Options{Eps: 0.03, Seed: 2, Threads: 1, Preset: gpumap.Default}
	lr, ls, lok := mpi.Launched()
	// Started before MPI_Init, as gpumap-mpi starts it.
	early := StartWhole(filepath.Join(dir, "rmat.graph"), top, opt, Launch{lr, ls})
	c, size, rank := rankComm(t)
	if !lok || lr != rank || ls != size {
		rankFail("mpi.Launched: rank %d of %d (ok %v), MPI says %d of %d", lr, ls, lok, rank, size)
	}
	// check maps w's graph and compares with MapWhole's mapping; used:
	// whether every rank used the started pipelines (else none); where
	// lentWant is set, rank 0's lent pipeline (the last that
	// startWhole started, before or in Map) ran on as many threads.
	var lentWant int64
	check := func(what string, w *WholeRead, o Options, used bool) {
		before := startedUsed.Load()
		g, err := w.Finish(c)
		if err != nil {
			rankFail("%s: %v", what, err)
		}
		got, m, err := w.Map(c, g, top, o)
		if err != nil {
			rankFail("%s: %v", what, err)
		}
		if th := lentThreads.Load(); rank == 0 && lentWant != 0 && th != lentWant {
			rankFail("%s, P=%d: the lent pipeline ran on %d threads, want %d", what, size, th, lentWant)
		}
		n := []int64{startedUsed.Load() - before}
		if err := mpi.Allreduce(c, n, mpi.Sum); err != nil {
			rankFail("%v", err)
		}
		want, wm, err := MapWhole(c, g, top, o)
		if err != nil {
			rankFail("%s: %v", what, err)
		}
		if !slices.Equal(got, want) || m.J != wm.J || m.Feasible != wm.Feasible {
			rankFail("%s, P=%d: J %d, MapWhole's %d (mappings equal: %v)", what, size, m.J, wm.J, slices.Equal(got, want))
		}
		if wantN := map[bool]int64{true: int64(size), false: 0}[used]; n[0] != wantN || w.Started() != used {
			rankFail("%s, P=%d: %d ranks used the started pipelines, want %d (Started %v)", what, size, n[0], wantN, w.Started())
		}
	}
	check("rmat, started before MPI_Init", early, opt, true)
	path := func(name string) string { return filepath.Join(dir, name) }
	check("grid", StartWhole(path("grid.graph"), top, opt, Launch{rank, size}), opt, true)
	check("no launcher", StartWhole(path("rmat.graph"), top, opt, Launch{}), opt, false)
	check("a lying size", StartWhole(path("rmat.graph"), top, opt, Launch{rank, size + 1}), opt, false)
	if size > 1 {
		check("a lying rank", StartWhole(path("rmat.graph"), top, opt, Launch{(rank + 1) % size, size}), opt, false)
		// Only the last rank lies: the others' started runs are dropped.
		l := Launch{rank, size}
		if rank == size-1 {
			l.Rank = 0
		}
		check("the last rank lies", StartWhole(path("grid.graph"), top, opt, l), opt, false)
		// Rank 1 reads another graph: rank 0's is mapped.
		f := "grid.graph"
		if rank == 1 {
			f = "other.graph"
		}
		check("another file", StartWhole(path(f), top, opt, Launch{rank, size}), opt, false)
	}
	o := opt
	o.Seed = 3
	check("other options", StartWhole(path("rmat.graph"), top, opt, Launch{rank, size}), o, false)
	if size > 1 {
		fast := Options{Eps: 0.03, Seed: 2, Threads: 1, Preset: gpumap.Fast, TakeCPUs: true}
		lentWant = 2 * int64(fast.Threads)
		check("fast, lent", StartWhole(path("grid.graph"), top, fast, Launch{rank, size}), fast, true)
		l := Launch{rank, size}
		if rank == size-1 {
			l.Rank = 0
		}
		check("fast, lent, the last rank lies", StartWhole(path("grid.graph"), top, fast, l), fast, false)
		lentWant = 0
		lib := fast
		lib.TakeCPUs = false
		check("fast, started with TakeCPUs, mapped without", StartWhole(path("grid.graph"), top, fast, Launch{rank, size}), lib, false)
	}
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// TestStartWholeClose at P=2 (R-MAT 2^11 onto 4:8: rank 0 runs a
// duel's HM): pipelines that Finish kept and that the caller does not
// map with Map (it maps with MapWhole, or returns on an error) are given
// up by Close: HM's goroutine ends and GOMAXPROCS is what it was before
// StartWhole. Close after Map, and a second Close, change nothing.
func TestStartWholeClose(t *testing.T) {
	if !mpitest.Child() {
		dir := t.TempDir()
		t.Setenv(binDirEnv, dir)
		g := graph.RMAT(11, 8, 1)
		if err := graph.WriteFile(filepath.Join(dir, "rmat.graph"), func(w io.Writer) error { return graph.WriteMETIS(w, g) }); err != nil {
			t.Fatal(err)
		}
		out := mpitest.Run(t, 2, "TestStartWholeClose")
		if ok := regexp.MustCompile(`(?m)^rank \d: ok$`).FindAllString(out, -1); len(ok) != 2 {
			t.Fatalf("%d of 2 ranks passed:\n%s", len(ok), out)
		}
		return
	}
	defer rankRecover()
	path := filepath.Join(os.Getenv(binDirEnv), "rmat.graph")
	top, _ := topology.Parse("4:8", "1:10")
	opt := Options{Eps: 0.03, Seed: 2, Threads: 1, Preset: gpumap.Default}
	runtime.GOMAXPROCS(1)
	c, size, rank := rankComm(t)
	// ended waits (up to a minute) for every started goroutine to end
	// and checks GOMAXPROCS.
	ended := func(what string) {
		for i := 0; pipelinesLive.Load() != 0; i++ {
			if i == 600 {
				rankFail("%s: %d pipelines' goroutines still run a minute on", what, pipelinesLive.Load())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if p := runtime.GOMAXPROCS(0); p != 1 {
			rankFail("%s: GOMAXPROCS %d, 1 before StartWhole", what, p)
		}
	}
	w := StartWhole(path, top, opt, Launch{rank, size})
	g, err := w.Finish(c)
	if err != nil || g == nil {
		rankFail("finish: %v", err)
	}
	if _, _, err := MapWhole(c, g, top, opt); err != nil {
		rankFail("%v", err)
	}
	w.Close()
	ended("MapWhole, then Close")
	w.Close()
	w = StartWhole(path, top, opt, Launch{rank, size})
	if g, err = w.Finish(c); err != nil || g == nil {
		rankFail("finish: %v", err)
	}
	if _, _, err := w.Map(c, g, top, opt); err != nil {
		rankFail("%v", err)
	}
	w.Close()
	w.Close()
	ended("Map, then Close twice")
	fmt.Printf("rank %d: ok\n", rank)
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
