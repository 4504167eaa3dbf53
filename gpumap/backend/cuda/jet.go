package cuda

import (
	"math/bits"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

const (
	nb       = 66 // loss buckets (NB in gpumap.cu)
	ctlWords = 12 // int64 words of jet_ctl
	ctlRead  = 7  // words the host reads per iteration
)

// jetArrays are refinement's per-block arrays, one allocation, made at
// the first Refine of a mapping (again if the machine changes).
type jetArrays struct {
	k                                                                                     int
	top                                                                                   *topology.Topology
	block                                                                                 driver.Ptr
	labels, dist, bw, room, roomList, accepted, rem, kw, cut, need, lo, hist, spread, ctl driver.Ptr
	binsLog                                                                               int
}

func (b *Backend) jetArrays(ws *workspace, top *topology.Topology) (*jetArrays, error) {
	k := top.K()
	if a := ws.jet; a != nil && a.top == top {
		return a, nil
	}
	if ws.jet != nil {
		driver.Free(ws.jet.block)
		ws.jet = nil
	}
	k64 := int64(k)
	// Bins per narrowing step: up to 256, fewer for many blocks (hist is k x bins).
	lb := max(1, min(8, bits.Len64(uint64(1<<21/max(k64, 1)))-1))
	var c carve
	o := []int64{c.add(8 * k64), c.add(8 * 64), c.add(8 * k64), c.add(4 * k64), c.add(4 * k64), c.add(8 * k64),
		c.add(8 * (k64 + 1)), c.add(8 * k64 * nb), c.add(4 * k64), c.add(8 * k64), c.add(8 * k64),
		c.add(8 * k64 << lb), c.add(8 * 5 * spread), c.add(8 * ctlWords)}
	p, err := alloc(c.size)
	if err != nil {
		return nil, err
	}
	at := func(i int) driver.Ptr { return p + driver.Ptr(o[i]) }
	a := &jetArrays{k: k, top: top, block: p, labels: at(0), dist: at(1), bw: at(2), room: at(3), roomList: at(4),
		accepted: at(5), rem: at(6), kw: at(7), cut: at(8), need: at(9), lo: at(10), hist: at(11), spread: at(12),
		ctl: at(13), binsLog: lb}
	labels := top.Labels()
	dist := make([]int64, 64)
	for i := range dist {
		dist[i] = top.LabelDistance(0, 1<<uint(i))
	}
	err = b.copyIn(a.labels, unsafe.Pointer(&labels[0]), 8*k64, false)
	if err == nil {
		err = b.copyIn(a.dist, unsafe.Pointer(&dist[0]), 8*64, false)
	}
	// kw, hist and spread are kept zero by the kernels that read them.
	if err == nil {
		err = b.fill32(a.kw, 0, 2*k64*nb)
	}
	if err == nil {
		err = b.fill32(a.hist, 0, 2*k64<<lb)
	}
	if err == nil {
		err = b.fill32(a.spread, 0, 2*5*spread)
	}
	if err != nil {
		driver.Free(p)
		return nil, err
	}
	ws.jet = a
	return a, nil
}

// gpuJet implements refinement.JetOps on the device; refinement.RunJet
// drives it exactly as it drives the CPU implementation, and the result is
// the same mapping. Per iteration the host reads one small block of
// scalars (jet_ctl: J, excess, moves).
type gpuJet struct {
	b      *Backend
	g      *devGraph
	pe     driver.Ptr
	ws     *workspace
	a      *jetArrays
	n, m2  int64
	k      int
	lmax   int64
	seed   uint64
	seg    int32      // rebalancing's segment of blocks (JetConfig.Segment; k when 0)
	shifts []int      // the id-narrowing steps of rebalancing, but the last (shift 0)
	window int32      // the ids the last step searches (before_crossing in gpumap.cu)
	full   bool       // the next Cost recomputes J from scratch
	stale  bool       // bw is not the mapping's: the next Cost recomputes it first
	old    driver.Ptr // the moved vertices' blocks before the last step (for Cost)
	fresh  bool       // ctl describes the current mapping
	step   func(ctl *[ctlRead]int64)
	ctl    *[ctlRead]int64 // its own allocation: cgo copies into it
}

// Refine runs the Jet loop on the mapping pe of g, every PE limited to
// lmax.
func (b *Backend) Refine(g backend.Graph, pe backend.Vector, top *topology.Topology, lmax int64, cfg refinement.JetConfig) error {
	done, err := b.bind(PhaseRefine)
	if err != nil {
		return err
	}
	defer done()
	j, err := b.newJet(g.(*devGraph), pe.(*devVec), top, lmax, cfg)
	if err != nil {
		return err
	}
	_, err = refinement.RunJet(j, cfg)
	return err
}

func (b *Backend) newJet(g *devGraph, pe *devVec, top *topology.Topology, lmax int64, cfg refinement.JetConfig) (*gpuJet, error) {
	a, err := b.jetArrays(g.ws, top)
	if err != nil {
		return nil, err
	}
	n := int64(g.n)
	j := &gpuJet{b: b, g: g, pe: pe.p, ws: g.ws, a: a, n: n, m2: g.m2, k: top.K(), lmax: lmax, seed: cfg.Seed, full: true, old: g.ws.dest,
		seg: int32(top.K()), ctl: new([ctlRead]int64)}
	if cfg.Segment > 0 {
		j.seg = int32(cfg.Segment)
	}
	// Steps of 2^binsLog bins narrow the search for the crossing vertex
	// from all ids to a window of one bin of the step before; the last
	// step (shift 0) is done by the kernel that uses the crossing vertex,
	// within the window (at most 2^binsLog ids), which saves a launch and
	// a pass over the vertices per search.
	idBits := bits.Len64(uint64(max(n-1, 0)))
	j.window = int32(1) << idBits
	for i := 1; idBits-i*a.binsLog > 0; i++ {
		s := idBits - i*a.binsLog
		j.shifts = append(j.shifts, s)
		j.window = int32(1) << s
	}
	if err := b.fill32(a.ctl, 0, 2*ctlWords); err != nil {
		return nil, err
	}
	if err := b.fill32(g.ws.locked, 0, (n+3)/4); err != nil { // nothing is locked yet (the carve pads to 4)
		return nil, err
	}
	return j, j.blockWeights()
}

func (j *gpuJet) LabelPropagation() error {
	g, b, a, ws, n := j.g, j.b, j.a, j.ws, j.n
	if err := j.settle(); err != nil {
		return err
	}
	b.gather(j.m2, 4, 4*n) // every edge reads its neighbour's block
	if err := b.loop("jet_lp", n, 10*n+(32+g.wb)*j.m2, driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew32), driver.P(g.ew64), driver.P(j.pe),
		driver.P(a.labels), driver.P(a.dist), driver.P(ws.locked), driver.P(ws.hv), driver.P(ws.hw),
		driver.P(ws.cand), driver.P(ws.dest), driver.P(ws.cvw), driver.P(ws.key), driver.I32(int32(n))); err != nil {
		return err
	}
	// jet_after moves the vertices it keeps: a candidate's old block is in
	// key (jet_lp), which jet_cost reads.
	if err := b.loop("jet_after", n, 3*n, driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew32), driver.P(g.ew64), driver.P(j.pe),
		driver.P(a.labels), driver.P(a.dist), driver.P(ws.cand), driver.P(ws.dest), driver.P(ws.cvw), driver.P(ws.key),
		driver.P(ws.hv), driver.P(ws.hw), driver.P(ws.moved), driver.P(ws.locked), driver.P(g.vw), driver.P(a.bw),
		driver.I32(int32(n))); err != nil {
		return err
	}
	j.old = ws.key
	j.moved(func(c *[ctlRead]int64) {
		b.late(PhaseRefine, "jet_after", func() {
			// jet_lp's and jet_after's candidates (their old block written
			// and read) and jet_after's moves, known once counted.
			b.stats.Phases[PhaseRefine].DeviceBytes += 50*c[6] + 24*c[4] + 12*c[3]
			// jet_after: per edge of a candidate, the neighbour's block,
			// candidacy and gain.
			b.gatherIn(PhaseRefine, c[6], 4, 4*n)
			b.gatherIn(PhaseRefine, c[6], 1, n)
			b.gatherIn(PhaseRefine, c[6], 8, 8*n)
		})
	})
	return nil
}

