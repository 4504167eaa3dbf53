package cuda

import (
	"fmt"
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
type Counts struct {
	Launches, Memsets, D2D, Syncs int64
	H2D, H2DBytes, H2DPinnedBytes int64
	D2H, D2HBytes                 int64
	DeviceBytes                   int64 // kernels, memsets and device copies
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
}

// The H100 the model assumes.
const (
	H100Bandwidth    = 3e12   // bytes/s, device memory
	H100Launch       = 5e-6   // s per launch (kernel, memset, device copy)
	H100Sync         = 20e-6  // s per synchronisation
	PCIePinned       = 25e9   // bytes/s, pinned host memory
	PCIePageable     = 12.5e9 // bytes/s, pageable host memory (the driver stages it)
	modelDescription = "estimated H100 time (a model, not a measurement): 3 TB/s device memory, 5 us per launch, 20 us per sync, PCIe 25 GB/s pinned (12.5 pageable); host work (the coarsest graph's mapping) excluded"
)

// Estimate is the modelled H100 time of c, host work excluded.
func (c Counts) Estimate() time.Duration {
	s := float64(c.Launches+c.Memsets+c.D2D)*H100Launch + float64(c.Syncs)*H100Sync +
		float64(c.DeviceBytes)/H100Bandwidth + float64(c.H2DPinnedBytes)/PCIePinned +
		float64(c.H2DBytes-c.H2DPinnedBytes+c.D2HBytes)/PCIePageable
	return time.Duration(s * float64(time.Second))
}

// Stats are the counts of one mapping, per phase.
type Stats struct {
	Phases [numPhases]Counts
}

// Total sums the phases.
func (s Stats) Total() Counts {
	var t Counts
	for _, c := range s.Phases {
		t.add(c)
	}
	return t
}

// Line is the machine-readable summary:
// gpu: launches=L syncs=S h2d_bytes=X d2h_bytes=Y est_h100_ms=T.
func (s Stats) Line() string {
	t := s.Total()
	return fmt.Sprintf("gpu: launches=%d syncs=%d h2d_bytes=%d d2h_bytes=%d est_h100_ms=%.3f",
		t.Launches, t.Syncs, t.H2DBytes, t.D2HBytes, ms(t.Estimate()))
}

// Table is the per-phase model, one line per phase, then the total and
// the machine-readable line.
func (s Stats) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", modelDescription)
	fmt.Fprintf(&b, "%-10s %8s %7s %6s %12s %12s %14s %10s\n", "phase", "launches", "other", "syncs",
		"h2d_bytes", "d2h_bytes", "device_bytes", "est_ms")
	row := func(name string, c Counts) {
		fmt.Fprintf(&b, "%-10s %8d %7d %6d %12d %12d %14d %10.3f\n", name, c.Launches, c.Memsets+c.D2D,
			c.Syncs, c.H2DBytes, c.D2HBytes, c.DeviceBytes, ms(c.Estimate()))
	}
	for p, c := range s.Phases {
		row(Phase(p).String(), c)
	}
	row("total", s.Total())
	b.WriteString(s.Line())
	b.WriteByte('\n')
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
