package cuda

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
)

// Profiling measures the model against a real device, kernel by kernel:
// with SetProfile(true) every launch, memset and device copy is followed by
// a synchronisation and its wall time is recorded beside its counts (the
// bytes of its formula and the gathers counted just before it). The
// synchronisations slow the mapping down (by about a sync per launch), so
// a profiled run's total is not the mapping's time; its kernels' times
// are, and the ratio of each to its modelled time says where the model is
// wrong or a kernel is slow. Under the emulator the wall times measure the
// emulator, and Profile says so.

// profiledSync is what a synchronisation after every launch adds to it:
// on the H200 of the calibration (see Device) a launch took 11.5 us
// synchronised, about 8.5 us in an unprofiled run.
const profiledSync = 3 * time.Microsecond

// KernelProfile is what one kernel did in the profiled mapping.
type KernelProfile struct {
	Name  string
	Phase Phase
	Counts
	Wall time.Duration // measured, synchronised after each launch
}

// profiler holds the per-kernel records of the current mapping.
type profiler struct {
	on      bool
	pending Counts         // gathers counted for the next launch
	target  *KernelProfile // late's kernel
	kernels map[[2]string]*KernelProfile
}

// SetProfile turns per-kernel measurement on or off (on: from the next
// mapping's upload on; off by default). Turning it off keeps the last
// profiled mapping's records for Profile.
func (b *Backend) SetProfile(on bool) { b.prof.on = on }

// reset starts a new mapping's records.
func (p *profiler) reset() {
	if p.on {
		*p = profiler{on: true, kernels: map[[2]string]*KernelProfile{}}
	}
}

// late runs f, which counts in phase ph what kernels already ran moved
// (known only from counts read back), and attributes it to the kernel
// name of that phase; the model prices it as that kernel's kind
// (Counts.Kinds).
func (b *Backend) late(ph Phase, name string, f func()) {
	before := b.stats.Phases[ph]
	k := b.prof.kernels[[2]string{ph.String(), name}]
	if b.prof.on && k != nil {
		b.prof.target = k
	}
	b.inLate = true
	f()
	b.inLate = false
	b.prof.target = nil
	after := &b.stats.Phases[ph]
	w := Work{Bytes: after.DeviceBytes, GatherBytes: after.GatherBytes, Gathers: after.Gathers}
	w.sub(Work{Bytes: before.DeviceBytes, GatherBytes: before.GatherBytes, Gathers: before.Gathers})
	after.Kinds[kindOf(name)].add(w)
	if b.prof.on && k != nil {
		k.DeviceBytes += w.Bytes
	}
}

// gathered attributes gathers to the next launch, or to late's kernel.
func (p *profiler) gathered(s int, count, bytes int64) {
	switch {
	case !p.on:
	case p.target != nil:
		p.target.Gathers[s] += count
		p.target.GatherBytes += bytes
	default:
		p.pending.Gathers[s] += count
		p.pending.GatherBytes += bytes
	}
}

// serial attributes round trips and atomics to the next launch, or to
// late's kernel.
func (p *profiler) serial(chain, atomics int64) {
	switch {
	case !p.on:
	case p.target != nil:
		p.target.Chain += chain
		p.target.Atomics += atomics
	default:
		p.pending.Chain += chain
		p.pending.Atomics += atomics
	}
}

// timed runs op (a launch or launch-like operation counted in c) and, when
// profiling, synchronises and records its wall time under name.
func (b *Backend) timed(name string, c Counts, op func() error) error {
	if !b.prof.on {
		return op()
	}
	start := time.Now()
	if err := op(); err != nil {
		return err
	}
	if err := b.stream.Synchronize(); err != nil {
		return err
	}
	wall := time.Since(start)
	c.Gathers, c.GatherBytes = b.prof.pending.Gathers, b.prof.pending.GatherBytes
	c.Chain, c.Atomics = b.prof.pending.Chain, b.prof.pending.Atomics
	b.prof.pending = Counts{}
	b.record(name, c, wall)
	return nil
}

// record adds c and wall to the profile's row of name in the current
// phase.
func (b *Backend) record(name string, c Counts, wall time.Duration) {
	if b.prof.kernels == nil { // profiling turned on since the last upload
		b.prof.kernels = map[[2]string]*KernelProfile{}
	}
	key := [2]string{b.phase.String(), name}
	k := b.prof.kernels[key]
	if k == nil {
		k = &KernelProfile{Name: name, Phase: b.phase}
		b.prof.kernels[key] = k
	}
	k.add(c)
	k.Wall += wall
}

// hostStep runs op, a driver call that the model does not price or prices
// by its transfer only (page-locking host memory, a copy from the host,
// freeing device memory: counted in c), and when profiling records its
// wall time under name: on the real H200 the coarsening phase of rgg
// 2^22 took twice its modelled time (upload included) and the mapping 13
// ms more than its phases, where no kernel was slow.
func (b *Backend) hostStep(name string, c Counts, op func() error) error {
	if !b.prof.on {
		return op()
	}
	start := time.Now()
	err := op()
	b.record(name, c, time.Since(start))
	return err
}

// Profile is the profiled mapping's kernels, the slowest first.
func (b *Backend) Profile() []KernelProfile {
	var ks []KernelProfile
	for _, k := range b.prof.kernels {
		ks = append(ks, *k)
	}
	slices.SortFunc(ks, func(x, y KernelProfile) int {
		return cmp.Or(cmp.Compare(y.Wall, x.Wall), cmp.Compare(x.Phase, y.Phase), strings.Compare(x.Name, y.Name))
	})
	return ks
}

// ProfileTable is Profile as a table: per kernel and phase its launches,
// bytes, gathers, measured time, the model's time on d (plus the
// synchronisation after each launch, profiledSync) and their ratio, and
// the bandwidth it reached (its formula's bytes over its time).
func (b *Backend) ProfileTable(d Device) string {
	var s strings.Builder
	if driver.Emulated() {
		s.WriteString("(emulated driver: the measured times are the emulator's)\n")
	}
	fmt.Fprintf(&s, "%-16s %-9s %8s %14s %11s %10s %10s %7s %9s\n", "kernel", "phase", "launches", "device_bytes",
		"gathers", "real_ms", "model_ms", "ratio", "GB/s")
	var tw, tm time.Duration
	for _, k := range b.Profile() {
		m := k.Counts.as(kindOf(k.Name)).EstimateOn(d) + time.Duration(k.Launches+k.Memsets+k.D2D)*profiledSync
		tw += k.Wall
		tm += m
		fmt.Fprintf(&s, "%-16s %-9s %8d %14d %11d %10.3f %10.3f %7.2f %9.1f\n", k.Name, k.Phase, k.Launches+k.Memsets+k.D2D,
			k.DeviceBytes, k.GatherCount(), ms(k.Wall), ms(m), ratio(k.Wall, m), float64(k.DeviceBytes)/max(k.Wall.Seconds(), 1e-9)/1e9)
	}
	fmt.Fprintf(&s, "%-16s %-9s %8s %14s %11s %10.3f %10.3f %7.2f\n", "total", "", "", "", "", ms(tw), ms(tm), ratio(tw, tm))
	return s.String()
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}
