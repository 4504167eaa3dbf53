package distmap

import (
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/topology"
)

// mapWhole maps a graph that is not coarsened (at most coarsestSize
// vertices) as the one-process mapper does, with its pipelines spread
// over the ranks (collective). Every rank gathers the graph; the
// pipelines that gpumap.Map runs side by side and keeps the best of
// (gpumap.Split: default's HM and IM below 2^19 edges, otherwise its one
// pipeline) are dealt out: with C of them, rank r runs pipeline r mod C
// with the seed plus r/C (P > C: the extra ranks try further seeds), and
// a rank of fewer than C runs pipelines r, r+P, ...; at P = 1 that is
// gpumap.Map itself on the rank's threads. One pipeline (C = 1) with
// Options.TakeCPUs set is lent: rank 0 runs it, rank 1 maps nothing,
// and rank r >= 2 tries seed+r-1 (P ranks try seed..seed+P-2); where
// rank 1 runs on rank 0's node, rank 0 runs the pipeline on its threads
// and rank 1's, on both ranks' CPUs (a second seed on rank 1 ran each
// pipeline on one core where gpumap map -t 2 runs it on two: an rgg of
// 2^17 vertices, 731k edges, at P=2: CPU 3.27-3.35 s against 2.32-2.48 s
// lent, 3 pairs; J the same, seed 0's won both ways; fast's J there
// +2.7%, seed 1's had won), and at P=2 the mapping is gpumap.Map's.
// Where rank 1 runs on another node it idles all the same: the mapping
// does not depend on where the launcher put the ranks. Without TakeCPUs
// (a library or C caller, whose threads rank 0 may not widen) rank 1
// cannot lend its CPUs, and runs seed+1 as a second pipeline would
// (rank r: seed+r). Where Map duels HM and IM
// (Split's duel), each rank running HM duels the IM of the rank after it
// (the last one, at odd P, that of the rank before): the IM rank sends
// its mapping, and HM stops after its top split, or after its splits of
// the top's children, where Map would stop it (gpumap.MapDuel; R-MAT 2^16 at P=2, where HM ran to its end on its
// rank: 1.51x the one-process wall), at its next split once the mapping
// is here: it does not wait for it. The least J wins (feasible first,
// then the lowest rank, which runs the first pipeline: Map's own order)
// with one allreduce, and its mapping is broadcast. So at P >= C the
// distributed mapping is the one-process mapping (seed and options
// alike) or one of lower J, in about the wall time of the one-process
// run on C threads, and the same P gives the same mapping: the duel's
// decisions depend on HM's splits and IM's mapping alone, not on which
// rank is faster.
//
// No refinement follows: a gathered graph is the one-process mapper's
// input, and its FM and label propagation have run to the end (before,
// the ranks refined again with the distributed levels' label
// propagation and FM, 1.6 s of a 5.2 s run on R-MAT 2^16 at P=1 for
// J -3%, and forced HM on R-MAT, where default runs IM alone, took 9 s
// of CPU at P=2).
func mapWhole(g *Graph, top *topology.Topology, opt Options) (*Result, error) {
	cg, err := gather(g, true)
	if err != nil {
		return nil, err
	}
	// The gather's buffers are garbage before the pipelines allocate
	// (collect, as every phase ends).
	collect()
	if err := opt.Phases.Done("gather"); err != nil {
		return nil, err
	}
	whole, m, err := mapGathered(g.c, cg, top, opt)
	if err != nil {
		return nil, err
	}
	n := g.N()
	pe := make([]int32, n)
	copy(pe, whole[g.First():g.First()+int64(n)])
	return &Result{PE: pe, Metrics: m, CoarseN: g.GlobalN()}, nil
}

