package mpirank

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/mpirank/env"
	"github.com/gpumap/gpumap/topology"
)

// Options configure Reorder and Cost. They must agree on every rank
// (Threads, Verbosity and Log excepted): every rank compares its canonical
// form with rank 0's (see agree).
type Options struct {
	Preset gpumap.Preset
	Seed   uint64
	// Hierarchy overrides the detected machine ("a1:...:aL", its product
	// the communicator's size); "" means GPUMAP_HIERARCHY, and detection
	// when that is unset too.
	Hierarchy string
	// Distance overrides the default distances; "" means GPUMAP_DISTANCE,
	// and 1:10:100[:1000] when that is unset too.
	Distance string
	Backend  gpumap.Backend
	Pattern  Pattern
	// Algorithm is AutoAlgorithm or Multisection (what a one-to-one
	// mapping runs); Integrated is rejected, it cannot map a permutation.
	Algorithm gpumap.Algorithm
	// Imbalance must be 0: a reordering places one task per process.
	Imbalance float64
	Threads   int       // threads of the mapper on rank 0; 0: all cores
	Verbosity int       // 0 silent, 1 summary and times on rank 0, 2 also the mapper's phases
	Log       io.Writer // where rank 0 reports (nil: stderr)
}

// MinGain is the least relative drop of J for which Reorder changes the
// order: a mapping that is not 0.1% cheaper keeps the caller's order.
const MinGain = 1e-3

// call is the collective a rank is in; it is part of the agreement, so
// that one rank in Cost and the others in Reorder fail together.
type call byte

const (
	callReorder call = 1
	callCost    call = 2
	// callDist is gpumap_map_dist (AgreeDistCall): only its kind is
	// agreed on here, so that it fails together with the other calls.
	callDist call = 3
)

func (c call) String() string {
	switch c {
	case callCost:
		return "gpumap_cost"
	case callDist:
		return "gpumap_map_dist"
	}
	return "gpumap_reorder"
}

// Environment variables, read through C getenv at call time on every rank
// and agreed on like the options.
const (
	envDisable   = "GPUMAP_DISABLE"
	envHierarchy = "GPUMAP_HIERARCHY"
	envDistance  = "GPUMAP_DISTANCE"
)

// canon is the canonical form of what must agree across ranks: the call,
// the options with the environment applied, parsed (so that "4", " 4 " and
// "+4" are the same hierarchy).
type canon struct {
	call                                call
	preset, backend, algorithm, pattern int32
	seed                                uint64
	imbalance                           float64
	disabled                            bool
	hierarchy                           []int   // nil: detect
	distance                            []int64 // nil: defaults
	hierarchyFrom, distanceFrom         string  // where they came from, for messages

	// warnings about the environment, printed by rank 0 (see warn); not
	// agreed on.
	warnings []string
}

// protocol changes whenever the sequence of collectives or the payload
// does: libraries of different versions then disagree in the first step.
const protocol = 3

// canonSize is the fixed size of an encoded canon (every rank broadcasts
// and compares the same number of bytes): two lists of at most
// topology.MaxLevels 8-byte numbers and a few fields.
const canonSize = 64 + 2*8*topology.MaxLevels

