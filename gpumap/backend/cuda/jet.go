package cuda

import (
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
	"github.com/gpumap/gpumap/gpumap/refinement"
	"github.com/gpumap/gpumap/topology"
)

// gpuJet implements refinement.JetOps on the device; refinement.RunJet
// drives it exactly as it drives the CPU implementation.
type gpuJet struct {
	b    *Backend
	g    *devGraph
	pe   *devVec
	k    int
	lmax int64
	cfg  refinement.JetConfig

	labels, dist, bw, counter       driver.Ptr
	locked, cand, dest, moved, best driver.Ptr
	gain, cb, cw, room, roomList    driver.Ptr
	vw                              []int64 // host copy, for rebalancing
	round                           uint64
	ptrs                            []*driver.Ptr
}

func (b *Backend) newJet(g *devGraph, pe *devVec, top *topology.Topology, lmax int64, cfg refinement.JetConfig) (*gpuJet, error) {
	n, k := int64(g.n), int64(top.K())
	j := &gpuJet{b: b, g: g, pe: pe, k: int(k), lmax: lmax, cfg: cfg}
	for _, a := range []struct {
		p     *driver.Ptr
		bytes int64
	}{{&j.labels, 8 * k}, {&j.dist, 8 * 64}, {&j.bw, 8 * k}, {&j.counter, 8},
		{&j.locked, 4 * n}, {&j.cand, 4 * n}, {&j.dest, 4 * n}, {&j.moved, 4 * n}, {&j.best, 4 * n},
		{&j.gain, 8 * n}, {&j.cb, 4 * g.m2}, {&j.cw, 8 * g.m2}, {&j.room, 4 * k}, {&j.roomList, 4 * k}} {
		p, err := alloc(a.bytes)
		if err != nil {
			j.free()
			return nil, err
		}
		*a.p = p
		j.ptrs = append(j.ptrs, a.p)
	}
	labels := top.Labels()
	dist := make([]int64, 64)
	for i := range dist {
		dist[i] = top.LabelDistance(0, 1<<uint(i))
	}
	j.vw = make([]int64, n)
	for _, c := range []error{
		driver.CopyIn(j.labels, unsafe.Pointer(&labels[0]), uint64(8*k)),
		driver.CopyIn(j.dist, unsafe.Pointer(&dist[0]), 8*64),
		driver.Fill32(j.locked, 0, uint64(n)),
		driver.CopyOut(ptr64(j.vw), g.vw, uint64(8*n)),
	} {
		if c != nil {
			j.free()
			return nil, c
		}
	}
	return j, j.blockWeights()
}

func (j *gpuJet) free() {
	for _, p := range j.ptrs {
		driver.Free(*p)
	}
}

func (j *gpuJet) n() int64 { return int64(j.g.n) }

func (j *gpuJet) blockWeights() error {
	if err := driver.Fill32(j.bw, 0, uint64(2*j.k)); err != nil {
		return err
	}
	return j.b.launch("block_weights", j.n(), driver.P(j.pe.p), driver.P(j.g.vw), driver.P(j.bw), driver.I32(int32(j.n())))
}

func (j *gpuJet) LabelPropagation() error {
	g, b, n := j.g, j.b, j.n()
	if err := b.launch("jet_lp", n, driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew), driver.P(j.pe.p),
		driver.P(j.labels), driver.P(j.dist), driver.P(j.locked), driver.P(j.cb), driver.P(j.cw),
		driver.P(j.cand), driver.P(j.dest), driver.P(j.gain), driver.I32(int32(n))); err != nil {
		return err
	}
	if err := b.launch("jet_after", n, driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew), driver.P(j.pe.p),
		driver.P(j.labels), driver.P(j.dist), driver.P(j.cand), driver.P(j.dest), driver.P(j.gain),
		driver.P(j.cb), driver.P(j.cw), driver.P(j.moved), driver.I32(int32(n))); err != nil {
		return err
	}
	if err := b.launch("jet_apply", n, driver.P(j.pe.p), driver.P(j.dest), driver.P(j.moved), driver.P(j.locked),
		driver.I32(int32(n))); err != nil {
		return err
	}
	return j.blockWeights()
}

