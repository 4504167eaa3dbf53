package gpumap

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Preset is a named configuration trading speed for quality.
type Preset int

const (
	Fast    Preset = iota // fewer bisection tries and FM rounds, no final J refinement
	Default               // the balance of speed and quality for everyday use
	Strong                // more bisection tries, top-level tries and FM effort
)

var presetNames = []string{"fast", "default", "strong"}

func (p Preset) String() string { return nameOf("Preset", presetNames, p) }

// ParsePreset parses "fast", "default" or "strong".
func ParsePreset(s string) (Preset, error) { return parseName[Preset]("preset", presetNames, s) }

// Algorithm selects the mapping algorithm.
type Algorithm int

const (
	AutoAlgorithm Algorithm = iota // chosen by the preset
	Integrated                     // integrated multilevel mapping (IM)
	Multisection                   // hierarchical multisection (HM)
)

var algorithmNames = []string{"auto", "im", "hm"}

func (a Algorithm) String() string { return nameOf("Algorithm", algorithmNames, a) }

// ParseAlgorithm parses "auto", "im" or "hm".
func ParseAlgorithm(s string) (Algorithm, error) {
	return parseName[Algorithm]("algorithm", algorithmNames, s)
}

// Backend selects where the data-parallel phases run.
type Backend int

const (
	AutoBackend Backend = iota // the GPU when a usable one exists, else the CPU
	CPU
	GPU // fail when no GPU is usable
)

var backendNames = []string{"auto", "cpu", "gpu"}

func (b Backend) String() string { return nameOf("Backend", backendNames, b) }

// ParseBackend parses "auto", "cpu" or "gpu".
func ParseBackend(s string) (Backend, error) { return parseName[Backend]("backend", backendNames, s) }

// nameOf is the name of the enumeration value v, or Type(v) when out of range.
func nameOf[E ~int](typ string, names []string, v E) string {
	if v < 0 || int(v) >= len(names) {
		return fmt.Sprintf("%s(%d)", typ, int(v))
	}
	return names[v]
}

// parseName finds s (case-insensitively) among names; the error lists them
// as "a, b or c".
func parseName[E ~int](what string, names []string, s string) (E, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return E(i), nil
		}
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return 0, fmt.Errorf("unknown %s %q (want %s)", what, s, want)
}

// Options configures Map. Start from DefaultOptions: the zero value means
// eps = 0 (exact balance).
type Options struct {
	Preset    Preset
	Algorithm Algorithm
	Eps       float64 // allowed imbalance: Lmax = ceil((1+Eps) c(V)/k)
	Seed      uint64
	Threads   int // 0: all cores; at most, see MappingThreads
	Backend   Backend
	Progress  io.Writer // phase times and progress; nil for silence
	// Stats adds to each phase's progress line and PhaseTime what it used:
	// peak resident memory, CPU time, threads kept busy (Linux). It resets
	// the process's peak-RSS counter (VmHWM) at every phase: for tools, not
	// for libraries.
	Stats bool
}

// DefaultOptions returns the default preset with eps = 0.03, seed 0, all
// cores and automatic backend selection.
func DefaultOptions() Options {
	return Options{Preset: Default, Eps: 0.03}
}

// Version is gpumap's version.
const Version = "0.2.0"

// ErrNoGPU is returned (wrapped) when the GPU backend was required and no
// usable GPU exists.
var ErrNoGPU = errors.New("no usable GPU")

// MaxEps bounds the imbalance eps: an eps above it is a mistake, not a
// wish for an unbalanced mapping.
const MaxEps = 1e6

// ValidEps reports whether eps is an imbalance every mapper (gpumap.Map,
// distmap.Map, the commands) accepts: a finite number in [0, MaxEps].
func ValidEps(eps float64) bool { return eps >= 0 && eps <= MaxEps }

// ErrInternal is wrapped by the errors that mean a bug in gpumap rather
// than in its input, so that callers (the C ABI's GPUMAP_ERR_INTERNAL)
// tell them apart with errors.Is, not by their text.
var ErrInternal = errors.New("internal error")

// IsNoGPU reports whether err says that the required GPU is missing.
func IsNoGPU(err error) bool { return errors.Is(err, ErrNoGPU) }