// MapWhole maps the graph g, the same on every rank of c (ReadWhole), as
// Map maps a graph of at most 2^17 vertices (mapWhole), and returns the
// mapping of all vertices and its metrics on every rank (collective;
// every rank returns the same error).
func MapWhole(c mpi.Comm, g *graph.Graph, top *topology.Topology, opt Options) ([]int32, graph.Metrics, error) {
	if err := wholeUnusable(c, g); err != nil {
		return nil, graph.Metrics{}, err
	}
	defer func() { abortOnPanic(c, recover()) }()
	_, _, _, _, rank := mpi.Inspect(c)
	if err := checkOptions(c, rank, top, opt); err != nil {
		return nil, graph.Metrics{}, err
	}
	return mapGathered(c, g, top, opt)
}

// wholeUnusable is unusable, or the error of no graph to map whole (a
// nil one panicked in the mapping, which aborted the job); local.
func wholeUnusable(c mpi.Comm, g *graph.Graph) error {
	if err := unusable(c); err != nil {
		return err
	}
	if g == nil {
		return &Error{KindArgument, "no graph (nil)"}
	}
	return nil
}

// mapGathered maps cg, the same graph on every rank of c, as mapWhole
// does, and returns the whole mapping and its metrics on every rank.
func mapGathered(c mpi.Comm, cg *graph.Graph, top *topology.Topology, opt Options) ([]int32, graph.Metrics, error) {
	return mapStarted(c, cg, top, opt, nil)
}

// mapStarted is mapGathered with this rank's pipelines perhaps started
// before MPI was up (StartWhole): started ran wholePlan on cg for a
// guessed rank and size. It is used where every rank's guess was right
// (the pipelines are then those that this rank would start now, and the
// mapping is the same); otherwise every rank starts its pipelines here,
// and a started run is dropped (its pipelines run on to their end on
// their goroutine: a launcher that lies costs time, not the mapping).
func mapStarted(c mpi.Comm, cg *graph.Graph, top *topology.Topology, opt Options, started *wholeRun) ([]int32, graph.Metrics, error) {
	_, _, _, size, rank := mpi.Inspect(c)
	if started != nil && (started.rank != rank || started.size != size) {
		started.drop()
		started = nil
	}
	var mine []gpumap.Options
	var duel, lend bool
	if started != nil {
		mine, duel, lend = started.mine, started.duel, started.lend
	} else {
		mine, duel, lend = wholePlan(cg, top, opt, size, rank)
	}
	if size > 1 {
		// The duel's messages and barrier need every rank to duel or
		// none (and to lend or none: duelNodes is collective): a graph
		// that differs between ranks (MapWhole's caller) is told, not
		// left to hang. A started run is used where every rank has one
		// (the same allreduce).
		d, s := int64(0), int64(0)
		switch {
		case duel:
			d = 1
		case lend:
			d = 2
		}
		if started != nil {
			s = 1
		}
		v := []int64{d, -d, int64(cg.N()), -int64(cg.N()), cg.M(), -cg.M(), -s}
		if err := mpi.Allreduce(c, v, mpi.Max); err != nil {
			started.drop()
			return nil, graph.Metrics{}, err
		}
		if v[0] != -v[1] || v[2] != -v[3] || v[4] != -v[5] {
			started.drop()
			return nil, graph.Metrics{}, &Error{KindInconsistent, "the graph to map whole differs between ranks"}
		}
		if v[6] == 0 && started != nil {
			started.drop()
			started = nil
		}
	}
	whole, j, feasible, err := runDealt(c, cg, top, opt, mine, duel, lend, started, size, rank)
	if err != nil {
		return nil, graph.Metrics{}, err
	}
	if err := opt.Phases.Done("pipelines"); err != nil {
		return nil, graph.Metrics{}, err
	}
	if whole, err = bestWhole(c, rank, cg.N(), whole, j, feasible); err != nil {
		return nil, graph.Metrics{}, err
	}
	// The same graph and mapping on every rank: the same metrics.
	m, err := graph.Evaluate(cg, top, whole, opt.Eps)
	if err := agree(c, err); err != nil {
		return nil, graph.Metrics{}, err
	}
	if err := opt.Phases.Done("minloc, bcast, evaluate"); err != nil {
		return nil, graph.Metrics{}, err
	}
	return whole, m, nil
}

