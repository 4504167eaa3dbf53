package cuda

import (
	"errors"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
)

// scan replaces a[0..n) (int64s on the device, with room for a[n]) by its
// exclusive prefix sums and stores the total in a[n]: scan_up sums every
// thread's chunk and its last block scans those sums (stored transposed
// for its coalesced loads), scan_down rescans the chunks.
// With total, the sum is also copied to the host.
func (b *Backend) scan(ws *workspace, a driver.Ptr, n int64, total bool) (int64, error) {
	if n <= 0 {
		if err := b.fill32(a, 0, 2); err != nil || !total {
			return 0, err
		}
		return 0, nil
	}
	blocks := uint32(min(int64(b.scanB), (n+4*threads-1)/(4*threads)))
	p := int64(blocks) * threads
	per := (n + p - 1) / p
	// The last block's threads load their sums sbatch at a time, twice:
	// on the model's device, one sum per block of a pass each. Every
	// block takes its ticket.
	b.serial(2*ceilDiv(min(modelSMs, ceilDiv(n, 4*threads)), sbatch)+2, min(modelSMs, ceilDiv(n, 4*threads)))
	if err := b.launch("scan_up", blocks, threads, 8*n+24*p+8, driver.P(a), driver.I64(n), driver.I64(per), driver.P(ws.part),
		driver.P(a+driver.Ptr(8*n)), driver.P(ws.ticket)); err != nil {
		return 0, err
	}
	if err := b.launch("scan_down", blocks, threads, 16*n+8*p, driver.P(a), driver.I64(n), driver.I64(per), driver.P(ws.part),
		driver.I32(threads)); err != nil {
		return 0, err
	}
	if !total {
		return 0, nil
	}
	return b.readInt64(a + driver.Ptr(8*n))
}

