package distmap

import (
	"math/bits"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// roomShares returns the PE loads summed over all ranks (local: the
// loads of this rank's vertices) and this rank's share of every PE's
// room below lmax: a rank may add to PE p at most its share (plus what it
// takes out of p), and the shares of all ranks sum to at most the room,
// so no PE passes lmax whatever the ranks move. A rank gets p's room in
// proportion to its own weight in p: moves into p come from vertices next
// to p's, mostly on the ranks that hold p's vertices. Equal shares (1/P
// of the room) left coarse levels with hardly a move that fits at P=4 (a
// coarse vertex of a rgg 2^20 weighs about 67, a PE's room about 165 on
// 4:8:6 at 3%): proportional shares lowered J at P=4 by 2.6% on a rgg
// 2^18 and 5.6% on a 64^3 grid, at P=2 by 1% on both, against 1.4% and
// 4.4% (P=4) with half the room shared so and half equally. A PE that no
// rank holds is shared equally. Collective (the Allreduce of the loads).
func roomShares(g *Graph, local []int64, lmax int64) (load, share []int64, err error) {
	load = append([]int64(nil), local...)
	if err := mpi.Allreduce(g.c, load, mpi.Sum); err != nil {
		return nil, nil, err
	}
	share = make([]int64, len(load))
	for p, x := range load {
		room := max(0, lmax-x)
		if x == 0 {
			share[p] = room / int64(g.size)
			continue
		}
		// room*local/x in 128 bits (both factors may reach 2^61); the
		// floors of the ranks sum to at most room.
		hi, lo := bits.Mul64(uint64(room), uint64(local[p]))
		q, _ := bits.Div64(hi, lo, uint64(x))
		share[p] = int64(q)
	}
	return load, share, nil
}