// runDealt runs mine, this rank's share of the pipelines that wholePlan
// deals out of a graph cg that every rank of c holds (duel and lend as
// wholePlan reports them, the same on every rank), or started where it
// runs them already (mapStarted), and returns the mapping of least J
// among this rank's (feasible first; nil where this rank's only
// pipeline was a duel's HM that stopped: its IM's mapping has the lower
// J). Where they duel, HM takes its IM's threads and CPUs once IM is
// done on its node (duelNodes, takenThreads). Collective; every rank
// returns the same error.
func runDealt(c mpi.Comm, cg *graph.Graph, top *topology.Topology, opt Options, mine []gpumap.Options, duel, lend bool, started *wholeRun, size, rank int) ([]int32, int64, bool, error) {
	// The duel's messages go on a communicator of their own, where no
	// receive of the caller's can match them.
	dc := c
	var take hmTake
	if duel || lend {
		var err error
		if duel {
			if dc, err = mpi.Copy(c, true); err != nil {
				started.drop()
				return nil, 0, false, err
			}
			defer mpi.Free(dc)
		}
		if take, err = duelNodes(dc, size, rank); err != nil {
			started.drop()
			return nil, 0, false, err
		}
		take.widen = take.widen && opt.TakeCPUs
	}
	run := started
	if run != nil {
		// A started HM counted IM's threads, and a started lone
		// pipeline rank 1's (StartWhole); serve frees or widens to them
		// only where take says that the other rank runs on this node.
		startedUsed.Add(1)
		run.used = true
	} else {
		imThreads, lent := 0, 0
		if take.threads {
			imThreads, lent = takenThreads(opt, duel, lend, size, rank)
		}
		run = startWhole(cg, top, mine, duel, lend, size, rank, imThreads, lent)
	}
	whole, j, feasible, err := run.serve(dc, cg.N(), take)
	if size > 1 {
		// The ranks done first wait without spinning, leaving their
		// cores to the others (HM: serve); agree's allreduce would spin
		// (with several ranks to a core, the spinning ranks took the
		// mapping ranks' time).
		if e := mpi.Barrier(dc, pollEvery); e != nil && err == nil {
			err = e
		}
	}
	return whole, j, feasible, agree(c, err)
}

// wholePlan returns the pipelines that rank of size ranks runs of cg
// (mapWhole), with opt.Threads each, whether they duel, and whether rank
// 1 lends its CPUs to rank 0's lone pipeline (lend: Split names one
// pipeline and opt.TakeCPUs is set; the same on every rank, as
// sameOptions checks). It calls no MPI.
func wholePlan(cg *graph.Graph, top *topology.Topology, opt Options, size, rank int) (mine []gpumap.Options, duel, lend bool) {
	o := gpumap.DefaultOptions()
	o.Preset, o.Eps, o.Threads, o.Seed = opt.Preset, opt.Eps, opt.Threads, opt.Seed
	// The ranks of a node would each open the GPU.
	o.Backend = gpumap.CPU
	if size == 1 {
		return []gpumap.Options{o}, false, false
	}
	cands, duel := gpumap.Split(cg, top, o)
	lend = len(cands) == 1 && opt.TakeCPUs
	return dealt(cands, size, rank, lend), duel, lend
}

// takenThreads is how many threads the pipelines that wholePlan gives
// rank of size ranks (with opt, duel and lend) take of another rank on
// this node: a duel's HM its IM's once IM is done (imThreads:
// duelThreads), rank 0's lone pipeline rank 1's from the start (lent:
// opt.Threads, as many as its own; borrow caps the sum). Both come
// from opt, never from a plan that borrow widened (a started run's, which
// mapStarted may drop and start again). mapStarted calls it where
// duelNodes says that the other rank runs on this node, StartWhole on a
// launcher's guess that every rank does.
func takenThreads(opt Options, duel, lend bool, size, rank int) (imThreads, lent int) {
	switch {
	case duel && rank%2 == 0:
		imThreads = duelThreads(opt.Threads, size, rank)
	case lend && rank == 0:
		lent = opt.Threads
	}
	return imThreads, lent
}

