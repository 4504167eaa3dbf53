package mpirank

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/hwdetect"
	"github.com/gpumap/gpumap/topology"
)

// rootMode is what rank 0 does with the gathered patterns.
type rootMode int

const (
	modeMap  rootMode = iota // map and return every rank's new rank
	modeCost                 // only the cost of the current order (gpumap_cost, GPUMAP_DISABLE)
)

// maxPayload bounds one rank's decoded pattern (a degree of 2^31 takes
// about 28 GiB): a corrupted length never allocates more.
const maxPayload = 1 << 35

// mapOnRoot is rank 0's work in a call to Reorder (Cost when evalOnly)
// with options opt, for tests and benchmarks.
func mapOnRoot(all []byte, sizes, displs []int32, opt Options, evalOnly bool) ([]int32, Result, *Error) {
	kind, mode := callReorder, modeMap
	if evalOnly {
		kind = callCost
	}
	cn, e := canonical(kind, opt)
	if e != nil {
		return nil, Result{}, e
	}
	if evalOnly || cn.disabled {
		mode = modeCost
	}
	log := opt.Log
	if log == nil {
		log = os.Stderr
	}
	return rootWork(all, sizes, displs, opt, cn, mode, log)
}

// rootWork decodes the patterns, builds the task graph and the machine
// and maps; every failure, panics included, becomes an *Error. keys[r] is
// the new rank of process r (nil in modeCost).
func rootWork(all []byte, sizes, displs []int32, opt Options, cn canon, mode rootMode, log io.Writer) (keys []int32, res Result, e *Error) {
	defer func() {
		if p := recover(); p != nil {
			e = errorf(ErrInternal, "panic on rank 0: %v\n%s", p, debug.Stack())
		}
	}()
	cn.warn(log)
	size := len(sizes)
	pats := make([]payload, size)
	recs := make([]hwdetect.Record, size)
	for r := range pats {
		p, err := decodePayload(all[displs[r]:displs[r]+sizes[r]], maxPayload)
		if err != nil {
			return nil, res, errorf(ErrInternal, "pattern of rank %d: %v", r, err)
		}
		if le := checkLocal(r, size, p.Neighbors, p.Volumes); le != nil {
			return nil, res, le
		}
		pats[r], recs[r] = p, p.Rec
	}
	w, me := merge(pats, opt.Pattern)
	if me != nil {
		return nil, res, me
	}
	pats = nil
	m, err := hwdetect.Infer(recs, hwdetect.Spec{Hierarchy: topology.FormatInts(cn.hierarchy)})
	if err != nil {
		return nil, res, errorf(ErrOptions, "%v", err)
	}
	if cn.distance != nil {
		if len(cn.distance) != m.Top.Levels() {
			return nil, res, errorf(ErrOptions, "distance %s (%s) has %d levels but the machine has %d (%s, machine)",
				topology.FormatInts(cn.distance), cn.distanceFrom, len(cn.distance), m.Top.Levels(), strings.Join(m.Levels, ", "))
		}
		if m.Top, err = m.Top.WithDistances(cn.distance); err != nil {
			return nil, res, errorf(ErrOptions, "%v", err)
		}
	}
	res.Machine = m.Describe()
	if res.JBefore, e = w.cost(m.Top, func(t int32) int { return m.Slot[t] }); e != nil {
		return nil, res, e
	}
	res.JAfter = res.JBefore
	if mode == modeCost {
		return nil, res, nil
	}
	top, g, err := w.taskGraph(m.Top)
	if err != nil {
		return nil, res, errorf(ErrInternal, "task graph: %v", err)
	}
	mo := gpumap.DefaultOptions()
	mo.Preset, mo.Seed, mo.Eps, mo.Threads, mo.Backend, mo.Algorithm = opt.Preset, opt.Seed, 0, opt.Threads, opt.Backend, opt.Algorithm
	if opt.Verbosity >= 2 {
		mo.Progress = log
	}
	out, err := gpumap.Map(g, top, mo)
	if err != nil {
		return nil, res, errorf(MapCode(err), "%v", err)
	}
	if !out.Metrics.Feasible {
		return nil, res, errorf(ErrInfeasible, "the mapping is not a permutation (max load %d)", out.Metrics.MaxBlock)
	}
	// Task t runs on PE out.PE[t], played by process m.Rank[PE]: that
	// process gets new rank t.
	keys = make([]int32, size)
	for t, p := range out.PE {
		keys[m.Rank[p]] = int32(t)
	}
	after, e := w.cost(m.Top, func(t int32) int { return int(out.PE[t]) })
	if e != nil {
		return nil, res, e
	}
	if after < res.JBefore*(1-MinGain) {
		res.JAfter = after
		for r, k := range keys {
			if int(k) != r {
				res.Changed++
			}
		}
	} else {
		// Not clearly better: keep the caller's order.
		for r := range keys {
			keys[r] = int32(r)
		}
	}
	writeReport(log, w, m, recs, keys)
	return keys, res, nil
}

