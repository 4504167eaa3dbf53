package distmap

import (
	"math"
	"testing"
)

// exposedAt against the hierarchies' own points and hand-worked
// log-log interpolations, and the comparison lessExposed makes on the
// curves that finan512 twice and a 3D grid gave at P=2 (seeds 21, 3):
// label propagation on finan, matchings on the grid.
func TestExposedAt(t *testing.T) {
	e := []exposure{{1024, 4000}, {256, 1000}, {64, 100}}
	for _, c := range []struct {
		n    int64
		want float64
	}{
		{1024, 4000}, {256, 1000}, {64, 100},
		{math.MaxInt64, 4000},
		// Halfway in log n between two graphs: the geometric mean.
		{512, math.Sqrt(4000 * 1000)},
		{128, math.Sqrt(1000 * 100)},
	} {
		got := exposedAt(e, c.n)
		if math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("exposedAt(%d) = %.1f, want %.1f", c.n, got, c.want)
		}
	}
	// A graph's own size gives its weight exactly (a tie between the
	// hierarchies stays a tie, which keeps the matchings), and a
	// hierarchy whose coarsest graph has no edges exposes nothing there
	// (it gave the level before's weight: the review).
	for _, x := range e {
		if got := exposedAt(e, x.n); got != float64(x.w) {
			t.Errorf("exposedAt(%d) = %v, want exactly %d", x.n, got, x.w)
		}
	}
	collapsed := []exposure{{1000, 500}, {100, 0}}
	if got := exposedAt(collapsed, 100); got != 0 {
		t.Errorf("no edges left: exposedAt = %v, want 0", got)
	}
	if got := exposedAt(collapsed, 316); got <= 0 || got >= 500 {
		t.Errorf("towards no edges: exposedAt(316) = %v, want between 0 and 500", got)
	}
	if got := exposedAt(e[:1], 5); got != 4000 {
		t.Errorf("one graph: exposedAt = %v, want its weight", got)
	}
	finanM := []exposure{{149504, 522241}, {77824, 450561}, {44800, 378113}, {24896, 325949}, {14404, 283525}, {11470, 279759}, {11080, 278979}}
	finanLP := []exposure{{149504, 522241}, {36412, 310353}, {10899, 233810}, {10473, 232843}}
	if m, l := exposedAt(finanM, 11080), exposedAt(finanLP, 11080); l >= m {
		t.Errorf("finan512 x2: label propagation exposes %.0f, matchings %.0f; want label propagation's less", l, m)
	}
	gridM := []exposure{{257481, 760292}, {128741, 631552}, {64371, 502859}, {32186, 377117}, {16093, 312760}}
	gridLP := []exposure{{257481, 760292}, {112785, 603159}, {30430, 391789}, {10151, 300191}, {8992, 295453}, {8991, 295449}}
	if m, l := exposedAt(gridM, 16093), exposedAt(gridLP, 16093); m >= l {
		t.Errorf("3D grid: matchings expose %.0f, label propagation %.0f; want the matchings' less", m, l)
	}
}
