package cuda

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Phase is a part of integrated mapping as the backend sees it.
type Phase int

const (
	PhaseUpload    Phase = iota // the input graph to the device
	PhaseMatch                  // two-hop matching
	PhaseContract               // coarse graphs
	PhaseInitial                // coarsest graph to the host, its mapping back
	PhaseProject                // coarse mapping to the finer level
	PhaseRefine                 // label propagation, J and balance per iteration
	PhaseRebalance              // weak and strong rebalancing
	PhaseDownload               // the mapping to the host
	numPhases
)

var phaseNames = [numPhases]string{"upload", "match", "contract", "initial", "project", "refine", "rebalance", "download"}

func (p Phase) String() string { return phaseNames[p] }

// Counts are what one phase did on the device: kernel launches, other
// launch-like operations (memsets, device-to-device copies),
// synchronisations, transfers, and the device memory traffic of the
// kernels as counted by their byte formulas (each kernel's launch site
// states what it reads and writes; see DEVELOPERS.md).
//
// The byte formulas count every element at its size. A gather (a load
// whose address is data: a neighbour's label, match or weight) moves a
// whole 32-byte sector, of which it uses 4 or 8 bytes, so the launch
// sites also count their gathers, by the size of the array they index
// (Gathers): the model charges each gather its sector, from the L2 cache
// when that array fits it, else from device memory. Lookups in per-block
// tables (labels, distances, block weights) are not counted: they stay in
// the L1 and L2 caches.
type Counts struct {
	Launches, Memsets, D2D, Syncs int64
	H2D, H2DBytes, H2DPinnedBytes int64
	D2H, D2HBytes                 int64
	DeviceBytes                   int64 // kernels, memsets and device copies
	// Gathers[s] are the gathers into arrays of at most 2^s bytes (and
	// more than 2^(s-1)); GatherBytes their elements' bytes, which
	// DeviceBytes includes.
	Gathers     [gatherSpans]int64
	GatherBytes int64
	// Kinds splits DeviceBytes and the gathers by the kind of the kernel
	// that moved them (kindOf its name): the kinds run at different
	// shares of the model's rates (Device.Kind). Work that no kind holds
	// counts as KindStream.
	Kinds [numKinds]Work
	// Chain is the memory round trips that wait for one another on the
	// longest path through a kernel whose work is one thread's loop (a
	// thread per PE, one block of threads): such a kernel costs its
	// latency, not its bytes. Atomics are global atomic additions into
	// few addresses (k block weights), which the L2 serialises.
	Chain, Atomics int64
}

// gatherSpans bounds the arrays a gather may index: 2^47 bytes.
const gatherSpans = 48

// Work is the memory traffic of some kernels: bytes of their formulas
// (gathered elements included) and gathers by span class, as in Counts.
type Work struct {
	Bytes, GatherBytes int64
	Gathers            [gatherSpans]int64
}

func (w *Work) add(o Work) {
	w.Bytes += o.Bytes
	w.GatherBytes += o.GatherBytes
	for i, g := range o.Gathers {
		w.Gathers[i] += g
	}
}

func (w *Work) sub(o Work) {
	w.Bytes -= o.Bytes
	w.GatherBytes -= o.GatherBytes
	for i, g := range o.Gathers {
		w.Gathers[i] -= g
	}
}

// Kind is a class of kernels by what their time beyond the launch
// follows on a real device (the H200 of Device's calibration).
type Kind int

const (
	// KindStream: loops over arrays and CSR rows whose counted bytes
	// are their time (scans, copies, the cheap per-vertex passes).
	KindStream Kind = iota
	// KindGather: row loops whose traffic is mostly neighbours' labels,
	// matches and weights (jet_lp, match_prefer, contract_insert,
	// reb_cand): on graphs numbered with locality, neighbours share
	// sectors that L1 keeps, and jet_lp's formula counts a table that a
	// thread keeps in registers when its degree allows.
	KindGather
	// KindSort: the per-row sort and compaction of coarse edges
	// (contract_compact), data-dependent loops through global memory.
	KindSort
	// KindMemset: the driver's memsets, which write at near the peak.
	KindMemset
	numKinds
)