// jMax keeps J of the integer task graph (weights times distances) at most
// graph.MaxCost; distMax is the largest distance the task graph's machine
// keeps (larger ones are scaled down, in proportion).
const (
	weightScale = 1 << 24
	distMax     = 1 << 20
)

// taskGraph turns merged volumes into a unit-weight task graph with
// integer edge weights proportional to the volumes (the largest is 2^24)
// on a machine with the same structure, whose distances are scaled down
// when the largest exceeds 2^20, and the weights too when needed, so that
// the mapper's J cannot overflow (a distance of 2^40 is valid input). The
// costs reported are computed from the doubles and the real distances.
func (w *weighted) taskGraph(top *topology.Topology) (*topology.Topology, *graph.Graph, error) {
	dist := top.Distances()
	maxD := top.MaxDistance()
	if maxD > distMax {
		for i, d := range dist {
			if d > 0 {
				dist[i] = max(1, int64(math.Round(float64(d)/float64(maxD)*distMax)))
			}
		}
		var err error
		if top, err = top.WithDistances(dist); err != nil {
			return nil, nil, err
		}
		maxD = top.MaxDistance()
	}
	// Weights are at most scale*vol/maxV + 1/2 each: their sum times maxD
	// stays below graph.MaxCost.
	rel := 0.0
	for _, v := range w.vol {
		if w.maxV > 0 {
			rel += v / w.maxV
		}
	}
	scale := float64(weightScale)
	limit := min(float64(graph.MaxCost)/float64(max(maxD, 1)), graph.MaxTotalEdgeWeight) - float64(len(w.vol))
	if rel > 0 && scale*rel > limit {
		scale = math.Floor(limit / rel)
	}
	if scale < 1 {
		return nil, nil, fmt.Errorf("%d edges are too many for distances up to %d", len(w.vol), maxD)
	}
	b := graph.NewBuilder(w.n)
	for i := range w.u {
		iw := int64(0)
		if w.maxV > 0 {
			iw = int64(math.Round(w.vol[i] / w.maxV * scale))
		}
		b.AddEdge(int(w.u[i]), int(w.v[i]), iw)
	}
	g, err := b.Build()
	return top, g, err
}

// cost is J in bytes x distance (a double) when task t runs on PE pe(t);
// a sum beyond the largest double is an input error.
func (w *weighted) cost(top *topology.Topology, pe func(t int32) int) (float64, *Error) {
	var j float64
	for i := range w.u {
		j += w.vol[i] * float64(top.Distance(pe(w.u[i]), pe(w.v[i])))
	}
	if math.IsInf(j, 0) {
		return 0, errorf(ErrVolume, "the cost of the placement overflows a double: volumes times distances exceed %g (largest volume between two ranks %g, largest distance %d)", math.MaxFloat64, w.maxV, top.MaxDistance())
	}
	return j, nil
}
