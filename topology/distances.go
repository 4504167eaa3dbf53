package topology

import "fmt"

// WithDistances returns the machine t with other distances (one per
// level): the same PEs and groups.
func (t *Topology) WithDistances(dist []int64) (*Topology, error) {
	if len(dist) != len(t.dist) {
		return nil, fmt.Errorf("length mismatch: the machine has %d levels but %d distances are given", len(t.dist), len(dist))
	}
	for i, d := range dist {
		if d < 0 {
			return nil, fmt.Errorf("distance %s: field %d (%d) is negative", FormatInts(dist), i+1, d)
		}
	}
	u := *t
	u.dist = append([]int64(nil), dist...)
	for i := range u.distOfBit {
		u.distOfBit[i] = 0
	}
	for i := range u.dist {
		for b := u.shift[i]; b < u.shift[i]+u.width[i]; b++ {
			u.distOfBit[b] = u.dist[i]
		}
	}
	return &u, nil
}