// moved records that the mapping changed: the next Cost adds the change.
func (j *gpuJet) moved(bytes func(*[ctlRead]int64)) {
	j.fresh = false
	j.step = bytes
}

// settle brings ctl up to date before a step that needs it.
func (j *gpuJet) settle() error {
	if j.fresh {
		return nil
	}
	_, err := j.Cost()
	return err
}

// Cost computes J (from scratch the first time, then by the change the
// last step made), the excess and the heaviest block, and reads them.
func (j *gpuJet) Cost() (int64, error) {
	b, a, ws, g, n := j.b, j.a, j.ws, j.g, j.n
	if j.stale {
		if err := j.blockWeights(); err != nil {
			return 0, err
		}
		j.stale = false
	}
	full := int32(0)
	bytes := 2 * n
	if j.full {
		full, bytes = 1, 12*n+(8+j.g.wb)*j.m2
		b.gather(j.m2, 4, 4*n) // every edge reads its neighbour's block
	}
	// The last block's statistics: its threads' loads over the
	// accumulators, the block weights (twice when it lists the room) and a
	// few shared-memory steps, one after another.
	b.serial(7+2*ceilDiv(int64(j.k), modelTeam), 0)
	if err := b.tail("jet_cost", n, bytes+2*8*5*spread+24*int64(j.k), true, driver.I32(full), driver.P(g.xadj), driver.P(g.adj),
		driver.P(g.ew32), driver.P(g.ew64), driver.P(j.pe), driver.P(a.labels), driver.P(a.dist), driver.P(ws.moved),
		driver.P(ws.cand), driver.P(j.old), driver.P(a.spread), driver.I32(int32(n)), driver.P(a.bw), driver.I32(int32(j.k)),
		driver.I32(j.seg), driver.I64(j.lmax), driver.P(a.room), driver.P(a.roomList), driver.P(a.ctl)); err != nil {
		return 0, err
	}
	if err := b.copyOut(unsafe.Pointer(&j.ctl[0]), a.ctl, 8*ctlRead); err != nil {
		return 0, err
	}
	if !j.full {
		b.late(b.phase, "jet_cost", func() {
			b.count().DeviceBytes += 28*j.ctl[5] + 16*j.ctl[3]
			// Per edge of a moved vertex: the neighbour's moved flag, block
			// and old block.
			b.gather(j.ctl[5], 1, n)
			b.gather(2*j.ctl[5], 4, 4*n)
		})
	}
	if j.step != nil {
		j.step(j.ctl)
		j.step = nil
	}
	j.full, j.fresh = false, true
	return j.ctl[0], nil
}