// canonical checks the options, applies the environment and returns their
// canonical form; an error names the offending option or variable.
func canonical(c call, opt Options) (canon, *Error) {
	cn := canon{call: c, preset: int32(opt.Preset), backend: int32(opt.Backend), algorithm: int32(opt.Algorithm),
		pattern: int32(opt.Pattern), seed: opt.Seed, imbalance: opt.Imbalance}
	if cn.imbalance == 0 {
		cn.imbalance = 0 // -0
	}
	switch {
	case opt.Preset < gpumap.Fast || opt.Preset > gpumap.Strong:
		return cn, errorf(ErrOptions, "unknown preset %d", int(opt.Preset))
	case opt.Backend < gpumap.AutoBackend || opt.Backend > gpumap.GPU:
		return cn, errorf(ErrOptions, "unknown backend %d", int(opt.Backend))
	case opt.Algorithm < gpumap.AutoAlgorithm || opt.Algorithm > gpumap.Multisection:
		return cn, errorf(ErrOptions, "unknown algorithm %d", int(opt.Algorithm))
	case opt.Algorithm == gpumap.Integrated:
		return cn, errorf(ErrOptions, "algorithm im (integrated) cannot map one task per process; a reordering runs hm (multisection): use auto or hm")
	case opt.Imbalance != 0:
		return cn, errorf(ErrOptions, "imbalance %g: a reordering places exactly one task per process; leave the imbalance at its default", opt.Imbalance)
	case opt.Pattern != PatternSend && opt.Pattern != PatternExchange:
		return cn, errorf(ErrOptions, "unknown pattern kind %d", int(opt.Pattern))
	case opt.Threads < 0:
		return cn, errorf(ErrOptions, "negative thread count %d", opt.Threads)
	case opt.Threads > gpumap.MaxThreads:
		return cn, errorf(ErrOptions, "thread count %d exceeds %d", opt.Threads, gpumap.MaxThreads)
	}
	if c == callDist {
		return cn, nil // it reads no GPUMAP_* variable
	}
	var err error
	var w string
	if cn.disabled, w = env.Switch(envDisable, false); w != "" {
		cn.warnings = append(cn.warnings, w)
	}
	h, hfrom := opt.Hierarchy, "options.hierarchy"
	if h == "" {
		h, hfrom = cgetenv(envHierarchy), envHierarchy
	}
	if h != "" {
		cn.hierarchyFrom = hfrom
		if cn.hierarchy, err = topology.ParseHierarchy(h); err != nil {
			return cn, errorf(ErrOptions, "%s: %v", hfrom, err)
		}
	}
	d, dfrom := opt.Distance, "options.distance"
	if d == "" {
		d, dfrom = cgetenv(envDistance), envDistance
	}
	if d != "" {
		cn.distanceFrom = dfrom
		if cn.distance, err = topology.ParseDistances(d); err != nil {
			return cn, errorf(ErrOptions, "%s: %v", dfrom, err)
		}
	}
	if cn.hierarchy != nil && cn.distance != nil && len(cn.hierarchy) != len(cn.distance) {
		return cn, errorf(ErrOptions, "distance %s (%s) has %d levels but hierarchy %s (%s) has %d",
			topology.FormatInts(cn.distance), dfrom, len(cn.distance), topology.FormatInts(cn.hierarchy), hfrom, len(cn.hierarchy))
	}
	return cn, nil
}

// warned holds the warnings printed: a code that reorders every time step
// is told once.
var warned sync.Map

// warn prints the environment's warnings of rank 0's call, once each per
// process.
func (cn canon) warn(log io.Writer) {
	for _, w := range cn.warnings {
		if _, seen := warned.LoadOrStore(w, true); !seen {
			fmt.Fprintf(log, "gpumap: warning: %s\n", w)
		}
	}
}

// encode writes cn into a canonSize buffer: equal bytes mean equal
// options, exactly.
func (cn canon) encode() []byte {
	b := make([]byte, 0, canonSize)
	b = append(b, 'G', 'M', protocol, byte(cn.call))
	for _, v := range []int32{cn.preset, cn.backend, cn.algorithm, cn.pattern} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	b = binary.LittleEndian.AppendUint64(b, cn.seed)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(cn.imbalance))
	flag := byte(0)
	if cn.disabled {
		flag = 1
	}
	b = append(b, flag)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(cn.hierarchy)))
	for _, a := range cn.hierarchy {
		b = binary.LittleEndian.AppendUint64(b, uint64(a))
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(cn.distance)))
	for _, d := range cn.distance {
		b = binary.LittleEndian.AppendUint64(b, uint64(d))
	}
	return b[:canonSize]
}

