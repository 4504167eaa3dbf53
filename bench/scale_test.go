package main

import (
	"os/exec"
	"slices"
	"testing"
)

// TestMeasureRSSIsTheChilds: the peak RSS of a small child must not be
// the bench's own (Go's vfork start carried the parent's high-water mark
// into the child's getrusage, which made every tool look as big as the
// bench).
func TestMeasureRSSIsTheChilds(t *testing.T) {
	if gnuTime = findGNUTime(); gnuTime == "" {
		t.Skip("GNU time is not installed")
	}
	big := make([]byte, 256<<20)
	for i := range big {
		big[i] = 1
	}
	r, _, err := measure(exec.Command("/bin/true"))
	if err != nil {
		t.Fatal(err)
	}
	if r.rss <= 0 || r.rss >= 64<<20 {
		t.Fatalf("peak RSS of /bin/true: %d bytes while the test holds %d", r.rss, len(big))
	}
	big[len(big)-1] = 2 // keep big alive until here
}

func TestMedianOf(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{0.7}, 0.7}, {[]float64{0.6, 0.5}, 0.55}, {[]float64{0.9, 0.5, 0.6}, 0.6}, {[]float64{0.62, 0.5, 0.58, 0.7}, 0.6}} {
		if got := medianOf(c.xs); got != c.want {
			t.Errorf("medianOf(%v) = %g, want %g", c.xs, got, c.want)
		}
	}
}

func TestThreadOrderAlternates(t *testing.T) {
	for round, want := range [][]int{{1, 2}, {2, 1}, {1, 2}, {2, 1}} {
		if got := threadOrder(round); !slices.Equal(got, want) {
			t.Errorf("round %d: %v, want %v", round, got, want)
		}
	}
}