// Excess is the weight above lmax, as the last Cost read it.
func (j *gpuJet) Excess() (int64, error) {
	if err := j.settle(); err != nil {
		return 0, err
	}
	return j.ctl[1], nil
}

func (j *gpuJet) SaveBest() error { return j.b.copyD2D(j.ws.best, j.pe, 4*j.n) }

// RestoreBest goes back to the saved mapping. Its block weights wait for
// the next step that needs them: RunJet ends with RestoreBest, and the
// next level starts a Jet loop of its own.
func (j *gpuJet) RestoreBest() error {
	j.full, j.fresh, j.step, j.stale = true, false, nil, true
	return j.b.copyD2D(j.pe, j.ws.best, 4*j.n)
}

func (j *gpuJet) blockWeights() error { return j.b.blockWeights(j.pe, j.g.vw, j.a.bw, j.n, int64(j.k)) }

// blockWeights sets bw[b] (k int64s) to the weight of the vertices v < n
// with pe[v] = b.
func (b *Backend) blockWeights(pe, vw, bw driver.Ptr, n, k int64) error {
	if err := b.fill32(bw, 0, 2*k); err != nil {
		return err
	}
	// A team kernel: a block per SM or so, each adding up its vertices in
	// shared memory before its atomics.
	grid := uint32(min(int64(b.teamGrid), (n+int64(b.team)-1)/int64(b.team)))
	if k <= bwShared { // at most one atomic per block and PE (beyond, the PEs are many addresses)
		b.serial(0, min(2*modelSMs*k, n))
	}
	return b.launch("block_weights", grid, b.team,
		12*n, driver.P(pe), driver.P(vw), driver.P(bw), driver.I32(int32(n)), driver.I32(int32(k)))
}