// borrow returns mine, rank 0's lone pipeline (wholePlan's lend), with
// lent more threads: rank 1's, where it runs on this node
// (takenThreads), up to gpumap.MaxThreads in all (-t 4096 at P=2 asked
// Map for 8192 threads, which it refuses, where P=1 maps). The mapping
// does not depend on the thread count.
func borrow(mine []gpumap.Options, lent int) []gpumap.Options {
	if lent == 0 {
		return mine
	}
	x := slices.Clone(mine)
	x[0].Threads = min(x[0].Threads+lent, gpumap.MaxThreads)
	return x
}

// hmPartner is the rank whose IM the HM of rank (even) duels: the next,
// or, for the last rank at odd size, the one before.
func hmPartner(size, rank int) int {
	if rank+1 == size {
		return rank - 1
	}
	return rank + 1
}

// hmTake is what a duel's HM may take of its IM's rank once IM is done,
// or a lent lone pipeline on rank 0 of rank 1 from the start (wholePlan's
// lend): its threads (the other rank runs on this node), and its CPUs
// (wider, where the launcher bound the two ranks to different CPUs and
// Options.TakeCPUs is set: OpenMPI's mpirun binds each of 2 ranks to one
// core, so HM's extra threads shared HM's own core, and HM took as long
// at P=2 as alone; finan512 at P=2: HM's rank done 1.1 s after its
// start, against 0.5 s for the same duel in one process).
type hmTake struct {
	threads   bool
	own, wide cpuMask // wide: own and IM's CPUs, where they differ
	widen     bool
}

// duelNodes returns what the HM of rank (even) of dc may take of its IM,
// or rank 0's lent pipeline of rank 1 (hmPartner(size, 0) is 1 at P >= 2)
// (collective: every rank tells its node and CPUs).
func duelNodes(dc mpi.Comm, size, rank int) (hmTake, error) {
	// Which ranks share a node: HM takes the threads of an IM done on
	// its own node alone.
	h := fnv.New64a()
	h.Write([]byte(mpi.ProcessorName()))
	own, ok := threadMask()
	const words = len(cpuMask{})
	v := make([]int64, 2+words)
	v[0] = int64(h.Sum64())
	if ok {
		v[1] = 1
		for i, w := range own {
			v[2+i] = int64(w)
		}
	}
	all, err := mpi.Allgather(dc, v, size)
	if err != nil || rank%2 == 1 {
		return hmTake{}, err
	}
	im := all[hmPartner(size, rank)*len(v):][:len(v)]
	t := hmTake{threads: im[0] == v[0], own: own}
	if t.threads && ok && im[1] == 1 {
		for i := range t.wide {
			t.wide[i] = own[i] | uint64(im[2+i])
		}
		t.widen = t.wide != own
	}
	return t, nil
}

// duelThreads is how many threads HM on rank (even), with threads of
// its own, may take from its IM once that is done, where IM runs on the
// same node: IM's rank's own, where it serves this HM alone.
func duelThreads(threads, size, rank int) int {
	if threads > 0 && hmPartner(size, rank) == rank+1 {
		return threads
	}
	return 0
}

// hmStopped counts the HM runs of this process that a duel stopped (for
// the tests).
var hmStopped atomic.Int64

// startedUsed counts the runs that StartWhole started and mapStarted
// used (for the tests).
var startedUsed atomic.Int64

// pipelinesLive counts the goroutines of startWhole that run (for the
// tests: a run that nobody serves or drops never ends).
var pipelinesLive atomic.Int64

