package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpumap/gpumap/topology"
)

// LevelNames names the levels 0..L of a machine given as a1:...:aL: "PE"
// for level 0, "machine" for level L, and in between "node" for a
// two-level machine (cores per node : nodes) or "socket", "node",
// "switch" and then "level i" from the bottom up.
func LevelNames(top *topology.Topology) []string {
	L := top.Levels()
	names := make([]string, L+1)
	names[0], names[L] = "PE", "machine"
	inner := []string{"socket", "node", "switch"}
	if L == 2 {
		inner = []string{"node"}
	}
	for i := 1; i < L; i++ {
		if i-1 < len(inner) {
			names[i] = inner[i-1]
		} else {
			names[i] = "level " + strconv.Itoa(i)
		}
	}
	return names
}

// DefaultLevel is the level named "node", else the one just below the
// whole machine.
func DefaultLevel(names []string) int {
	for i, n := range names[:len(names)-1] {
		if n == "node" {
			return i
		}
	}
	return max(len(names)-2, 0)
}

// ParseLevel reads a level given by name (one of names, any case) or by
// number (0 = PEs); the whole machine (the last name) is not a level one
// can draw.
func ParseLevel(s string, names []string) (int, error) {
	L := len(names) - 1
	if v, err := strconv.Atoi(s); err == nil {
		if v < 0 || v >= L {
			return 0, fmt.Errorf("level %d is outside [0,%d] (%s)", v, L-1, strings.Join(names[:L], ", "))
		}
		return v, nil
	}
	for i, n := range names[:L] {
		if strings.EqualFold(s, n) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown level %q: this machine has %s (or a number from 0 to %d)", s, strings.Join(names[:L], ", "), L-1)
}
