package refinement

import "math"

// stopRule is the adaptive stopping rule of a localized FM search: it
// models the gains of the moves since the search's last new best as a
// random walk with mean mu and variance sigma^2 per step, and ends the
// search after s such steps once s > Beta and (s - Beta)*mu^2 >
// Alpha*sigma^2: once the walk has drifted so far below its best that
// its noise is unlikely to carry it back ((s - Beta)*mu^2 is the squared
// drift over the steps beyond the first Beta, Alpha*sigma^2 the spread the
// noise can make up). The steps since the last best sum to at most zero
// (a positive sum would be a new best), so mu <= 0: on plateaus of
// zero-gain moves (meshes, geometric graphs: where long searches find
// the gains) the rule waits for FMConfig.Alpha, and where every move
// loses (dense rows, coarse levels of stalled coarsenings) it ends the
// search after a few moves instead of Alpha. Both sides scale with the
// gains squared, so edge weights do not change where it stops (Beta added
// to the gains' side instead made every search on a weighted coarse graph
// stop at its first losing move: an R-MAT graph's HM J +17%). The rule
// depends only on the search's own moves, so it is the same for any
// thread count.
//
// It is off unless FMConfig.StopAlpha > 0: with alpha 1 in every FM (and
// Beta added to the gains' side) it cut HM's counted FM work to 0.57x on the
// real corpus's fit half at J 1.000x in the geometric mean, but in this
// form it cost HM's J +4.6% on an R-MAT graph of 2^11 vertices
// (TestDefaultDenseRowsBothAlgorithms), so no preset turns it on yet.
type stopRule struct {
	alpha, beta float64
	s           int     // steps since the last best
	sum, sq     float64 // their gains' sum and sum of squares
}

const defaultStopBeta = 3

// newStopRule returns the rule of cfg for a search that starts with over
// blocks above their limits. It is off when cfg.StopAlpha is 0, and where
// the state is overloaded: there a search sheds weight at a loss until the
// blocks fit (every such move a step down), and the rule would stop it
// before (a coarse graph of heavy vertices left every rank's mapping
// infeasible when the FlatMinImprove stop cut such rounds short).
func newStopRule(cfg *FMConfig, over int) stopRule {
	if over > 0 || cfg.StopAlpha <= 0 {
		return stopRule{}
	}
	beta := cfg.StopBeta
	if beta == 0 {
		beta = defaultStopBeta
	}
	return stopRule{alpha: cfg.StopAlpha, beta: beta}
}

// best restarts the walk at a new best prefix.
func (r *stopRule) best() { r.s, r.sum, r.sq = 0, 0, 0 }

// step records a move's gain that made no new best and reports whether
// the search should stop.
func (r *stopRule) step(gain int64) bool {
	if r.alpha <= 0 {
		return false
	}
	g := float64(gain)
	r.s++
	r.sum += g
	r.sq += g * g
	s := float64(r.s)
	if s <= r.beta {
		return false
	}
	mu := r.sum / s
	variance := math.Max(r.sq/s-mu*mu, 0)
	return mu < 0 && (s-r.beta)*mu*mu > r.alpha*variance
}
