package distmap

import (
	"hash/fnv"
	"math"
	"runtime"
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
// gpumap.Map itself on the rank's threads. Where Map duels HM and IM
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
	cg, err := gather(g)
	if err != nil {
		return nil, err
	}
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
	defer func() { abortOnPanic(c, recover()) }()
	_, _, _, _, rank := mpi.Inspect(c)
	if err := checkOptions(c, rank, top, opt); err != nil {
		return nil, graph.Metrics{}, err
	}
	return mapGathered(c, g, top, opt)
}

// mapGathered maps cg, the same graph on every rank of c, as mapWhole
// does, and returns the whole mapping and its metrics on every rank.
func mapGathered(c mpi.Comm, cg *graph.Graph, top *topology.Topology, opt Options) ([]int32, graph.Metrics, error) {
	_, _, _, size, rank := mpi.Inspect(c)
	o := gpumap.DefaultOptions()
	o.Preset, o.Eps, o.Threads, o.Seed = opt.Preset, opt.Eps, opt.Threads, opt.Seed
	// The ranks of a node would each open the GPU.
	o.Backend = gpumap.CPU
	mine := []gpumap.Options{o}
	duel := false
	if size > 1 {
		var cands []gpumap.Options
		cands, duel = gpumap.Split(cg, top, o)
		mine = dealt(cands, size, rank)
		// The duel's messages and barrier need every rank to duel or
		// none: a graph that differs between ranks (MapWhole's caller)
		// is told, not left to hang.
		d := int64(0)
		if duel {
			d = 1
		}
		v := []int64{d, -d, int64(cg.N()), -int64(cg.N()), cg.M(), -cg.M()}
		if err := mpi.Allreduce(c, v, mpi.Max); err != nil {
			return nil, graph.Metrics{}, err
		}
		if v[0] != -v[1] || v[2] != -v[3] || v[4] != -v[5] {
			return nil, graph.Metrics{}, &Error{KindInconsistent, "the graph to map whole differs between ranks"}
		}
	}
	// The duel's messages go on a communicator of their own, where no
	// receive of the caller's can match them.
	dc := c
	var nodes []int64
	if duel {
		var err error
		if dc, err = mpi.Copy(c, true); err != nil {
			return nil, graph.Metrics{}, err
		}
		defer mpi.Free(dc)
		// Which ranks share a node: HM takes the threads of an IM done
		// on its own node alone.
		h := fnv.New64a()
		h.Write([]byte(mpi.ProcessorName()))
		if nodes, err = mpi.Allgather(dc, []int64{int64(h.Sum64())}, size); err != nil {
			return nil, graph.Metrics{}, err
		}
	}
	var whole []int32
	var err error
	j, feasible := int64(math.MaxInt64), false
	for _, x := range mine {
		var r *gpumap.Result
		var e error
		switch {
		case duel && rank%2 == 1:
			r, e = mapIM(dc, rank, size, cg, top, x)
		case duel:
			partner := rank + 1
			if partner == size {
				partner = rank - 1
			}
			imThreads := 0
			if nodes[partner] == nodes[rank] && x.Threads > 0 && partner == rank+1 {
				imThreads = x.Threads
			}
			r, e = mapHM(dc, partner, imThreads, cg, top, x)
		default:
			r, e = gpumap.Map(cg, top, x)
		}
		if e != nil {
			err = e
			break
		}
		if r == nil {
			hmStopped.Add(1)
			continue // HM stopped: its IM's mapping is the lower J
		}
		if whole == nil || r.Metrics.Feasible && !feasible || r.Metrics.Feasible == feasible && r.Metrics.J < j {
			whole, j, feasible = r.PE, r.Metrics.J, r.Metrics.Feasible
		}
	}
	if size > 1 {
		// The ranks done first wait without spinning, leaving their
		// cores to the others (HM: mapHM); agree's allreduce would spin
		// (with several ranks to a core, the spinning ranks took the
		// mapping ranks' time).
		if e := mpi.Barrier(dc, pollEvery); e != nil && err == nil {
			err = e
		}
	}
	if err := agree(c, err); err != nil {
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

// hmStopped counts the HM runs of this process that a duel stopped (for
// the tests).
var hmStopped atomic.Int64

// duelTag tags the IM mapping that a rank sends the rank of its duel's
// HM (mapIM, mapHM).
const duelTag = 24

// mapIM maps cg with IM's options x on rank of size ranks and sends the
// mapping, or that IM failed, to the ranks whose HM duels it: the rank
// before, and the last rank where it has no IM of its own (odd size).
// The ranks that it sends to always receive, whatever their HM does.
func mapIM(dc mpi.Comm, rank, size int, cg *graph.Graph, top *topology.Topology, x gpumap.Options) (*gpumap.Result, error) {
	r, err := gpumap.Map(cg, top, x)
	msg := make([]int32, cg.N()+1) // [0]: 1 where IM mapped, then its PEs
	if err == nil {
		msg[0] = 1
		copy(msg[1:], r.PE)
	}
	for _, to := range []int{rank - 1, rank + 1} {
		if to == rank-1 || to == size-1 && to%2 == 0 {
			if e := mpi.Send(dc, mpi.AsBytes(msg), to, duelTag); e != nil && err == nil {
				err = e
			}
		}
	}
	return r, err
}

// pollEvery is how often a rank that waits for another tests whether it
// may go on (mapHM, mpi.Barrier): a millisecond, against the tenths of a
// second that a pipeline takes.
const pollEvery = time.Millisecond

// mapHM maps cg with HM's options x duelling the IM mapping that rank im
// sends (mapIM): HM runs on a goroutine of its own, and this goroutine,
// the one that may call MPI, receives IM's mapping when it arrives
// (tested every pollEvery) and hands it to HM, which goes on meanwhile
// (gpumap.Duel). Where IM's rank runs on this node (imThreads > 0), HM
// takes its threads once IM's mapping is here, as the one-process HM
// takes IM's thread: IM's rank then waits in mpi.Barrier, which sleeps.
// It returns nil, nil where HM stopped (gpumap.MapDuel).
func mapHM(dc mpi.Comm, im, imThreads int, cg *graph.Graph, top *topology.Topology, x gpumap.Options) (*gpumap.Result, error) {
	type outcome struct {
		r     *gpumap.Result
		err   error
		panic any
	}
	if imThreads > 0 {
		prev := runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(prev + imThreads)
		defer runtime.GOMAXPROCS(prev)
	}
	give, done := make(chan []int32, 1), make(chan outcome, 1)
	freed := make(chan struct{})
	go func() {
		var o outcome
		defer func() {
			o.panic = recover() // raised again on the caller's goroutine
			done <- o
		}()
		o.r, o.err = gpumap.MapDuel(cg, top, x, gpumap.Duel{IM: give, Threads: imThreads, Freed: freed})
	}()
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
			msg := make([]int32, cg.N()+1)
			if recvErr = err; err == nil {
				recvErr = mpi.Recv(dc, mpi.AsBytes(msg), im, duelTag)
			}
			if recvErr == nil && msg[0] == 1 {
				give <- msg[1:]
			} else {
				give <- nil // as where IM failed: HM goes on
			}
			close(freed)
		case o := <-done:
			out = &o
		}
	}
	if out.panic != nil {
		panic(out.panic)
	}
	if out.err == nil && recvErr != nil {
		return nil, recvErr
	}
	return out.r, out.err
}

// dealt returns the options that rank of size ranks runs out of the
// pipelines cands (see mapWhole).
func dealt(cands []gpumap.Options, size, rank int) []gpumap.Options {
	c := len(cands)
	if size < c {
		var mine []gpumap.Options
		for i := rank; i < c; i += size {
			mine = append(mine, cands[i])
		}
		return mine
	}
	o := cands[rank%c]
	o.Seed += uint64(rank / c)
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