// hmWidened counts the HM runs of this process that took the CPUs of
// their IM's rank (for the tests).
var hmWidened atomic.Int64

// lentWidened counts the lone pipelines of this process that ran on the
// CPUs that rank 1 lent (for the tests).
var lentWidened atomic.Int64

// lentThreads is the thread count of the last lone pipeline that rank 1
// lent its threads to in this process, its own and rank 1's (for the
// tests).
var lentThreads atomic.Int64

// duelTag tags the IM mapping that a rank sends the rank of its duel's
// HM (sendIM, receiveIM).
const duelTag = 24

// wholeRun is a rank's share of the pipelines of a graph mapped whole,
// running on a goroutine of its own (startWhole), which calls no MPI:
// what they need of the other ranks the caller's goroutine does (serve).
type wholeRun struct {
	rank, size int
	mine       []gpumap.Options // wholePlan's, with opt.Threads (not widened by lent)
	duel       bool
	lend       bool          // rank 1 lends its CPUs to rank 0's lone pipeline (wholePlan)
	lent       int           // the threads of rank 1 that rank 0's pipeline runs on besides mine's
	imThreads  int           // HM's Duel.Threads
	give       chan []int32  // IM's mapping, for HM
	freed      chan struct{} // HM's Duel.Freed
	freeOnce   sync.Once     //
	out        chan outcome  // one per pipeline of mine, in order, until one fails
	prev       int           // GOMAXPROCS before startWhole raised it (serve or drop lowers it again)
	lower      sync.Once     // GOMAXPROCS back to prev
	used       bool          // started by a guess and served (mapStarted): on every rank, or on none
}

// outcome is one pipeline's result, error or panic.
type outcome struct {
	r     *gpumap.Result
	err   error
	panic any
}

// hm reports whether r runs a duel's HM.
func (r *wholeRun) hm() bool { return r.duel && r.rank%2 == 0 }

// startWhole starts the pipelines mine of rank of size ranks on cg
// (wholePlan), one after another on a goroutine of its own. A duel's HM
// (an even rank) takes imThreads more threads once IM is done (serve
// frees them); rank 0's lent pipeline runs on lent more from the start
// (borrow, capped at gpumap.MaxThreads). GOMAXPROCS is raised by as
// many (plus one where lent), and by one at least, until serve returns: the caller's goroutine, which calls MPI, keeps a
// P of its own beside the pipelines' threads (otherwise each return from
// an MPI call waits for a pipeline's goroutine to be preempted, up to
// 10-20 ms, while the other ranks spin in their MPI calls).
func startWhole(cg *graph.Graph, top *topology.Topology, mine []gpumap.Options, duel, lend bool, size, rank, imThreads, lent int) *wholeRun {
	r := &wholeRun{rank: rank, size: size, mine: mine, duel: duel, lend: lend, lent: lent, imThreads: imThreads,
		give: make(chan []int32, 1), freed: make(chan struct{}), out: make(chan outcome, len(mine))}
	run := borrow(mine, lent)
	extra := 1
	if lent > 0 {
		extra += run[0].Threads - mine[0].Threads
		lentThreads.Store(int64(run[0].Threads))
	}
	if r.hm() && imThreads > 1 {
		extra = imThreads
	}
	r.prev = runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(r.prev + extra)
	pipelinesLive.Add(1)
	go func() {
		defer pipelinesLive.Add(-1)
		for _, x := range run {
			o := r.runOne(cg, top, x)
			r.out <- o
			if o.err != nil || o.panic != nil {
				return
			}
		}
	}()
	return r
}

