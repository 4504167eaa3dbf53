package distmap

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// wholeMax is the number of vertices up to which Map maps a graph whole
// (coarsestSize: opt.Coarsest, or 2^17).
func wholeMax(opt Options) int64 {
	if opt.Coarsest > 0 {
		return opt.Coarsest
	}
	return 1 << 17
}

// ReadWhole reads a graph file that Map would map whole (at most 2^17
// vertices, or Options.Coarsest) on every rank of c, or returns nil (and
// no error) on every rank for a larger one, which ReadGraph reads in
// parts: StartReadWhole(path, opt).Finish(c). Collective; every rank
// returns the same error.
func ReadWhole(c mpi.Comm, path string, opt Options) (*graph.Graph, error) {
	return StartReadWhole(path, opt).Finish(c)
}

// WholeRead is a read of a graph file to map whole that started before
// the ranks met (StartReadWhole).
type WholeRead struct {
	done chan struct{}
	n    int64 // the header's vertex count; 0 where it cannot be read
	g    *graph.Graph
	err  error
	// The pipelines started on g (StartWhole) for top and opt; nil
	// where none started, or once Finish or Map dropped or used them.
	run  *wholeRun
	top  *topology.Topology
	opt  Options
	used bool // Map used run (Started)
}

// Launch is the rank and size of a process in MPI_COMM_WORLD as its
// launcher names them before MPI starts (mpi.Launched); Size 0: not
// known.
type Launch struct{ Rank, Size int }

// StartReadWhole starts reading the graph file at path on this process,
// on a goroutine of its own, where its header says that Map maps it
// whole; it calls no MPI, so a caller may start it before MPI_Init,
// which mostly waits for the other ranks (0.31 s of finan512's 1.76 s
// at P=2, idle, 0.06-0.08 s of it CPU): the read (0.08 s) is then
// hidden, and no rank waits for rank 0's read and broadcast. gpumap-mpi
// starts StartWhole there, which also starts the mapping; ReadWhole
// calls Finish at once, and hides nothing.
//
// The graph mapped is rank 0's file either way: Finish broadcasts rank
// 0's graph to the ranks whose read failed or whose graph differs (a file
// that is another on their node). Rank 0 decides from its header: a
// graph to map whole is read with gpumap map's reader (graph.ReadFile,
// errors as gpumap map gives them, rank 0's). Read in parts, gathered
// and built again, such a graph took as long as the mapping's lead over
// one process (finan512, 75k vertices, at P=2: read and gather 0.6 s of
// CPU, against 0.2 s for gpumap map's read). A header that cannot be
// read, or a compressed or irregular file, is left to ReadGraph (which
// says what is wrong with it), so that both paths report the same errors
// of the file as a whole.
func StartReadWhole(path string, opt Options) *WholeRead {
	return StartWhole(path, nil, opt, Launch{})
}

// StartWhole is StartReadWhole, and where the launcher named this
// process's rank and size (l) and top is not nil, it also starts this
// rank's share of the pipelines that map the graph read onto top with
// opt (mapWhole) once the read is done. A caller names l only where
// every rank runs on this node (mpi.LaunchedOnOneNode): a duel's HM
// started here counts its IM's threads, which it takes once IM is done
// only where IM shares its node. So the end of MPI_Init
// hides the mapping's start too (finan512 at P=2, 10 interleaved runs
// each: the pipelines began 0.08 s before MPI_Init returned, and IM's
// mapping came 0.044 s and mpirun's exit 0.08 s earlier in the median;
// R-MAT 2^16 gains nothing: its read, 0.2 s, outlasts MPI_Init). It
// calls no MPI: the pipelines run on a goroutine of their own, and what
// they need of the other ranks (the duel's messages) waits for Map, on
// the caller's goroutine. The mapping does not depend on the guess: Map
// uses the started pipelines only where every rank's guess proves right
// and its graph and options are the ones started (they are then the
// pipelines that MapWhole would start, and give its mapping), and
// otherwise maps again from the start (a launcher that lies costs time,
// not the mapping). A caller calls Map or Close (after Map too, as a
// deferred Close), or the pipelines started are never given up.
func StartWhole(path string, top *topology.Topology, opt Options, l Launch) *WholeRead {
	w := &WholeRead{done: make(chan struct{}), top: top, opt: opt}
	go func() {
		defer close(w.done)
		func() {
			defer func() {
				if p := recover(); p != nil {
					w.g, w.err = nil, fmt.Errorf("reading %s: %v", path, p)
				}
			}()
			if n, ok := headerN(path); ok && n >= 1 && n <= wholeMax(opt) {
				w.n = n
				w.g, w.err = graph.ReadFile(path)
			}
		}()
		if w.g == nil || w.err != nil || top == nil || l.Size < 1 || l.Rank < 0 || l.Rank >= l.Size {
			return
		}
		// A panic of the plan starts nothing here: mapStarted plans
		// again on the caller's goroutine, where it aborts the job as
		// before (abortOnPanic), not as an error of the read.
		defer func() {
			if recover() != nil {
				w.run = nil
			}
		}()
		mine, duel, lend := wholePlan(w.g, top, opt, l.Size, l.Rank)
		// Whether IM's rank, or the rank that lends its CPUs, shares
		// this node is known once MPI is up (duelNodes): l names a job
		// on one node, so a guessed HM counts IM's threads and a lone
		// pipeline rank 1's (lent only with opt.TakeCPUs: wholePlan),
		// and serve frees or widens to them only where duelNodes agrees.
		imThreads, lent := takenThreads(opt, duel, lend, l.Size, l.Rank)
		w.run = startWhole(w.g, top, mine, duel, lend, l.Size, l.Rank, imThreads, lent)
	}()
	return w
}