// kindOf is the kind of the kernel called name (KindStream by default).
func kindOf(name string) Kind {
	switch name {
	case "jet_lp", "match_prefer", "contract_insert", "reb_cand":
		return KindGather
	case "contract_compact":
		return KindSort
	case "memset":
		return KindMemset
	}
	return KindStream
}

// as is c with all its traffic in kind k (a profiled kernel's counts).
func (c Counts) as(k Kind) Counts {
	c.Kinds = [numKinds]Work{}
	c.Kinds[k] = Work{Bytes: c.DeviceBytes, GatherBytes: c.GatherBytes, Gathers: c.Gathers}
	return c
}

func (c *Counts) add(o Counts) {
	c.Launches += o.Launches
	c.Memsets += o.Memsets
	c.D2D += o.D2D
	c.Syncs += o.Syncs
	c.H2D += o.H2D
	c.H2DBytes += o.H2DBytes
	c.H2DPinnedBytes += o.H2DPinnedBytes
	c.D2H += o.D2H
	c.D2HBytes += o.D2HBytes
	c.DeviceBytes += o.DeviceBytes
	for i, g := range o.Gathers {
		c.Gathers[i] += g
	}
	c.GatherBytes += o.GatherBytes
	for k := range o.Kinds {
		c.Kinds[k].add(o.Kinds[k])
	}
	c.Chain += o.Chain
	c.Atomics += o.Atomics
}

// GatherCount is the number of gathers.
func (c Counts) GatherCount() int64 {
	var t int64
	for _, g := range c.Gathers {
		t += g
	}
	return t
}

// gather counts, in the current phase, count loads of elem bytes each at
// data-dependent positions of an array of span bytes.
func (b *Backend) gather(count, elem, span int64) {
	if count <= 0 {
		return
	}
	c := b.count()
	c.Gathers[spanClass(span)] += count
	c.GatherBytes += count * elem
	if !b.inLate { // the next launch's (late attributes its own)
		b.pending.Gathers[spanClass(span)] += count
		b.pending.GatherBytes += count * elem
	}
	b.prof.gathered(spanClass(span), count, count*elem)
}

// serial counts, for the next launch in the current phase, the round
// trips on its critical path and its atomics into few addresses.
func (b *Backend) serial(chain, atomics int64) {
	c := b.count()
	c.Chain += chain
	c.Atomics += atomics
	b.prof.serial(chain, atomics)
}

// gatherIn is gather in phase p.
func (b *Backend) gatherIn(p Phase, count, elem, span int64) {
	prev := b.phase
	b.phase = p
	b.gather(count, elem, span)
	b.phase = prev
}

// spanClass is the least s with span <= 2^s.
func spanClass(span int64) int {
	s := 0
	for s < gatherSpans-1 && int64(1)<<s < span {
		s++
	}
	return s
}

