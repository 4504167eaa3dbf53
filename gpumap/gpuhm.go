package gpumap

import (
	"errors"
	"fmt"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/gpumap/runstat"
	"github.com/gpumap/gpumap/topology"
)

// gpuBothMaxEdges: below it, -a auto on a GPU maps with GPU-HM and with
// GPU-IM, one after the other on the device, and keeps the lower J (the
// feasible mapping first, GPU-HM on ties): the measurement that default
// -a auto makes on the CPU below bothMaxEdges, where neither algorithm
// wins everywhere. Both together stay cheap below it: an rgg of 2^17
// vertices and 0.73M edges onto 4:8:6 (emulated driver, est_total_ms:
// the H100 model plus the host's measured work) takes 102 ms with GPU-HM
// (46 on the device) and 44 with GPU-IM (16), and GPU-HM's J is 16%
// lower there (262,416 against 312,309). Larger graphs take GPU-IM, the
// fast one, whose time issue 26 sets (the CPU's features, measured on
// the host, would cost more than it). Wide machines (the preset's
// WideConfig applies) take GPU-IM alone: GPU-HM there partitions
// thousands of tiny parts on the host (2.3 s on a 121k-vertex rgg onto
// 4:8:64:8:6). A variable for the tests.
var gpuBothMaxEdges int64 = 1 << 20

// gpuMeasuresBoth reports whether p, -a auto on a GPU, maps with GPU-HM
// and GPU-IM and keeps the better (gpuBothMaxEdges).
func (p *pipeline) gpuMeasuresBoth() bool {
	return p.opt.Algorithm == AutoAlgorithm && !onCPU(p.backend) && p.g.M() < gpuBothMaxEdges &&
		!p.cfg.wide.Applies(p.g.N(), p.top.K())
}

// gpuBoth maps with GPU-HM and GPU-IM on the device and keeps the lower
// J (gpuBothMaxEdges); the gpu: line counts both.
func (p *pipeline) gpuBoth() []int32 {
	if gb, ok := p.backend.(*cuda.Backend); ok {
		gb.Accumulate(true)
		defer gb.Accumulate(false)
	}
	hm := p.gpuHM(false)
	if p.err != nil {
		return nil
	}
	im := p.integrated()
	if p.err != nil {
		return nil
	}
	mh, errH := graph.Evaluate(p.g, p.top, hm, p.opt.Eps)
	mi, errI := graph.Evaluate(p.g, p.top, im, p.opt.Eps)
	if errH != nil || errI != nil {
		p.fail(fmt.Errorf("%w: %w", ErrInternal, errors.Join(errH, errI)))
		return nil
	}
	if mi.Feasible && !mh.Feasible || mi.Feasible == mh.Feasible && mi.J < mh.J {
		p.t.logf("auto on the GPU: IM's J %d below HM's %d: IM's mapping kept", mi.J, mh.J)
		return im
	}
	p.t.logf("auto on the GPU: HM's J %d, IM's %d: HM's mapping kept", mh.J, mi.J)
	return hm
}

// gpuMultisection is hierarchical multisection on the selected
// data-parallel backend (GPU-HM, package devhm), followed under -c strong
// by the final J refinement on the CPU (hostRefinesHM); -a auto below
// gpuBothMaxEdges runs GPU-IM beside it (gpuBoth). -c strong is the
// paper's ultra configuration: more tries per split and longer Jet loops.
// A graph too large for the device, or a machine whose groups are
// irregular, runs the CPU multisection instead, with a message.
func (p *pipeline) gpuMultisection() []int32 {
	if p.gpuMeasuresBoth() {
		return p.gpuBoth()
	}
	return p.gpuHM(true)
}

// hostRefinesHM says whether the host's final J pass (refineJ) follows
// GPU-HM: under -c strong (ultra, the quality mode) only. On rgg 2^22
// onto 4:8:6 it took 348 ms of the 907.6 ms est_total (an H200's host,
// 16 threads) for J -0.2%, and on the held-out rgg 2^18, fe_sphere and
// bcsstk33 onto 4:8:{2,6} J -0.08% (geometric mean; GPU-HM default's J
// over the CPU default preset's 0.9919 with it, 0.9927 without). The
// device's Jet loop on J does not replace it: on GPU-HM's mappings,
// whose heaviest blocks are at Lmax, 12 iterations found no lower J on
// rgg 2^16 onto 4:8:6 nor on the three held-out graphs (moves of gain
// >= 0 overload a block, rebalancing costs more than they gained).
func (p *pipeline) hostRefinesHM() bool { return p.opt.Preset == Strong }