// Match is the data-parallel two-hop matching (coarsening.TwoHop's rule:
// mutual-preference rounds with the exp*2 rating and pair noise, then
// vertices that share their heaviest neighbour). The result lives in the
// workspace until the next Match.
func (b *Backend) Match(g backend.Graph, maxWeight int64, seed uint64) (backend.Vector, error) {
	done, err := b.bind(PhaseMatch)
	if err != nil {
		return nil, err
	}
	defer done()
	dg := g.(*devGraph)
	ws := dg.ws
	n, m2 := int64(dg.n), dg.m2
	if err := b.fill32(ws.match, 0xffffffff, n); err != nil {
		return nil, err
	}
	matched := int64(0)
	for r := 0; r < 8 && n > 0; r++ { // match_prefer clears the round's count
		open := n - matched // unmatched vertices read their edges
		// Each edge of an open vertex gathers its neighbour's match and
		// weight.
		b.gather(open*m2/max(n, 1), 4, 4*n)
		b.gather(open*m2/max(n, 1), 8, 8*n)
		if err := b.loop("match_prefer", n, 24*n+(open*(16+dg.wb)*m2)/max(n, 1), driver.P(dg.xadj), driver.P(dg.adj), driver.P(dg.ew32), driver.P(dg.ew64),
			driver.P(dg.vw), driver.P(ws.match), driver.P(ws.pref), driver.I32(int32(n)), driver.I64(maxWeight),
			driver.I64(int64(seed+uint64(r)*0x9e37)), driver.P(ws.flags)); err != nil {
			return nil, err
		}
		if err := b.loop("match_resolve", n, 12*n, driver.P(ws.pref), driver.P(ws.match), driver.I32(int32(n)), driver.P(ws.flags)); err != nil {
			return nil, err
		}
		newly, err := b.readInt64(ws.flags)
		if err != nil {
			return nil, err
		}
		matched += newly
		if newly == 0 || 4*matched >= 3*n {
			break
		}
	}
	if 4*matched < 3*n { // two-hop: leaves, twins, relatives
		open := n - matched
		for step := int32(0); step < 3; step++ {
			// hop_key and hop_pair gather one neighbour's entry per edge of
			// an open vertex.
			b.gather(2*open*m2/max(n, 1), 4, 4*n)
			if err := b.fill32(ws.ismaker, 0, n); err != nil {
				return nil, err
			}
			if err := b.loop("hop_key", n, 24*n+(open*(4+dg.wb)*m2)/max(n, 1), driver.I32(step), driver.P(dg.xadj), driver.P(dg.adj),
				driver.P(dg.ew32), driver.P(dg.ew64), driver.P(ws.match), driver.P(ws.maker), driver.P(ws.cvw), driver.P(ws.ismaker), driver.I32(int32(n))); err != nil {
				return nil, err
			}
			if err := b.loop("hop_pair", n, 4*n+(open*24*m2)/max(n, 1)+8*open, driver.I32(step), driver.P(dg.xadj), driver.P(dg.adj),
				driver.P(dg.vw), driver.P(ws.maker), driver.P(ws.cvw), driver.P(ws.ismaker), driver.P(ws.hv), driver.P(ws.match),
				driver.I32(int32(n)), driver.I64(maxWeight)); err != nil {
				return nil, err
			}
		}
	}
	if err := b.loop("match_self", n, 8*n, driver.P(ws.match), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	return &devVec{n: dg.n, p: ws.match, ws: ws}, nil
}

// Contract builds the coarse graph of a matching (the paper's Algorithm
// 3: hashing with compare-and-swap into slot ranges bounded by the
// members' degrees, then compaction in order of first occurrence) and the
// fine-to-coarse map: the graph coarsening.Contract builds, byte for byte.
func (b *Backend) Contract(g backend.Graph, matchV backend.Vector) (backend.Graph, backend.Vector, error) {
	done, err := b.bind(PhaseContract)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	dg := g.(*devGraph)
	ws := dg.ws
	match := matchV.(*devVec).p
	cmap, err := alloc(4 * int64(dg.n))
	if err != nil {
		return nil, nil, err
	}
	cg, err := b.contract(dg, match, cmap)
	if err != nil {
		driver.Free(cmap)
		return nil, nil, err
	}
	return cg, &devVec{n: dg.n, p: cmap, owned: true, ws: ws}, nil
}

func (b *Backend) contract(dg *devGraph, match, cmap driver.Ptr) (*devGraph, error) {
	ws := dg.ws
	n, m2 := int64(dg.n), dg.m2
	if err := b.loop("cmap_flags", n, 12*n, driver.P(match), driver.P(ws.flags), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	nc, err := b.scan(ws, ws.flags, n, true)
	if err != nil {
		return nil, err
	}
	if err := b.loop("cmap_fill", n, 16*n+8*nc, driver.P(match), driver.P(ws.flags), driver.P(cmap), driver.P(ws.leaders), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	if err := b.loop("cmap_partner", n, 12*n, driver.P(match), driver.P(cmap), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	if err := b.loop("contract_bounds", nc, 72*nc, driver.P(dg.xadj), driver.P(dg.vw), driver.P(match), driver.P(ws.leaders),
		driver.P(ws.off), driver.P(ws.cvw), driver.I32(int32(nc))); err != nil {
		return nil, err
	}
	// The bounds add up to the fine degrees: m2 slots in all.
	if _, err := b.scan(ws, ws.off, nc, false); err != nil {
		return nil, err
	}
	if err := b.fill32(ws.hv, 0xffffffff, m2); err != nil {
		return nil, err
	}
	if err := b.fill32(ws.hw, 0, 2*m2); err != nil {
		return nil, err
	}
	if err := b.fill32(ws.hp, 0x7fffffff, m2); err != nil {
		return nil, err
	}
	// Per fine edge: the neighbour's coarse id, its coarse vertex's
	// interval, and the hash slot's id and weight.
	b.gather(m2, 4, 4*n)
	b.gather(m2, 8, 8*nc)
	b.gather(m2, 4, 4*m2)
	b.gather(m2, 8, 8*m2)
	if err := b.loop("contract_insert", m2, (64+dg.wb)*m2, driver.P(dg.xadj), driver.P(dg.src), driver.P(dg.adj), driver.P(dg.ew32), driver.P(dg.ew64),
		driver.P(cmap), driver.P(ws.leaders), driver.P(ws.off), driver.P(ws.hv), driver.P(ws.hw), driver.P(ws.hp), driver.I64(m2)); err != nil {
		return nil, err
	}
	if err := b.loop("contract_count", nc, 24*nc+4*m2, driver.P(ws.hv), driver.P(ws.off), driver.P(ws.flags), driver.I32(int32(nc))); err != nil {
		return nil, err
	}
	m2c, err := b.scan(ws, ws.flags, nc, true)
	if err != nil {
		return nil, err
	}
	cg, err := newGraph(int(nc), m2c, dg.coarseWeightBytes(), ws)
	if err != nil {
		return nil, err
	}
	err = errors.Join(b.copyD2D(cg.xadj, ws.flags, 8*(nc+1)), b.copyD2D(cg.vw, ws.cvw, 8*nc))
	if err == nil {
		// Each slot's key and position, then an occupied slot's position and
		// weight again; the coarse edges written; the row bounds.
		err = b.loop("contract_compact", nc, 12*m2+(16+cg.wb)*m2c+24*nc, driver.P(ws.hv), driver.P(ws.hw), driver.P(ws.hp),
			driver.P(ws.off), driver.P(cg.xadj), driver.P(cg.adj), driver.P(cg.ew32), driver.P(cg.ew64), driver.I32(int32(nc)))
	}
	if err == nil {
		err = b.loop("edge_sources", nc, 16*nc+4*m2c, driver.P(cg.xadj), driver.P(cg.src), driver.I32(int32(nc)))
	}
	if err != nil {
		driver.Free(cg.block)
		return nil, err
	}
	return cg, nil
}

// Project maps a coarse mapping to the finer graph: fine[v] =
// coarse[cmap[v]]. The result lives in the workspace; the next Project
// reuses the array of the one before.
func (b *Backend) Project(cmap, coarse backend.Vector) (backend.Vector, error) {
	done, err := b.bind(PhaseProject)
	if err != nil {
		return nil, err
	}
	defer done()
	c := cmap.(*devVec)
	cv := coarse.(*devVec)
	ws := c.ws
	out := ws.pe[0]
	if cv.p == out {
		out = ws.pe[1]
	}
	n := int64(c.n)
	b.gather(n, 4, 4*int64(cv.n)) // coarse[cmap[v]]
	if err := b.loop("project", n, 12*n, driver.P(c.p), driver.P(cv.p), driver.P(out), driver.I32(int32(n))); err != nil {
		return nil, err
	}
	return &devVec{n: c.n, p: out, ws: ws}, nil
}