// runOne maps cg with x: a duel's HM with gpumap.MapDuel against the IM
// mapping that serve hands it, anything else with gpumap.Map. A panic
// is returned, with its stack, for serve to raise on the caller's
// goroutine (abortOnPanic).
func (r *wholeRun) runOne(cg *graph.Graph, top *topology.Topology, x gpumap.Options) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.panic = fmt.Sprintf("%v\n[on the pipeline's goroutine]\n%s", p, debug.Stack())
		}
	}()
	if r.hm() {
		defer r.free() // MapDuel returned: nothing takes IM's threads now
		o.r, o.err = gpumap.MapDuel(cg, top, x, gpumap.Duel{IM: r.give, Threads: r.imThreads, Freed: r.freed})
		return o
	}
	o.r, o.err = gpumap.Map(cg, top, x)
	return o
}

// free closes Freed (once).
func (r *wholeRun) free() { r.freeOnce.Do(func() { close(r.freed) }) }

// restore sets GOMAXPROCS back to what it was before startWhole (once).
func (r *wholeRun) restore() { r.lower.Do(func() { runtime.GOMAXPROCS(r.prev) }) }

// drop gives up r, which a guess started and nobody serves: its HM gets
// no IM mapping and runs to its end (MapDuel returns only once it has
// had one), then its goroutine ends. GOMAXPROCS is the caller's again.
// drop of nil does nothing; r is dropped once at most, and never served.
func (r *wholeRun) drop() {
	if r == nil {
		return
	}
	if r.hm() {
		r.give <- nil
	}
	r.restore()
}

// serve does, on the caller's goroutine (the one that may call MPI),
// what r's pipelines need of the other ranks of dc, and returns the
// mapping of least J among r's (feasible first): IM's rank sends its
// mapping to the HM ranks that duel it (sendIM), HM's rank receives
// IM's mapping and hands it to HM, which goes on meanwhile (receiveIM);
// take: what HM takes of IM's rank once IM is done (duelNodes).
func (r *wholeRun) serve(dc mpi.Comm, n int, take hmTake) (whole []int32, j int64, feasible bool, err error) {
	defer r.restore()
	j = math.MaxInt64
	if r.lent > 0 && take.threads && take.widen && setProcessMask(take.wide) {
		// Rank 1 maps nothing and waits in mpi.Barrier, which sleeps:
		// its CPUs are the lone pipeline's from the start.
		lentWidened.Add(1)
		defer setProcessMask(take.own)
	}
	for range r.mine {
		var o outcome
		var e error
		switch {
		case r.duel && r.rank%2 == 1:
			o = <-r.out
			e = sendIM(dc, r.rank, r.size, n, o)
		case r.duel:
			o, e = r.receiveIM(dc, n, take)
		default:
			o = <-r.out
		}
		if o.panic != nil {
			panic(o.panic)
		}
		if o.err != nil {
			e = o.err
		}
		if e != nil {
			return whole, j, feasible, e
		}
		if o.r == nil {
			hmStopped.Add(1)
			continue // HM stopped: its IM's mapping is the lower J
		}
		if whole == nil || o.r.Metrics.Feasible && !feasible || o.r.Metrics.Feasible == feasible && o.r.Metrics.J < j {
			whole, j, feasible = o.r.PE, o.r.Metrics.J, o.r.Metrics.Feasible
		}
	}
	return whole, j, feasible, nil
}

// sendIM sends IM's mapping o on rank of size ranks, or that IM failed,
// to the ranks whose HM duels it: the rank before, and the last rank
// where it has no IM of its own (odd size). The ranks that it sends to
// always receive, whatever their HM does.
func sendIM(dc mpi.Comm, rank, size, n int, o outcome) error {
	msg := make([]int32, n+1) // [0]: 1 where IM mapped, then its PEs
	if o.err == nil && o.panic == nil && o.r != nil {
		msg[0] = 1
		copy(msg[1:], o.r.PE)
	}
	var err error
	for _, to := range []int{rank - 1, rank + 1} {
		if to == rank-1 || to == size-1 && to%2 == 0 {
			if e := mpi.Send(dc, mpi.AsBytes(msg), to, duelTag); e != nil && err == nil {
				err = e
			}
		}
	}
	return err
}

