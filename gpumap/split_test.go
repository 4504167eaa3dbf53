package gpumap

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Split names the pipelines of default's portfolio: where Map runs HM and
// IM side by side, the two options, and Map's mapping is the better of
// their mappings (the first on equal J); elsewhere opt alone (one
// pipeline, another preset or algorithm, a possible GPU).
func TestSplit(t *testing.T) {
	top, _ := topology.Parse("4:8", "1:10")
	opt := DefaultOptions()
	opt.Seed, opt.Threads = 3, 2
	// A 24x24 grid: 1,104 edges, both algorithms under -a auto (every
	// graph below bothMaxEdges); with -a hm the one algorithm asked for.
	// A graph that IM coarsens (4,000 vertices, 125 per PE), where default
	// duels, is split too (duel): its HM runs to its end alone.
	grid := graph.Grid(24, 24)
	rgg := graph.RandomGeometric(4000, 21)
	hm := opt
	hm.Algorithm = Multisection
	for _, c := range []struct {
		name string
		g    *graph.Graph
		opt  Options
		want int
		duel bool
	}{{"grid", grid, opt, 2, false}, {"grid -a hm", grid, hm, 1, false}, {"rgg", rgg, opt, 2, true}} {
		opt := c.opt
		split, duel := Split(c.g, top, opt)
		if len(split) != c.want || duel != c.duel {
			t.Fatalf("%s: %d pipelines, duel %v, want %d, %v", c.name, len(split), duel, c.want, c.duel)
		}
		whole, err := Map(c.g, top, opt)
		if err != nil {
			t.Fatal(err)
		}
		var best *Result
		for i, o := range split {
			if c.want == 2 && (o.Algorithm != [2]Algorithm{Multisection, Integrated}[i] || o.Seed != opt.Seed || o.Preset != Default) {
				t.Errorf("%s: pipeline %d: %+v", c.name, i, o)
			}
			o.Threads = 1
			r, err := Map(c.g, top, o)
			if err != nil {
				t.Fatal(err)
			}
			if best == nil || r.Metrics.Feasible && !best.Metrics.Feasible || r.Metrics.Feasible == best.Metrics.Feasible && r.Metrics.J < best.Metrics.J {
				best = r
			}
		}
		if !slices.Equal(best.PE, whole.PE) {
			t.Errorf("%s: the best of Split's pipelines (J %d) is not Map's mapping (J %d)", c.name, best.Metrics.J, whole.Metrics.J)
		}
	}
	for _, o := range []Options{
		func() Options { o := opt; o.Preset = Strong; return o }(),
		func() Options { o := opt; o.Algorithm = Integrated; return o }(),
		func() Options { o := opt; o.Backend = GPU; return o }(),
	} {
		if s, duel := Split(grid, top, o); len(s) != 1 || s[0] != o || duel {
			t.Errorf("%+v: split into %d", o, len(s))
		}
	}
}

