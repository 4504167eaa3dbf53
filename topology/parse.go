package topology

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxPEs is the largest number of PEs a topology may have: PE ids are 32-bit.
const MaxPEs = math.MaxInt32

// MaxLevels is the deepest hierarchy accepted (a1:...:aL with L <= 64).
// Real machines have a handful of levels; the bound keeps every per-level
// structure small whatever a caller passes.
const MaxLevels = 64

// ParseHierarchy parses a hierarchy string such as "4:8:6" (a1 innermost).
// Every field must be a positive integer and the product must not exceed
// MaxPEs. Errors name the offending field.
func ParseHierarchy(s string) ([]int, error) {
	fields, err := splitFields("hierarchy", s)
	if err != nil {
		return nil, err
	}
	arity := make([]int, len(fields))
	k := int64(1)
	for i, f := range fields {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("hierarchy %s: field %d (%s) is not an integer", quote(s), i+1, quote(f))
		}
		switch {
		case v == 0:
			return nil, fmt.Errorf("hierarchy %s: field %d is zero; every level needs at least one member", quote(s), i+1)
		case v < 0:
			return nil, fmt.Errorf("hierarchy %s: field %d (%d) is negative", quote(s), i+1, v)
		}
		if v > MaxPEs || k*v > MaxPEs {
			return nil, fmt.Errorf("hierarchy %s: k overflows at field %d: the product exceeds %d PEs", quote(s), i+1, MaxPEs)
		}
		k *= v
		arity[i] = int(v)
	}
	return arity, nil
}

// ParseDistances parses a distance string such as "1:10:100" (d1 innermost).
// Every field must be a non-negative integer.
func ParseDistances(s string) ([]int64, error) {
	fields, err := splitFields("distance", s)
	if err != nil {
		return nil, err
	}
	dist := make([]int64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("distance %s: field %d (%s) is not an integer", quote(s), i+1, quote(f))
		}
		if v < 0 {
			return nil, fmt.Errorf("distance %s: field %d (%d) is negative", quote(s), i+1, v)
		}
		if v > maxDistance {
			return nil, fmt.Errorf("distance %s: field %d (%d) exceeds %d", quote(s), i+1, v, int64(maxDistance))
		}
		dist[i] = v
	}
	return dist, nil
}

// Parse parses a hierarchy and a distance string and builds the regular
// topology they describe. Their lengths must match.
func Parse(hierarchy, distances string) (*Topology, error) {
	a, err := ParseHierarchy(hierarchy)
	if err != nil {
		return nil, err
	}
	d, err := ParseDistances(distances)
	if err != nil {
		return nil, err
	}
	return NewRegular(a, d)
}

// DefaultDistances returns d1..dL for a machine of the given number of
// levels: 1, 10, 100, 1000, the last repeated beyond four levels. The
// ladder of an order of magnitude per level is the usual assumption of the
// mapping literature.
func DefaultDistances(levels int) []int64 {
	ladder := []int64{1, 10, 100, 1000}
	d := make([]int64, max(levels, 0))
	for i := range d {
		d[i] = ladder[min(i, len(ladder)-1)]
	}
	return d
}

// maxDistance keeps w*D products of 32-bit-scale weights far from overflow.
const maxDistance = 1 << 40

func splitFields(what, s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%s is empty", what)
	}
	// Count before splitting: a megabyte of "1:1:..." must cost nothing.
	if n := strings.Count(s, ":") + 1; n > MaxLevels {
		return nil, fmt.Errorf("%s %s has %d levels; at most %d are supported", what, quote(s), n, MaxLevels)
	}
	fields := strings.Split(s, ":")
	for i, f := range fields {
		fields[i] = strings.TrimSpace(f)
		if fields[i] == "" {
			return nil, fmt.Errorf("%s %s: field %d is empty", what, quote(s), i+1)
		}
	}
	return fields, nil
}

func checkLevels(L int) error {
	if L > MaxLevels {
		return fmt.Errorf("the machine has %d levels; at most %d are supported", L, MaxLevels)
	}
	return nil
}

// quote renders s for an error message, shortened when long (a message
// must not repeat a megabyte of hostile input).
func quote(s string) string {
	const max = 48
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}

// FormatInts joins integers with ':' (the inverse of the parsers).
func FormatInts[T ~int | ~int64 | ~int32](v []T) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatInt(int64(x), 10))
	}
	return b.String()
}
