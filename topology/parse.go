package topology

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxPEs is the largest number of PEs a topology may have: PE ids are 32-bit.
const MaxPEs = math.MaxInt32

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
			return nil, fmt.Errorf("hierarchy %q: field %d (%q) is not an integer", s, i+1, f)
		}
		switch {
		case v == 0:
			return nil, fmt.Errorf("hierarchy %q: field %d is zero; every level needs at least one member", s, i+1)
		case v < 0:
			return nil, fmt.Errorf("hierarchy %q: field %d (%d) is negative", s, i+1, v)
		}
		if v > MaxPEs || k*v > MaxPEs {
			return nil, fmt.Errorf("hierarchy %q: k overflows at field %d: the product exceeds %d PEs", s, i+1, MaxPEs)
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
			return nil, fmt.Errorf("distance %q: field %d (%q) is not an integer", s, i+1, f)
		}
		if v < 0 {
			return nil, fmt.Errorf("distance %q: field %d (%d) is negative", s, i+1, v)
		}
		if v > maxDistance {
			return nil, fmt.Errorf("distance %q: field %d (%d) exceeds %d", s, i+1, v, int64(maxDistance))
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

// maxDistance keeps w*D products of 32-bit-scale weights far from overflow.
const maxDistance = 1 << 40

func splitFields(what, s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%s is empty", what)
	}
	fields := strings.Split(s, ":")
	for i, f := range fields {
		fields[i] = strings.TrimSpace(f)
		if fields[i] == "" {
			return nil, fmt.Errorf("%s %q: field %d is empty", what, s, i+1)
		}
	}
	return fields, nil
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