// Rebalance is weak or strong rebalancing on the device (see the kernels'
// comments); the moves are refinement.SelectRebalance's.
func (j *gpuJet) Rebalance(strong bool) error {
	b, a, ws, g, n, k := j.b, j.a, j.ws, j.g, j.n, int64(j.k)
	if err := j.settle(); err != nil {
		return err
	}
	prev := b.phase
	b.phase = PhaseRebalance
	defer func() { b.phase = prev }()
	j.old = ws.dest // the moves keep a vertex's old block in dest
	strongArg := int32(0)
	if strong {
		strongArg = 1
	}
	loop := func(name string, items, bytes int64, args ...driver.Arg) func() error {
		return func() error { return b.loop(name, items, bytes, args...) }
	}
	// serial adds a launch's round trips on its critical path (reb_refine:
	// a thread per PE loads its bins rbatch at a time; reb_cut: the NB
	// buckets in two batches; reb_over's last block: the k PEs' room).
	serial := func(chain int64, f func() error) func() error {
		return func() error { b.serial(chain, 0); return f() }
	}
	// With at most a block's threads of PEs (on the model's device), the
	// per-PE steps (reb_cut, reb_refine) run in the last block of the
	// kernel before them, one PE per thread as in a launch of their own.
	fuse := k <= modelTeam
	// tail runs a kernel whose last block, when ticket is set, does the
	// per-PE step of chain round trips and bytes more.
	tail := func(name string, items, bytes int64, ticket bool, chain, more int64, args ...driver.Arg) func() error {
		return func() error {
			if ticket {
				b.serial(chain, 0)
				bytes += more
			}
			return b.tail(name, items, bytes, ticket, args...)
		}
	}
	cut := func(mode int32) func() error {
		return serial(4, loop("reb_cut", k, 16*k*nb, driver.I32(mode), driver.P(a.kw), driver.P(a.bw), driver.I64(j.lmax),
			driver.P(a.cut), driver.P(a.need), driver.P(a.lo), driver.P(a.accepted), driver.P(a.ctl), driver.I32(int32(k))))
	}
	fuseArg := int32(0)
	if fuse {
		fuseArg = 1
	}
	nbins := int64(1) << a.binsLog
	narrow := func(mode int32, member driver.Ptr) []func() error {
		var steps []func() error
		for _, s := range j.shifts {
			refine := ceilDiv(nbins, rbatch) + 2
			steps = append(steps, tail("reb_hist", n, n, fuse, refine, 16*k*nbins, driver.I32(mode), driver.P(j.pe), driver.P(ws.dest),
				driver.P(member), driver.P(ws.bucket), driver.P(g.vw), driver.P(a.cut), driver.P(a.lo), driver.I32(int32(s)),
				driver.I32(int32(nbins)), driver.P(a.hist), driver.I32(int32(n)), driver.I32(fuseArg), driver.P(a.need),
				driver.I32(int32(k)), driver.P(a.ctl)))
			if !fuse {
				steps = append(steps, serial(refine, loop("reb_refine", k, 16*k*nbins, driver.P(a.hist), driver.I32(int32(s)),
					driver.I32(int32(nbins)), driver.P(a.cut), driver.P(a.need), driver.P(a.lo), driver.I32(int32(k)))))
			}
		}
		return steps
	}
	// The last narrowing step, in the kernel that uses the crossing vertex
	// (reb_evict, reb_over): a member of a crossing bucket in its key's
	// window adds up the members before it there, rbatch ids per round
	// trip; per key the window's flags, keys, buckets and weights.
	crossing := func() int64 {
		b.serial(ceilDiv(int64(j.window), rbatch), 0)
		return 14 * k * int64(j.window)
	}
	steps := []func() error{
		tail("reb_cand", n, 23*n, fuse, 4, 16*k*nb, driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew32), driver.P(g.ew64), driver.P(g.vw),
			driver.P(j.pe), driver.P(a.labels), driver.P(a.dist), driver.P(a.bw), driver.I64(j.lmax), driver.P(a.room),
			driver.P(a.roomList), driver.P(a.ctl), driver.I64(int64(j.seed)), driver.I32(j.seg), driver.P(ws.hv), driver.P(ws.hw),
			driver.P(ws.locked), driver.P(ws.cand), driver.P(ws.dest), driver.P(ws.bucket), driver.P(ws.key), driver.P(a.kw), driver.I32(int32(n)),
			driver.I32(fuseArg), driver.P(a.cut), driver.P(a.need), driver.P(a.lo), driver.P(a.accepted), driver.I32(int32(k))),
	}
	if !fuse {
		steps = append(steps, cut(0))
	}
	steps = append(steps, narrow(0, ws.cand)...)
	evictTail := int32(0)
	if strong && fuse {
		evictTail = 1
	}
	steps = append(steps, func() error {
		return tail("reb_evict", n, 2*n+crossing(), evictTail == 1, 4, 16*k*nb, driver.I32(strongArg),
			driver.P(j.pe), driver.P(ws.dest), driver.P(ws.cand), driver.P(ws.bucket), driver.P(ws.key), driver.I32(j.window),
			driver.P(g.vw), driver.P(a.cut), driver.P(a.lo),
			driver.P(a.bw), driver.P(a.kw), driver.P(ws.moved), driver.I32(int32(n)), driver.I32(evictTail), driver.I64(j.lmax),
			driver.P(a.need), driver.P(a.accepted), driver.P(a.ctl), driver.I32(int32(k)))()
	})
	if strong {
		if !fuse {
			steps = append(steps, cut(1))
		}
		steps = append(steps, narrow(1, ws.moved)...)
		steps = append(steps,
			// The last block's prefix over the k PEs' room.
			serial(2+2*ceilDiv(k, modelTeam), func() error {
				return b.tail("reb_over", n, 9*n+32*k+crossing(), true, driver.P(ws.dest), driver.P(ws.bucket), driver.P(g.vw),
					driver.P(a.cut), driver.P(a.lo), driver.P(a.need), driver.I32(j.window), driver.P(ws.moved), driver.P(a.accepted), driver.P(ws.flags),
					driver.I32(int32(n)), driver.P(a.bw), driver.I32(int32(k)), driver.I64(j.lmax), driver.P(a.rem),
					driver.P(a.ctl))
			}),
			func() error { _, err := b.scan(ws, ws.flags, n, false); return err },
			loop("reb_place", n, n, driver.P(j.pe), driver.P(ws.dest), driver.P(ws.moved), driver.P(ws.flags), driver.P(a.rem),
				driver.P(g.vw), driver.P(a.bw), driver.I32(int32(k)), driver.I32(j.seg), driver.I32(int32(n))))
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	passes := int64(len(j.shifts))
	if strong {
		passes *= 2
	}
	j.moved(func(c *[ctlRead]int64) {
		b.late(PhaseRebalance, "reb_cand", func() {
			// What the candidates and moves cost, known once counted: their
			// edges in reb_cand and their blocks (key), their ids in the
			// narrowing steps, their moves.
			b.stats.Phases[PhaseRebalance].DeviceBytes += 40*c[6] + 24*c[4] + 17*passes*c[4] + 40*c[3]
			b.gatherIn(PhaseRebalance, c[6], 4, 4*n) // reb_cand: the neighbours' blocks
		})
	})
	return nil
}