// Device is a GPU as the model sees it, with figures measured on a real
// device rather than taken from its data sheet.
//
// Calibration (H200, 2026-11-27, BenchmarkProfile: every launch timed
// alone, bench/results-h200/3-merged-run.txt). The first fit (one rate
// for all bytes, 8.5 us per launch, 0.2 us per round trip) was within 20%
// on IM's totals, but per kernel it was off both ways: jet_lp at
// 0.44-0.53x its modelled time, reb_refine, reb_cut and contract_compact
// at 1.7-2.9x. The fit now is per kernel kind (Kind), a least-squares fit
// of the 145 kernel rows of IM on rgg 2^20 and 2^22 and a 3D grid 2^21
// and of GPU-HM on rgg 2^22 (the wide instance, a 121k-vertex graph,
// left out to check it), with one launch cost and one factor per kind on
// the time of its traffic at the byte and sector rates below, and one
// on the serial terms:
//
//   - a launch 14.3 us synchronised, so 11.3 us in a mapping (the 3 us of
//     the synchronisation after each, profiledSync): the steps are short
//     and each waits for the one before;
//   - KindStream 1.05: the byte formulas hold;
//   - KindGather 0.51: neighbours' labels on graphs numbered with
//     locality share sectors that stay in L1, so a gather moves less
//     than its sector, and jet_lp's formula counts the adjacent-block
//     table that a thread keeps in registers when its degree allows;
//   - KindSort 3.0 (1.9 on the grid, whose rows are shorter): the
//     per-row sort of contract_compact waits on global memory;
//   - serial terms 4.0 (so 0.81 us per round trip, 0.92 G/s for atomics
//     into few addresses; atomics alone fitted 4.3): the one-thread
//     loops (reb_refine, reb_cut, jet_stats, scan_mid) wait at block
//     barriers as well as for each load;
//   - memsets 5.7 us synchronised each (2.7 in a mapping), their bytes at
//     0.08 of the rate: the driver writes at about the peak.
//
// On the same rows this model gives 1.04, 0.96, 0.93 and 0.99 times the
// measured time of IM on rgg 2^20, 2^22, the grid and GPU-HM on rgg 2^22
// (the first fit: 0.88, 1.05, 0.86, 1.26), and 1.48 times the wide
// instance's (the first fit 0.69): small graphs' kernels are cheaper.
// The rates that the factors multiply: the launch sites' bytes at 1.66
// TB/s (35% of the H200's 4.8 TB/s peak: per-thread loops over CSR rows,
// not ideal streams), gathers' sectors at 7.8 TB/s from L2.
//
// The H100 is the same chip with 3.35 TB/s: its streamed bytes are
// charged at the H200's measured efficiency of the H100's peak (1.16
// TB/s), everything else as measured. The RTX 4090 (the paper's card,
// 1.008 TB/s, 72 MB L2, 128 SMs) is not measured: 35% of its peak, its
// L2 figure from microbenchmarks (~5 TB/s), the same launch, latency,
// atomic costs and kind factors.
type Device struct {
	Name          string
	Bandwidth     float64           // bytes/s of the launch sites' byte formulas, measured efficiency
	L2Bytes       int64             // L2 cache size
	L2Bandwidth   float64           // bytes/s of gathered sectors that hit L2
	Launch, Sync  float64           // s per launch (kernel, device copy), per synchronisation
	Memset        float64           // s per memset
	Latency       float64           // s per memory round trip on a kernel's critical path (Counts.Chain)
	AtomicRate    float64           // atomics/s into few addresses (Counts.Atomics)
	PCIePinned    float64           // bytes/s from page-locked host memory
	PCIePageable  float64           // bytes/s otherwise (the driver stages the copy)
	SectorBytes   int64             // what one gather moves
	Kind          [numKinds]float64 // the time of a kind's traffic relative to the rates above (0: 1)
	Specification string            // the device's figures, for the report
}

// kindFactors is Device.Kind as fitted on the H200 (see Device).
var kindFactors = [numKinds]float64{KindStream: 1.05, KindGather: 0.51, KindSort: 3.0, KindMemset: 0.08}

// withH200Fit gives d the figures fit on the H200's per-kernel times that
// every device the model knows shares: the launch, sync, memset and
// round-trip costs, the rate of atomics into few addresses and the kind
// factors (the other devices' own timings were never measured).
func withH200Fit(d Device) Device {
	d.Launch, d.Sync, d.Memset, d.Latency, d.AtomicRate = 11.3e-6, 20e-6, 2.7e-6, 0.81e-6, 0.92e9
	d.Kind = kindFactors
	return d
}