// Map maps g, the graph that Finish returned, onto top with opt, as
// MapWhole does, with the pipelines that StartWhole started where it
// started them on every rank, for this graph, machine and options
// (Phases and Trace aside, which they do not read; TakeCPUs decides
// whether rank 1 lends its CPUs to a lone pipeline: wholePlan).
// Collective; every rank returns the same error.
func (w *WholeRead) Map(c mpi.Comm, g *graph.Graph, top *topology.Topology, opt Options) ([]int32, graph.Metrics, error) {
	defer func() { abortOnPanic(c, recover()) }()
	<-w.done
	if err := wholeUnusable(c, g); err != nil {
		w.drop()
		return nil, graph.Metrics{}, err
	}
	run := w.run
	w.run = nil // served once
	if run != nil && (g != w.g || top != w.top || opt.Eps != w.opt.Eps || opt.Seed != w.opt.Seed ||
		opt.Threads != w.opt.Threads || opt.Preset != w.opt.Preset || opt.Coarsest != w.opt.Coarsest ||
		opt.TakeCPUs != w.opt.TakeCPUs) {
		run.drop()
		run = nil
	}
	_, _, _, _, rank := mpi.Inspect(c)
	if err := checkOptions(c, rank, top, opt); err != nil {
		run.drop()
		return nil, graph.Metrics{}, err
	}
	whole, m, err := mapStarted(c, g, top, opt, run)
	w.used = run != nil && run.used
	return whole, m, err
}

// Started reports whether Map mapped with the pipelines that StartWhole
// started (on every rank: Map uses them on all or none), not from the
// start.
func (w *WholeRead) Started() bool { return w.used }

// drop gives up the pipelines that w started, if any (Finish: the graph
// is not mapped whole after all, or reading it failed on rank 0).
func (w *WholeRead) drop() {
	w.run.drop()
	w.run = nil
}

// Close waits for w's read and gives up the pipelines that StartWhole
// started and Map did not use: a duel's HM then runs to its end without
// IM's mapping and its goroutine ends, and GOMAXPROCS is set back to
// what it was before StartWhole. Without it, a caller that maps with
// MapWhole, or returns on an error, after a Finish that kept them left
// HM's goroutine blocked in MapDuel for good and GOMAXPROCS raised. It
// calls no MPI (it may run after MPI_Finalize), does nothing after Map
// or a Close, and is not collective.
func (w *WholeRead) Close() {
	<-w.done
	w.drop()
}

// Finish returns the graph that w read on every rank of c, rank 0's,
// or nil on every rank where rank 0's header says that it is read in
// parts (collective; every rank returns the same error). Pipelines that
// StartWhole started are left for Map only where Finish returns the
// graph that this rank read; otherwise they are dropped.
func (w *WholeRead) Finish(c mpi.Comm) (g *graph.Graph, err error) {
	defer func() { abortOnPanic(c, recover()) }()
	<-w.done
	defer func() {
		if err != nil || g == nil || g != w.g {
			w.drop()
		}
	}()
	if err := unusable(c); err != nil {
		return nil, err
	}
	_, _, _, size, rank := mpi.Inspect(c)
	// Rank 0's verdict: small, the read failed, and its graph's shape
	// and hash (no other rank to compare with at P=1).
	mine := w.digest(size > 1)
	hdr := slices.Clone(mine)
	if err := mpi.BcastOf(c, hdr, 0); err != nil {
		return nil, err
	}
	if hdr[0] == 0 {
		return nil, nil // read in parts after all (another file on rank 0)
	}
	if rank == 0 {
		err = w.err
	}
	if err := agree(c, err); err != nil {
		return nil, err
	}
	// Every rank holds rank 0's graph, or rank 0 sends it.
	differs := []int64{0}
	if !slices.Equal(mine, hdr) {
		differs[0] = 1
	}
	if err := mpi.Allreduce(c, differs, mpi.Max); err != nil {
		return nil, err
	}
	if differs[0] == 0 {
		return w.g, nil
	}
	// Rank 0 sends its graph: the ranks' started pipelines, one of them
	// on another graph, are not used (mapStarted needs all of them).
	w.drop()
	if rank != 0 {
		return bcastGraph(c, nil, rank)
	}
	return bcastGraph(c, w.g, rank)
}