// pollEvery is how often a rank that waits for another tests whether it
// may go on (receiveIM, mpi.Barrier): a millisecond, against the tenths
// of a second that a pipeline takes.
const pollEvery = time.Millisecond

// receiveIM serves HM, which runs on r's goroutine duelling the IM
// mapping that its partner rank sends (sendIM): this goroutine receives
// the mapping when it arrives (tested every pollEvery) and hands it to
// HM (gpumap.Duel), and where take, frees IM's threads for HM, as the
// one-process HM takes IM's thread: IM's rank then waits in mpi.Barrier,
// which sleeps. It returns HM's outcome, with a nil result where HM
// stopped (gpumap.MapDuel).
func (r *wholeRun) receiveIM(dc mpi.Comm, n int, take hmTake) (outcome, error) {
	im := hmPartner(r.size, r.rank)
	// IM's mapping is received by polling, never by a blocking receive:
	// MPI_Recv spins, and its rank's core is HM's or IM's.
	var recvErr error
	received := false
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	var out *outcome
	for out == nil || !received {
		select {
		case <-t.C:
			if received {
				continue
			}
			waits, err := mpi.Probe(dc, im, duelTag)
			if err == nil && !waits {
				continue
			}
			received = true
			t.Stop() // HM may run on long after: no more wakeups
			msg := make([]int32, n+1)
			if recvErr = err; err == nil {
				recvErr = mpi.Recv(dc, mpi.AsBytes(msg), im, duelTag)
			}
			if recvErr == nil && msg[0] == 1 {
				r.give <- msg[1:]
			} else {
				r.give <- nil // as where IM failed: HM goes on
			}
			if take.threads {
				if r.imThreads > 0 && take.widen && setProcessMask(take.wide) {
					hmWidened.Add(1)
					// The launcher's binding again once HM is done,
					// for the caller.
					defer setProcessMask(take.own)
				}
				r.free()
			}
		case o := <-r.out:
			out = &o
		}
	}
	if out.panic == nil && out.err == nil && recvErr != nil {
		return *out, recvErr
	}
	return *out, nil
}

// dealt returns the options that rank of size ranks runs out of the
// pipelines cands (see mapWhole): rank r runs cands[r mod C] with the
// seed plus r/C, or where lend (C = 1, wholePlan), rank 1 nothing and
// rank r >= 2 the seed plus r-1, so that P ranks try P-1 seeds in a row.
func dealt(cands []gpumap.Options, size, rank int, lend bool) []gpumap.Options {
	c := len(cands)
	if size < c {
		var mine []gpumap.Options
		for i := rank; i < c; i += size {
			mine = append(mine, cands[i])
		}
		return mine
	}
	o := cands[rank%c]
	switch {
	case lend && rank == 1:
		return nil // lends its CPUs to rank 0 (wholePlan)
	case lend && rank > 1:
		o.Seed += uint64(rank - 1)
	default:
		o.Seed += uint64(rank / c)
	}
	return []gpumap.Options{o}
}

// bestWhole returns, on every rank, the mapping whole of the rank with
// the least J among those with feasible mappings (all when none is), the
// lowest such rank on ties (collective).
func bestWhole(c mpi.Comm, rank, n int, whole []int32, j int64, feasible bool) ([]int32, error) {
	key := j
	if !feasible {
		key = math.MaxInt64
	}
	best, winner, err := mpi.MinLoc(c, key)
	if err != nil {
		return nil, err
	}
	if best == math.MaxInt64 {
		// No feasible mapping anywhere (a vertex heavier than Lmax):
		// the least J.
		if _, winner, err = mpi.MinLoc(c, min(j, graph.MaxCost)); err != nil {
			return nil, err
		}
	}
	if winner != rank {
		whole = make([]int32, n)
	}
	if err := mpi.BcastOf(c, whole, winner); err != nil {
		return nil, err
	}
	return whole, nil
}