// The devices the model knows (see Device for where the figures come from).
var (
	H100 = withH200Fit(Device{Name: "H100", Bandwidth: 1.16e12, L2Bytes: 50 << 20, L2Bandwidth: 7.8e12,
		PCIePinned: 25e9, PCIePageable: 12.5e9, SectorBytes: 32,
		Specification: "calibrated per kernel kind on an H200: 1.16 TB/s of counted bytes (35% of peak; x1.05 streams, " +
			"x0.51 gathering row loops, x3.0 per-row sorts), L2 50 MB at 7.8 TB/s, 11.3 us per launch, 2.7 us per memset, " +
			"20 us per sync, 0.81 us per round trip on a serial path, atomics into few addresses at 0.92 G/s, " +
			"PCIe 25 GB/s pinned (12.5 pageable)"})
	RTX4090 = withH200Fit(Device{Name: "RTX 4090", Bandwidth: 0.35e12, L2Bytes: 72 << 20, L2Bandwidth: 5e12,
		PCIePinned: 25e9, PCIePageable: 12.5e9, SectorBytes: 32,
		Specification: "0.35 TB/s of counted bytes (35% of peak, as measured on an H200; the H200's kind factors), " +
			"L2 72 MB at 5 TB/s, 11.3 us per launch, 2.7 us per memset, 20 us per sync, 0.81 us per round trip, " +
			"atomics at 0.92 G/s, PCIe 4.0 25 GB/s pinned (12.5 pageable)"})
	// H200: the device the calibration ran on (BenchmarkProfile).
	H200 = withH200Fit(Device{Name: "H200", Bandwidth: 1.66e12, L2Bytes: 50 << 20, L2Bandwidth: 7.8e12,
		PCIePinned: 50e9, PCIePageable: 25e9, SectorBytes: 32,
		Specification: "measured: 1.66 TB/s of counted bytes (x1.05 streams, x0.51 gathering row loops, x3.0 per-row sorts), " +
			"L2 50 MB at 7.8 TB/s, 11.3 us per launch, 2.7 us per memset, 20 us per sync, " +
			"0.81 us per round trip, atomics at 0.92 G/s, PCIe 5.0 50 GB/s pinned (25 pageable)"})
)

// Estimate is the modelled H100 time of c, host work excluded.
func (c Counts) Estimate() time.Duration { return c.EstimateOn(H100) }

// EstimateOn is the modelled time of c on d, host work excluded: launches,
// memsets and synchronisations at their fixed costs; per kernel kind its
// streamed bytes at d's memory bandwidth and every gather's sector from
// L2 or memory, times the kind's factor; serial round trips at d's
// latency, atomics into few addresses at d's rate, transfers at PCIe
// speed.
func (c Counts) EstimateOn(d Device) time.Duration {
	// Traffic that no kind holds counts as KindStream.
	rest := Work{Bytes: c.DeviceBytes, GatherBytes: c.GatherBytes, Gathers: c.Gathers}
	t := 0.0
	for k, w := range c.Kinds {
		rest.sub(w)
		t += d.factor(Kind(k)) * d.traffic(w)
	}
	t += d.factor(KindStream)*d.traffic(rest) +
		float64(c.Launches+c.D2D)*d.Launch + float64(c.Memsets)*d.Memset + float64(c.Syncs)*d.Sync +
		float64(c.Chain)*d.Latency + float64(c.Atomics)/max(d.AtomicRate, 1) +
		float64(c.H2DPinnedBytes)/d.PCIePinned +
		float64(c.H2DBytes-c.H2DPinnedBytes+c.D2HBytes)/d.PCIePageable
	return time.Duration(math.Round(t * float64(time.Second)))
}

// factor is d.Kind[k], 0 meaning 1.
func (d Device) factor(k Kind) float64 {
	if d.Kind[k] == 0 {
		return 1
	}
	return d.Kind[k]
}

// traffic is the time of w at d's rates: its streamed bytes at the
// memory bandwidth, every gather's sector from L2 when the array it
// indexes takes at most half of it, else from memory.
func (d Device) traffic(w Work) float64 {
	mem := float64(w.Bytes - w.GatherBytes)
	l2 := 0.0
	for s, g := range w.Gathers {
		sectors := float64(g * d.SectorBytes)
		if int64(1)<<s <= d.L2Bytes/2 {
			l2 += sectors
		} else {
			mem += sectors
		}
	}
	return mem/d.Bandwidth + l2/d.L2Bandwidth
}

// HostPhase is host work inside a GPU run, which the device model does
// not cover: it is measured and added to the estimate (as the phase would
// take alone on the machine, runstat.Timed, so that other processes' load
// does not count).
type HostPhase int

