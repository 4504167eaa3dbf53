package gpumap

import (
	"errors"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda"
	"github.com/gpumap/gpumap/gpumap/devhm"
	"github.com/gpumap/gpumap/gpumap/runstat"
)

// gpuMultisection is hierarchical multisection on the selected
// data-parallel backend (GPU-HM, package devhm), followed on the CPU by
// the final J refinement, as integrated is. -c strong is the paper's
// ultra configuration: more tries per split and longer Jet loops. A graph
// too large for the device, or a machine whose groups are irregular, runs
// the CPU multisection instead, with a message.
func (p *pipeline) gpuMultisection() []int32 {
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
	p.t.logf("gpu-hm on %s: %d partitions (a machine level each, tries included), %d coarse levels, host partitions of the coarsest graphs %.2f ms, total %.2f ms",
		b.Name(), tm.Splits, tm.Levels, ms(tm.Initial), ms(tm.Total))
	gb, onGPU := b.(*cuda.Backend)
	if !onGPU {
		p.refineJ(pe)
		return pe
	}
	// The gpu: line counts the host's work: the coarsest graphs'
	// partitions and the final J refinement, each as it takes alone.
	gb.AddHost(cuda.HostInitial, tm.InitialHost)
	_, alone := runstat.Timed(func() { p.refineJ(pe) })
	gb.AddHost(cuda.HostRefine, alone)
	p.t.raw(gb.Report())
	return pe
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