// MapDuel, given IM's mapping, stops Split's HM where Map's duel stops
// it, and the best of the two pipelines is Map's mapping byte for byte:
// onto 4:8, where Map stops HM at its top split (R-MAT 2^11 seed 1: HM's
// J predicted 18.9% above IM's), where it stops HM after the splits of
// the top's children (seed 4: +11.9% at the top, +9.8% after them; it ran
// to its end before duelSecondMargin) and where it does not stop HM (a
// random geometric graph of 4,000 vertices), at 1 and 2 threads, taking
// IM's thread once it is done (Duel.Threads) or not, and with IM's
// mapping there from the start or coming only once HM's multisection is
// done: HM does not wait for it at its top split (it did: on finan512 at
// P=2 HM's rank spun 0.40 s in MPI_Recv), and drops its finished mapping
// where the duel says so. HM also runs to its end, as Map(hm) does, where
// IM failed (nil).
func TestSplitDuel(t *testing.T) {
	top, _ := topology.Parse("4:8", "1:10")
	for _, c := range []struct {
		name string
		g    *graph.Graph
		stop bool
	}{{"R-MAT 2^11 seed 1", graph.RMAT(11, 8, 1), true}, {"R-MAT 2^11 seed 4", graph.RMAT(11, 8, 4), true},
		{"rgg 4000", graph.RandomGeometric(4000, 21), false}} {
		g := c.g
		for _, threads := range []int{1, 2} {
			opt := DefaultOptions()
			opt.Threads, opt.Backend = threads, CPU
			whole, err := Map(g, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			split, duel := Split(g, top, opt)
			if len(split) != 2 || !duel {
				t.Fatalf("%s: %d pipelines, duel %v", c.name, len(split), duel)
			}
			im, err := Map(g, top, split[1])
			if err != nil {
				t.Fatal(err)
			}
			var alone *Result
			for _, late := range []bool{false, true} {
				give, freed := make(chan []int32, 1), make(chan struct{})
				send := func() {
					give <- im.PE
					close(freed)
				}
				hmOpt := split[0]
				if late {
					hmOpt.Progress = &onLine{prefix: "gpumap: multisection ", f: send}
				} else {
					send()
				}
				type outcome struct {
					r   *Result
					err error
				}
				done := make(chan outcome, 1)
				go func() {
					r, err := MapDuel(g, top, hmOpt, Duel{IM: give, Threads: 1, Freed: freed})
					done <- outcome{r, err}
				}()
				var o outcome
				select {
				case o = <-done:
				case <-time.After(2 * time.Minute): // a deadlock, not a slow run
					t.Fatalf("%s: MapDuel waits for IM's mapping before its multisection is done", c.name)
				}
				hm, err := o.r, o.err
				if err != nil {
					t.Fatal(err)
				}
				if (hm == nil) != c.stop {
					t.Fatalf("%s, IM late %v: HM stopped %v, want %v", c.name, late, hm == nil, c.stop)
				}
				best := im
				if hm != nil {
					if alone == nil {
						if alone, err = Map(g, top, split[0]); err != nil {
							t.Fatal(err)
						}
					}
					if !slices.Equal(hm.PE, alone.PE) {
						t.Errorf("%s: HM duelling and not stopped differs from HM alone", c.name)
					}
					if hm.Metrics.J <= im.Metrics.J {
						best = hm
					}
				}
				if !slices.Equal(best.PE, whole.PE) {
					t.Errorf("%s, %d threads, IM late %v: the best of the duel's pipelines (J %d) is not Map's mapping (J %d)",
						c.name, threads, late, best.Metrics.J, whole.Metrics.J)
				}
			}
		}
	}
	g := graph.RMAT(11, 8, 1)
	opt := DefaultOptions()
	opt.Threads, opt.Backend = 1, CPU
	split, _ := Split(g, top, opt)
	alone, err := Map(g, top, split[0])
	if err != nil {
		t.Fatal(err)
	}
	failed := make(chan []int32, 1)
	failed <- nil
	hm, err := MapDuel(g, top, split[0], Duel{IM: failed})
	if err != nil || hm == nil || !slices.Equal(hm.PE, alone.PE) {
		t.Errorf("IM failed: HM stopped (%v) or differs from HM alone (%v)", hm == nil, err)
	}
	// A caller's mistake, told as such: not an internal error.
	if _, err := MapDuel(g, top, split[1], Duel{IM: failed}); err == nil || errors.Is(err, ErrInternal) {
		t.Errorf("MapDuel ran IM's option, or called it internal: %v", err)
	}
	if _, err := MapDuel(graph.Grid(24, 24), top, split[0], Duel{IM: failed}); err == nil || errors.Is(err, ErrInternal) {
		t.Errorf("MapDuel ran a graph that Map does not duel, or called it internal: %v", err)
	}
	if _, err := MapDuel(g, top, split[0], Duel{}); err == nil || errors.Is(err, ErrInternal) {
		t.Errorf("MapDuel ran without IM's mapping, or called it internal: %v", err)
	}
}

// onLine is a progress writer that calls f once, at the first line that
// begins with prefix.
type onLine struct {
	prefix string
	f      func()
	once   sync.Once
}

func (w *onLine) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), w.prefix) {
		w.once.Do(w.f)
	}
	return len(p), nil
}