// decodeCanon reverses encode (for messages about what differs).
func decodeCanon(b []byte) (canon, bool) {
	var cn canon
	if len(b) != canonSize || b[0] != 'G' || b[1] != 'M' || b[2] != protocol {
		return cn, false
	}
	cn.call = call(b[3])
	p := 4
	i32 := func() int32 { v := int32(binary.LittleEndian.Uint32(b[p:])); p += 4; return v }
	cn.preset, cn.backend, cn.algorithm, cn.pattern = i32(), i32(), i32(), i32()
	cn.seed = binary.LittleEndian.Uint64(b[p:])
	cn.imbalance = math.Float64frombits(binary.LittleEndian.Uint64(b[p+8:]))
	cn.disabled = b[p+16] == 1
	p += 17
	nh := int(binary.LittleEndian.Uint16(b[p:]))
	p += 2
	for i := 0; i < nh && p+8 <= len(b); i++ {
		cn.hierarchy = append(cn.hierarchy, int(binary.LittleEndian.Uint64(b[p:])))
		p += 8
	}
	if p+2 > len(b) {
		return cn, false
	}
	nd := int(binary.LittleEndian.Uint16(b[p:]))
	p += 2
	for i := 0; i < nd && p+8 <= len(b); i++ {
		cn.distance = append(cn.distance, int64(binary.LittleEndian.Uint64(b[p:])))
		p += 8
	}
	return cn, true
}

// differs names the first field in which this rank's options (mine) differ
// from rank 0's (encoded as root).
func differs(rank int, mine canon, root []byte) string {
	r, ok := decodeCanon(root)
	switch {
	case !ok:
		return fmt.Sprintf("rank %d runs another version of gpumap than rank 0 (protocol %d)", rank, protocol)
	case mine.call != r.call:
		return fmt.Sprintf("rank %d calls %s but rank 0 calls %s: every rank must make the same call", rank, mine.call, r.call)
	case mine.disabled != r.disabled:
		return fmt.Sprintf("%s is %s on rank %d but %s on rank 0", envDisable, onOff(mine.disabled), rank, onOff(r.disabled))
	case mine.preset != r.preset:
		return fmt.Sprintf("rank %d: preset %s differs from rank 0's %s", rank, gpumap.Preset(mine.preset), gpumap.Preset(r.preset))
	case mine.seed != r.seed:
		return fmt.Sprintf("rank %d: seed %d differs from rank 0's %d", rank, mine.seed, r.seed)
	case mine.backend != r.backend:
		return fmt.Sprintf("rank %d: backend %s differs from rank 0's %s", rank, gpumap.Backend(mine.backend), gpumap.Backend(r.backend))
	case mine.algorithm != r.algorithm:
		return fmt.Sprintf("rank %d: algorithm %s differs from rank 0's %s", rank, gpumap.Algorithm(mine.algorithm), gpumap.Algorithm(r.algorithm))
	case mine.pattern != r.pattern:
		return fmt.Sprintf("rank %d: pattern kind %d differs from rank 0's %d", rank, mine.pattern, r.pattern)
	case topology.FormatInts(mine.hierarchy) != topology.FormatInts(r.hierarchy):
		return fmt.Sprintf("rank %d: hierarchy %s differs from rank 0's %s", rank, describeList(topology.FormatInts(mine.hierarchy), mine.hierarchyFrom), describeList(topology.FormatInts(r.hierarchy), ""))
	case topology.FormatInts(mine.distance) != topology.FormatInts(r.distance):
		return fmt.Sprintf("rank %d: distances %s differ from rank 0's %s", rank, describeList(topology.FormatInts(mine.distance), mine.distanceFrom), describeList(topology.FormatInts(r.distance), ""))
	}
	return fmt.Sprintf("rank %d: options differ from rank 0's", rank)
}

func onOff(b bool) string {
	if b {
		return "set"
	}
	return "unset"
}

func describeList(s, from string) string {
	switch {
	case s == "":
		return "(none: detected)"
	case from != "":
		return s + " (" + from + ")"
	}
	return s
}