func (j *gpuJet) hostBW() ([]int64, error) {
	bw := make([]int64, j.k)
	if err := j.b.sync(); err != nil {
		return nil, err
	}
	return bw, driver.CopyOut(ptr64(bw), j.bw, uint64(8*j.k))
}

// Rebalance computes the candidates on the device (jet_reb) and selects
// the moves on the host with the CPU backend's rule.
func (j *gpuJet) Rebalance(strong bool) error {
	g, b, n := j.g, j.b, j.n()
	if err := driver.Fill32(j.locked, 0, uint64(n)); err != nil {
		return err
	}
	bw, err := j.hostBW()
	if err != nil {
		return err
	}
	avg, room, roomList := refinement.RebalanceTargets(bw, j.lmax)
	if len(roomList) == 0 {
		return nil
	}
	j.round++
	roomI := make([]int32, j.k)
	for i, r := range room {
		if r {
			roomI[i] = 1
		}
	}
	if err := driver.CopyIn(j.room, ptr32(roomI), uint64(4*j.k)); err != nil {
		return err
	}
	if err := driver.CopyIn(j.roomList, ptr32(roomList), uint64(4*len(roomList))); err != nil {
		return err
	}
	if err := b.launch("jet_reb", n, driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew), driver.P(g.vw), driver.P(j.pe.p),
		driver.P(j.labels), driver.P(j.dist), driver.P(j.bw), driver.I64(j.lmax), driver.I64(avg),
		driver.P(j.room), driver.P(j.roomList), driver.I32(int32(len(roomList))),
		driver.I64(int64(refinement.RebalanceSeed(j.cfg.Seed, j.round))),
		driver.P(j.cb), driver.P(j.cw), driver.P(j.cand), driver.P(j.dest), driver.P(j.gain), driver.I32(int32(n))); err != nil {
		return err
	}
	cand := make([]int32, n)
	dest := make([]int32, n)
	gain := make([]int64, n)
	part := make([]int32, n)
	if err := b.sync(); err != nil {
		return err
	}
	for _, c := range []struct {
		h unsafe.Pointer
		p driver.Ptr
		n int64
	}{{ptr32(cand), j.cand, 4 * n}, {ptr32(dest), j.dest, 4 * n}, {ptr64(gain), j.gain, 8 * n}, {ptr32(part), j.pe.p, 4 * n}} {
		if err := driver.CopyOut(c.h, c.p, uint64(c.n)); err != nil {
			return err
		}
	}
	candB := make([]bool, n)
	for i, c := range cand {
		candB[i] = c != 0
	}
	maxW := make([]int64, j.k)
	for i := range maxW {
		maxW[i] = j.lmax
	}
	for _, v := range refinement.SelectRebalance(part, j.vw, bw, maxW, candB, dest, gain, strong) {
		part[v] = dest[v]
	}
	if err := driver.CopyIn(j.pe.p, ptr32(part), uint64(4*n)); err != nil {
		return err
	}
	return j.blockWeights()
}

func (j *gpuJet) Cost() (int64, error) {
	g, b := j.g, j.b
	if err := driver.Fill32(j.counter, 0, 2); err != nil {
		return 0, err
	}
	if err := b.launch("cost_kernel", j.n(), driver.P(g.xadj), driver.P(g.adj), driver.P(g.ew), driver.P(j.pe.p),
		driver.P(j.labels), driver.P(j.dist), driver.P(j.counter), driver.I32(int32(j.n()))); err != nil {
		return 0, err
	}
	var c int64
	if err := b.sync(); err != nil {
		return 0, err
	}
	return c, driver.CopyOut(unsafe.Pointer(&c), j.counter, 8)
}

func (j *gpuJet) Excess() (int64, error) {
	bw, err := j.hostBW()
	if err != nil {
		return 0, err
	}
	var ex int64
	for _, w := range bw {
		ex += max(w-j.lmax, 0)
	}
	return ex, nil
}

func (j *gpuJet) SaveBest() error { return driver.Copy(j.best, j.pe.p, uint64(4*j.n())) }

func (j *gpuJet) RestoreBest() error {
	if err := driver.Copy(j.pe.p, j.best, uint64(4*j.n())); err != nil {
		return err
	}
	return j.blockWeights()
}