// gpuHM is GPU-HM and, where hostRefinesHM, the final J refinement; with
// report, the gpu: line.
func (p *pipeline) gpuHM(report bool) []int32 {
	b, ok := p.backend.(backend.Multisection)
	if !ok {
		return p.multisection()
	}
	c := p.gpuHMConfig()
	var pe []int32
	var tm devhm.Times
	var err error
	p.t.phase("gpu-hm", func() {
		pe, tm, err = devhm.Map(b, p.x, p.g, p.top, p.opt.Eps, c)
	})
	if errors.Is(err, cuda.ErrTooLarge) || errors.Is(err, cuda.ErrOutOfMemory) || errors.Is(err, devhm.ErrIrregular) {
		p.t.logf("%v: using the CPU", err)
		b.Close()
		p.backend = cpu.New(p.opt.Threads)
		return p.multisection()
	}
	if err != nil {
		p.fail(err)
		return nil
	}
	p.t.logf("gpu-hm on %s: %d partitions (a machine level each, tries and V-cycles included), %d coarse levels, host partitions of the coarsest graphs %.2f ms, total %.2f ms",
		b.Name(), tm.Splits, tm.Levels, ms(tm.Initial), ms(tm.Total))
	refine := func() {
		p.feasibleHM(pe)
		if p.hostRefinesHM() {
			p.refineJ(pe)
		} else {
			p.t.logf("refine-J: skipped after GPU-HM (the host's J pass is -c strong's)")
		}
	}
	gb, onGPU := b.(*cuda.Backend)
	if !onGPU {
		refine()
		return pe
	}
	// The gpu: line counts the host's work: the coarsest graphs'
	// partitions and the final J refinement, each as it takes alone.
	gb.AddHost(cuda.HostInitial, tm.InitialHost)
	_, alone := runstat.Timed(refine)
	gb.AddHost(cuda.HostRefine, alone)
	if report {
		p.t.raw(gb.Report())
	}
	return pe
}

// feasibleHM moves vertices out of the PEs that GPU-HM left above Lmax,
// on the host, by the J-aware rebalancing of the CPU's refinement
// (least loss first, to an adjacent PE with room, else the nearest), and
// says so. The device's Jet loop rebalances every level, but where the
// levels above leave a group almost no slack it can stop one vertex
// over: wiki-Vote (7,115 vertices) onto 4:8:2, GPU-HM default and
// ultra, a group of 4 PEs held 459 of its 460 and split 114/116/114/115
// (Lmax 115), and ultra on R-MAT 2^15 graphs onto 4:8:6 ended a PE at
// Lmax + 1. A mapping GPU-HM leaves feasible is not touched (one pass
// over the loads). Both backends run it, so they still map alike.
func (p *pipeline) feasibleHM(pe []int32) {
	if over, delta, ok := rebalanceAbove(p.g, p.top, p.lmax, pe); over > 0 {
		p.t.logf("gpu-hm: %d PEs above Lmax %d after the device's levels: the host moved vertices out (J %+d), feasible=%v", over, p.lmax, -delta, ok)
	}
}

// rebalanceAbove rebalances pe, a mapping of g onto top, in place where
// a PE holds more than lmax (refinement.Rebalance on J): over is the
// number of such PEs before (0: pe untouched), delta Rebalance's change
// in cost (negative where J rose), ok whether pe is now feasible.
func rebalanceAbove(g *graph.Graph, top *topology.Topology, lmax int64, pe []int32) (over int, delta int64, ok bool) {
	load := make([]int64, top.K())
	for v, q := range pe {
		load[q] += g.VW[v]
	}
	for _, w := range load {
		if w > lmax {
			over++
		}
	}
	if over == 0 {
		return 0, 0, true
	}
	maxW := make([]int64, top.K())
	for i := range maxW {
		maxW[i] = lmax
	}
	delta, ok = refinement.Rebalance(refinement.NewState(g, top.K(), pe, maxW, refinement.Mapping(top)))
	return over, delta, ok
}

// gpuHMConfig is GPU-HM's configuration under the preset: strong runs
// the ultra configuration.
func (p *pipeline) gpuHMConfig() devhm.Config {
	c := devhm.Default
	if p.opt.Preset == Strong {
		c = devhm.Ultra
	}
	c.Seed = p.opt.Seed
	return c
}

func onCPU(b backend.Backend) bool {
	_, ok := b.(*cpu.Backend)
	return ok
}
