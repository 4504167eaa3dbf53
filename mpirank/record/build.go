package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// Merging the traffic of every rank into the pattern's graphs happens on
// rank 0 at MPI_Finalize, after the application, so its memory is bounded
// by the recorded edges alone: the ranks' records are read twice (once to
// count each vertex's degree, once to place the arcs) straight into one
// CSR whose rows hold, per stored arc, the neighbour and both weights (4 +
// 8 + 8 bytes; each recorded arc a->b is stored in the rows of a and of b).
// Each row is then sorted and its duplicates (a->b and b->a) merged in
// place. The byte and the message graph share that structure (XAdj, Adj)
// unless an edge carries messages of zero bytes, which only the message
// graph has; their weights are narrowed to 32 bits when they fit.
// BenchmarkBuildEncoded reports the bytes allocated per recorded arc.

// source visits every rank's traffic in rank order: rank(a, host, lost)
// once per rank, then arc(a, peer, bytes, messages) for each of its peers
// in increasing order. host is only valid during the call.
type source func(rank func(a int, host []byte, lost uint64) error, arc func(a int, peer int32, b, m uint64) error) error

// Build merges the traffic of every rank (ranks[r] is world rank r).
func Build(ranks []Rank, program string) (*Pattern, error) {
	for a, r := range ranks {
		if len(r.Bytes) != len(r.Peers) || len(r.Msgs) != len(r.Peers) {
			return nil, fmt.Errorf("rank %d: %d peers but %d byte and %d message counts", a, len(r.Peers), len(r.Bytes), len(r.Msgs))
		}
	}
	return build(len(ranks), program, func(rank func(int, []byte, uint64) error, arc func(int, int32, uint64, uint64) error) error {
		for a, r := range ranks {
			if err := rank(a, []byte(r.Host), r.Lost); err != nil {
				return err
			}
			for j, p := range r.Peers {
				if err := arc(a, p, r.Bytes[j], r.Msgs[j]); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// BuildEncoded merges the traffic of n ranks given as their records
// (EncodeRank's output; record(r) is rank r's, read twice, and only until
// the next call, so the caller may reuse one buffer). It is Build without
// decoding every rank first: what rank 0 runs at MPI_Finalize.
func BuildEncoded(n int, program string, record func(r int) ([]byte, error)) (*Pattern, error) {
	return build(n, program, func(rank func(int, []byte, uint64) error, arc func(int, int32, uint64, uint64) error) error {
		for a := 0; a < n; a++ {
			b, err := record(a)
			if err == nil {
				err = visitRecord(b, a, rank, arc)
			}
			if err != nil {
				return fmt.Errorf("traffic of rank %d: %v", a, err)
			}
		}
		return nil
	})
}

// visitRecord walks one EncodeRank record without decoding it into
// slices: the peers section and the counts section side by side.
func visitRecord(b []byte, a int, rank func(int, []byte, uint64) error, arc func(int, int32, uint64, uint64) error) error {
	if len(b) == 0 || b[0] != rankVersion {
		return errVersion
	}
	b = b[1:]
	uv := func(b *[]byte) (uint64, bool) {
		v, n := binary.Uvarint(*b)
		if n <= 0 {
			return 0, false
		}
		*b = (*b)[n:]
		return v, true
	}
	l, ok := uv(&b)
	if !ok || l > uint64(len(b)) {
		return errTruncated
	}
	host := b[:l]
	b = b[l:]
	lost, ok := uv(&b)
	if !ok {
		return errTruncated
	}
	n, ok := uv(&b)
	if !ok || n > uint64(len(b)) {
		return errTruncated
	}
	// counts starts after the n peer deltas
	counts := b
	for i := uint64(0); i < n; i++ {
		if _, ok := uv(&counts); !ok {
			return errTruncated
		}
	}
	if err := rank(a, host, lost); err != nil {
		return err
	}
	prev := int64(-1)
	for i := uint64(0); i < n; i++ {
		d, _ := uv(&b)
		if d > math.MaxInt32 || prev+int64(d)+1 > math.MaxInt32 {
			return errTruncated
		}
		prev += int64(d) + 1
		by, ok1 := uv(&counts)
		m, ok2 := uv(&counts)
		if !ok1 || !ok2 {
			return errTruncated
		}
		if err := arc(a, int32(prev), by, m); err != nil {
			return err
		}
	}
	if len(counts) != 0 {
		return fmt.Errorf("%d bytes after the traffic record", len(counts))
	}
	return nil
}

// build reads src twice: the first pass counts the degrees, totals and
// hosts, the second places every arc in both rows.
func build(n int, program string, src source) (*Pattern, error) {
	if n < 0 || int64(n) > graph.MaxVertices {
		return nil, fmt.Errorf("%d ranks: out of range [0,%d]", n, int64(graph.MaxVertices))
	}
	p := &Pattern{Header: Header{Program: oneLine(program), Ranks: n, RankHost: make([]int32, n)}}
	hostIdx := map[string]int32{}
	xadj := make([]int64, n+1)
	err := src(func(a int, host []byte, lost uint64) error {
		if !oneField(host) {
			host = []byte(hostName(string(host)))
		}
		i, ok := hostIdx[string(host)] // no copy of host for the lookup
		if !ok {
			i = int32(len(p.Hosts))
			hostIdx[string(host)] = i
			p.Hosts = append(p.Hosts, string(host))
		}
		p.RankHost[a] = i
		p.Lost += lost
		return nil
	}, func(a int, peer int32, b, m uint64) error {
		switch {
		case peer < 0 || int(peer) >= n:
			return fmt.Errorf("rank %d sent to rank %d, outside the %d ranks", a, peer, n)
		case b > math.MaxInt64 || m > math.MaxInt64:
			return fmt.Errorf("rank %d sent %d bytes in %d messages to rank %d: too many to record", a, b, m, peer)
		case int(peer) == a:
			p.SelfBytes += b
			p.SelfMsgs += m
			return nil
		}
		p.SentBytes += b
		p.SentMsgs += m
		xadj[a+1]++
		xadj[peer+1]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	for v := 0; v < n; v++ {
		xadj[v+1] += xadj[v]
	}
	arcs := xadj[n]
	adj := make([]int32, arcs)
	wb, wm := make([]int64, arcs), make([]int64, arcs)
	// pos[v] = next free slot of row v; kept in xadj[v+1]'s place shifted:
	// the rows are filled through a copy of the offsets.
	pos := make([]int64, n)
	copy(pos, xadj[:n])
	put := func(v, u int32, b, m uint64) {
		i := pos[v]
		adj[i], wb[i], wm[i] = u, int64(b), int64(m)
		pos[v] = i + 1
	}
	err = src(func(int, []byte, uint64) error { return nil }, func(a int, peer int32, b, m uint64) error {
		if int(peer) != a {
			put(int32(a), peer, b, m)
			put(peer, int32(a), b, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	pos = nil
	// Sort every row by neighbour and merge its duplicates, compacting the
	// arrays in place.
	s := &rowSorter{}
	out := int64(0)
	zeroB, zeroM := false, false
	for v := 0; v < n; v++ {
		lo, hi := xadj[v], xadj[v+1]
		s.adj, s.wb, s.wm = adj[lo:hi], wb[lo:hi], wm[lo:hi]
		if !sort.IsSorted(s) {
			sort.Sort(s)
		}
		start := out
		for e := lo; e < hi; e++ {
			if out > start && adj[out-1] == adj[e] {
				if wb[out-1] > math.MaxInt64-wb[e] || wm[out-1] > math.MaxInt64-wm[e] {
					return nil, fmt.Errorf("the traffic between ranks %d and %d overflows 64 bits", v, adj[e])
				}
				wb[out-1] += wb[e]
				wm[out-1] += wm[e]
				continue
			}
			adj[out], wb[out], wm[out] = adj[e], wb[e], wm[e]
			out++
		}
		xadj[v] = start
		for e := start; e < out; e++ {
			zeroB = zeroB || wb[e] == 0
			zeroM = zeroM || wm[e] == 0
		}
	}
	xadj[n] = out
	vw := make([]int64, n)
	for i := range vw {
		vw[i] = 1
	}
	adj = adj[:out:out]
	p.Bytes = weighted(xadj, adj, vw, wb[:out], zeroB)
	p.Msgs = weighted(xadj, adj, vw, wm[:out], zeroM)
	return p, nil
}

// oneField: h is a host name as hostName keeps it (non-empty, ASCII
// without spaces; anything else goes through hostName).
func oneField(h []byte) bool {
	for _, c := range h {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return len(h) > 0
}

// weighted is the graph of the structure (xadj, adj) with weights w,
// shared unless some weight is zero: then those edges are left out of a
// copy.
func weighted(xadj []int64, adj []int32, vw, w []int64, zero bool) *graph.Graph {
	if zero {
		x := make([]int64, len(xadj))
		a := make([]int32, 0, len(adj))
		kept := make([]int64, 0, len(w))
		for v := 0; v+1 < len(xadj); v++ {
			for e := xadj[v]; e < xadj[v+1]; e++ {
				if w[e] != 0 {
					a = append(a, adj[e])
					kept = append(kept, w[e])
				}
			}
			x[v+1] = int64(len(a))
		}
		xadj, adj, w = x, a, kept
	}
	g := &graph.Graph{XAdj: xadj, Adj: adj, VW: vw}
	g.SetEdgeWeights(w)
	return g
}

// rowSorter sorts one row (neighbours and both weights) by neighbour.
type rowSorter struct {
	adj    []int32
	wb, wm []int64
}

func (s *rowSorter) Len() int           { return len(s.adj) }
func (s *rowSorter) Less(i, j int) bool { return s.adj[i] < s.adj[j] }
func (s *rowSorter) Swap(i, j int) {
	s.adj[i], s.adj[j] = s.adj[j], s.adj[i]
	s.wb[i], s.wb[j] = s.wb[j], s.wb[i]
	s.wm[i], s.wm[j] = s.wm[j], s.wm[i]
}