// digest is what Finish compares of each rank's read: small (1 where
// the header says the graph is mapped whole), failed (1 where the read
// failed), n, the entries of the adjacency, and a hash of the graph's
// arrays and weights (where hash).
func (w *WholeRead) digest(hash bool) []int64 {
	d := []int64{0, 0, 0, 0, 0}
	if w.n == 0 {
		return d
	}
	d[0] = 1
	if w.err != nil || w.g == nil {
		d[1] = 1
		return d
	}
	g := w.g
	d[2], d[3] = int64(g.N()), int64(len(g.Adj))
	if !hash {
		return d
	}
	// Two CRC-32s (Castagnoli's and IEEE's polynomials, where the CPU
	// has CRC instructions; hash/crc32 falls back to a table elsewhere),
	// 64 bits together: FNV-1a, a byte at a time, hashed 450-640 MB/s
	// (BenchmarkDigestFNV) on every rank's core while its pipeline ran
	// (finan512: 3.3 MB), the CRCs 6.1-9.2 GB/s (BenchmarkDigest; 4.36 MB,
	// 3 runs each at load ~11).
	c, i := crc32.New(castagnoli), crc32.NewIEEE()
	h := io.MultiWriter(c, i)
	h.Write(mpi.AsBytes(g.XAdj))
	h.Write(mpi.AsBytes(g.Adj))
	h.Write(mpi.AsBytes(g.VW))
	switch w32, w64 := g.Weights(); {
	case w32 != nil:
		h.Write([]byte{1})
		h.Write(mpi.AsBytes(w32))
	case w64 != nil:
		h.Write([]byte{2})
		h.Write(mpi.AsBytes(w64))
	}
	d[4] = int64(uint64(c.Sum32())<<32 | uint64(i.Sum32()))
	return d
}

// castagnoli is the CRC-32C table (digest).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// headerN returns the vertex count in the header of the graph file at
// path: ok is false where the header cannot be read, or the file is
// compressed or no regular file.
func headerN(path string) (n int64, ok bool) {
	if isBinary(path) {
		f, n, _, err := openBinary(path)
		if f != nil {
			f.Close()
		}
		return n, err == nil
	}
	f, _, err := openRegular(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var magic [4]byte
	if m, _ := f.ReadAt(magic[:], 0); compressed(magic[:m]) {
		return 0, false
	}
	// The first line that is no comment; a file that has none in its
	// first MiB (comments) is left to ReadGraph.
	r := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10)
	for line := int64(1); ; line++ {
		ln, err := r.ReadSlice('\n')
		if err != nil && err != io.EOF {
			return 0, false
		}
		if ln = bytes.TrimRight(ln, "\r\n"); len(ln) > 0 && !graph.IsMETISComment(ln) {
			h, e := graph.ParseMETISHeader(ln, line)
			return h.N, e == nil
		}
		if err == io.EOF {
			return 0, false
		}
	}
}

// bcastGraph returns rank 0's graph g on every rank (collective).
func bcastGraph(c mpi.Comm, g *graph.Graph, rank int) (*graph.Graph, error) {
	// n, 2m, and the edge weights' kind: 0 none (every weight 1), 1
	// narrow, 2 wide.
	hdr := []int64{0, 0, 0}
	if rank == 0 {
		hdr[0], hdr[1] = int64(g.N()), int64(len(g.Adj))
		switch w32, w64 := g.Weights(); {
		case w32 != nil:
			hdr[2] = 1
		case w64 != nil:
			hdr[2] = 2
		}
	}
	if err := mpi.BcastOf(c, hdr, 0); err != nil {
		return nil, err
	}
	// Wide weights are received here and stored after (SetEdgeWeights
	// keeps rank 0's values wide, as it did there).
	var wide []int64
	if rank != 0 {
		g = &graph.Graph{XAdj: make([]int64, hdr[0]+1), Adj: make([]int32, hdr[1]), VW: make([]int64, hdr[0])}
		switch hdr[2] {
		case 1:
			g.SetNarrowWeights(make([]int32, hdr[1]))
		case 2:
			wide = make([]int64, hdr[1])
		}
	}
	if err := mpi.BcastOf(c, g.XAdj, 0); err != nil {
		return nil, err
	}
	if err := mpi.BcastOf(c, g.Adj, 0); err != nil {
		return nil, err
	}
	if err := mpi.BcastOf(c, g.VW, 0); err != nil {
		return nil, err
	}
	w32, w64 := g.Weights()
	if w32 != nil {
		if err := mpi.BcastOf(c, w32, 0); err != nil {
			return nil, err
		}
	}
	if rank == 0 {
		wide = w64
	}
	if wide != nil {
		if err := mpi.BcastOf(c, wide, 0); err != nil {
			return nil, err
		}
		if rank != 0 {
			g.SetEdgeWeights(wide)
		}
	}
	return g, nil
}
