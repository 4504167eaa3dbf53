package coarsening

// pairNoise is the deterministic tie-breaking noise of the unordered pair
// {u,v}: one multiplication, symmetric in u and v, so both endpoints of an
// edge see the same value (mutual-preference matching relies on that).
func pairNoise(seed uint64, u, v int32) uint64 {
	if u > v {
		u, v = v, u
	}
	return (uint64(uint32(u))<<32 | uint64(uint32(v)) ^ seed) * 0x9e3779b97f4a7c15
}

// rating is exp*2 = w^2 / (c(u) c(v)); zero vertex weights count as 1.
// Equal ratings are ordered by pairNoise, which is how the noise of the
// papers is applied here: it breaks every tie and never reorders distinct
// ratings.
func rating(w, cu, cv int64) float64 {
	fw := float64(w)
	return fw * fw / (float64(max(cu, 1)) * float64(max(cv, 1)))
}

// better reports whether (r, h) beats the current best (br, bh).
func better(r float64, h uint64, br float64, bh uint64) bool {
	return r > br || r == br && h > bh
}
