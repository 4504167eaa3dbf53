package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Rank is what one rank sent: Bytes[i] bytes in Msgs[i] messages to world
// rank Peers[i], and Lost messages it could not attribute (to processes
// outside MPI_COMM_WORLD, or when the recorder ran out of memory).
type Rank struct {
	Host  string
	Peers []int32
	Bytes []uint64
	Msgs  []uint64
	Lost  uint64
}

const rankVersion = 1

// EncodeRank serialises r: the host with a length prefix, the peers sorted
// and delta-encoded, bytes and messages as varints in the same order.
func EncodeRank(r Rank) ([]byte, error) {
	if len(r.Bytes) != len(r.Peers) || len(r.Msgs) != len(r.Peers) {
		return nil, fmt.Errorf("%d peers but %d byte and %d message counts", len(r.Peers), len(r.Bytes), len(r.Msgs))
	}
	idx := make([]int, len(r.Peers))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return r.Peers[idx[a]] < r.Peers[idx[b]] })
	b := []byte{rankVersion}
	b = binary.AppendUvarint(b, uint64(len(r.Host)))
	b = append(b, r.Host...)
	b = binary.AppendUvarint(b, r.Lost)
	b = binary.AppendUvarint(b, uint64(len(idx)))
	prev := int64(-1)
	for _, i := range idx {
		p := int64(r.Peers[i])
		if p < 0 || p == prev {
			return nil, fmt.Errorf("peer %d is negative or repeated", p)
		}
		b = binary.AppendUvarint(b, uint64(p-prev-1))
		prev = p
	}
	for _, i := range idx {
		b = binary.AppendUvarint(b, r.Bytes[i])
		b = binary.AppendUvarint(b, r.Msgs[i])
	}
	return b, nil
}

var (
	errTruncated = errors.New("truncated traffic record")
	errVersion   = errors.New("traffic record version mismatch (recorder and library of different versions?)")
)

// DecodeRank reverses EncodeRank.
func DecodeRank(b []byte) (Rank, error) {
	var r Rank
	if len(b) == 0 || b[0] != rankVersion {
		return r, errVersion
	}
	b = b[1:]
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	l, ok := uv()
	if !ok || l > uint64(len(b)) {
		return r, errTruncated
	}
	r.Host, b = string(b[:l]), b[l:]
	var n uint64
	if r.Lost, ok = uv(); !ok {
		return r, errTruncated
	}
	if n, ok = uv(); !ok || n > uint64(len(b)) {
		return r, errTruncated
	}
	r.Peers = make([]int32, n)
	r.Bytes = make([]uint64, n)
	r.Msgs = make([]uint64, n)
	prev := int64(-1)
	for i := range r.Peers {
		d, ok := uv()
		if !ok || d > math.MaxInt32 {
			return r, errTruncated
		}
		prev += int64(d) + 1
		if prev > math.MaxInt32 {
			return r, errTruncated
		}
		r.Peers[i] = int32(prev)
	}
	for i := range r.Peers {
		if r.Bytes[i], ok = uv(); !ok {
			return r, errTruncated
		}
		if r.Msgs[i], ok = uv(); !ok {
			return r, errTruncated
		}
	}
	if len(b) != 0 {
		return r, fmt.Errorf("%d bytes after the traffic record", len(b))
	}
	return r, nil
}