const (
	HostInitial HostPhase = iota // the coarsest graph's mapping (transfers excluded: the model has them)
	HostRefine                   // refinement on the host after the device is done
	HostOther                    // any other host work between device phases
	numHostPhases
)

var hostPhaseNames = [numHostPhases]string{"initial", "refine", "other"}

func (p HostPhase) String() string { return hostPhaseNames[p] }

// AddHost records d of host work in phase p of the current mapping (the
// integrated pipeline records its initial mapping and final refinement;
// any pipeline on this backend records its own).
func (b *Backend) AddHost(p HostPhase, d time.Duration) { b.stats.Host[p] += d }

// Stats are the counts of one mapping, per phase, and its host work.
type Stats struct {
	Phases [numPhases]Counts
	Host   [numHostPhases]time.Duration
}

// HostTotal is the measured host work.
func (s Stats) HostTotal() time.Duration {
	var t time.Duration
	for _, d := range s.Host {
		t += d
	}
	return t
}

// EstimateTotal is the modelled device time on d plus the measured host
// work: what the mapping would take end to end.
func (s Stats) EstimateTotal(d Device) time.Duration { return s.Total().EstimateOn(d) + s.HostTotal() }

// Total sums the phases.
func (s Stats) Total() Counts {
	var t Counts
	for _, c := range s.Phases {
		t.add(c)
	}
	return t
}

// Line is the machine-readable summary: gpu: launches=L syncs=S
// h2d_bytes=X d2h_bytes=Y est_h100_ms=T est_total_ms=U, where T is the
// device model (H100) and U adds the measured host work.
func (s Stats) Line() string {
	t := s.Total()
	return fmt.Sprintf("gpu: launches=%d syncs=%d h2d_bytes=%d d2h_bytes=%d est_h100_ms=%.3f est_total_ms=%.3f",
		t.Launches, t.Syncs, t.H2DBytes, t.D2HBytes, ms(t.Estimate()), ms(s.EstimateTotal(H100)))
}

// Table is the per-phase model, one line per phase, then the total and
// the machine-readable line.
func (s Stats) Table() string {
	var b strings.Builder
	// est_h200 is the device of the only real runs (bench/results-h200):
	// their phase times compare with it, not with the H100's column.
	fmt.Fprintf(&b, "estimated H100 time (a model calibrated on a real H200, not a measurement): %s; est_4090: the RTX 4090, %s; "+
		"est_h200: the H200, %s; a gather moves a 32-byte sector; host work measured, not modelled\n",
		H100.Specification, RTX4090.Specification, H200.Specification)
	fmt.Fprintf(&b, "%-10s %8s %7s %6s %12s %12s %14s %11s %10s %10s %10s\n", "phase", "launches", "other", "syncs",
		"h2d_bytes", "d2h_bytes", "device_bytes", "gathers", "est_ms", "est_4090", "est_h200")
	row := func(name string, c Counts) {
		fmt.Fprintf(&b, "%-10s %8d %7d %6d %12d %12d %14d %11d %10.3f %10.3f %10.3f\n", name, c.Launches, c.Memsets+c.D2D,
			c.Syncs, c.H2DBytes, c.D2HBytes, c.DeviceBytes, c.GatherCount(), ms(c.Estimate()), ms(c.EstimateOn(RTX4090)),
			ms(c.EstimateOn(H200)))
	}
	for p, c := range s.Phases {
		row(Phase(p).String(), c)
	}
	row("total", s.Total())
	for p, d := range s.Host {
		fmt.Fprintf(&b, "host %-16s %10.3f ms measured (alone)\n", HostPhase(p).String(), ms(d))
	}
	fmt.Fprintf(&b, "total with host work: %.3f ms (H100), %.3f ms (RTX 4090), %.3f ms (H200)\n",
		ms(s.EstimateTotal(H100)), ms(s.EstimateTotal(RTX4090)), ms(s.EstimateTotal(H200)))
	b.WriteString(s.Line())
	b.WriteByte('\n')
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
