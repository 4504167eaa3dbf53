package mpirank

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/gpumap/gpumap/hwdetect"
	"github.com/klauspost/compress/zstd"
)

// payload is what every rank sends to rank 0.
type payload struct {
	Rec       hwdetect.Record
	Neighbors []int32
	Volumes   []float64
}

const payloadVersion = 1

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	dec     *zstd.Decoder
)

func codecs() (*zstd.Encoder, *zstd.Decoder) {
	encOnce.Do(func() {
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxPayload),
			zstd.WithDecodeAllCapLimit(true))
	})
	return enc, dec
}

// encodePayload serialises and compresses a rank's record and pattern:
// strings with length prefixes, neighbours sorted and delta-encoded as
// varints, volumes as raw float64 in the same order (zstd folds the usual
// repeated halo sizes).
func encodePayload(p payload) []byte {
	idx := make([]int, len(p.Neighbors))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p.Neighbors[idx[a]] < p.Neighbors[idx[b]] })
	b := []byte{payloadVersion}
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(p.Rec.Host)
	str(p.Rec.BootID)
	str(p.Rec.Switch)
	b = binary.AppendVarint(b, int64(p.Rec.Socket))
	b = binary.AppendVarint(b, int64(p.Rec.Core))
	b = binary.AppendUvarint(b, uint64(len(idx)))
	prev := int64(0)
	for _, i := range idx {
		b = binary.AppendUvarint(b, uint64(int64(p.Neighbors[i])-prev))
		prev = int64(p.Neighbors[i])
	}
	for _, i := range idx {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Volumes[i]))
	}
	return compress(b)
}

// payloadBound bounds the length of encodePayload's result for a rank at
// rec with degree neighbours, without encoding: the raw form (varints of
// at most 10 bytes, neighbour deltas of at most 5, 8 bytes a volume) plus
// zstd's worst case (a few bytes per 128 KiB block, here doubled) and the
// length prefix.
func payloadBound(rec hwdetect.Record, degree int) int64 {
	raw := int64(1 + 3*10 + len(rec.Host) + len(rec.BootID) + len(rec.Switch) + 2*10 + 10 + 13*degree)
	return 2*raw + 4096
}

// compress frames b for the gather: its length, then b compressed.
func compress(b []byte) []byte {
	e, _ := codecs()
	return e.EncodeAll(b, binary.AppendUvarint(nil, uint64(len(b))))
}

// decompress reverses compress; the announced length may be at most
// maxRaw bytes: nothing larger is ever allocated.
func decompress(data []byte, maxRaw int) ([]byte, error) { return decompressTo(nil, data, maxRaw) }

// decompressTo is decompress into buf's memory when it is large enough:
// one buffer serves a loop over many ranks.
func decompressTo(buf, data []byte, maxRaw int) ([]byte, error) {
	raw, n := binary.Uvarint(data)
	if n <= 0 || raw > uint64(maxRaw) {
		return nil, fmt.Errorf("bad payload length")
	}
	if uint64(cap(buf)) < raw {
		buf = make([]byte, 0, raw)
	}
	_, d := codecs()
	b, err := d.DecodeAll(data[n:], buf[:0:raw])
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if uint64(len(b)) != raw {
		return nil, fmt.Errorf("payload of %d bytes, %d announced", len(b), raw)
	}
	return b, nil
}

// decodePayload reverses encodePayload; errors mean corruption. The
// encoding starts with the length of the decompressed payload, which may
// be at most maxRaw bytes: nothing larger is ever allocated.
func decodePayload(data []byte, maxRaw int) (payload, error) {
	var p payload
	b, err := decompress(data, maxRaw)
	if err != nil {
		return p, err
	}
	if len(b) == 0 || b[0] != payloadVersion {
		return p, fmt.Errorf("payload version mismatch (libraries of different versions?)")
	}
	b = b[1:]
	bad := fmt.Errorf("truncated payload")
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	sv := func() (int64, bool) {
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	str := func() (string, bool) {
		l, ok := uv()
		if !ok || l > uint64(len(b)) {
			return "", false
		}
		s := string(b[:l])
		b = b[l:]
		return s, true
	}
	var ok bool
	if p.Rec.Host, ok = str(); !ok {
		return p, bad
	}
	if p.Rec.BootID, ok = str(); !ok {
		return p, bad
	}
	if p.Rec.Switch, ok = str(); !ok {
		return p, bad
	}
	s, ok1 := sv()
	c, ok2 := sv()
	deg, ok3 := uv()
	if !ok1 || !ok2 || !ok3 || deg > uint64(len(b)) {
		return p, bad
	}
	p.Rec.Socket, p.Rec.Core = int(s), int(c)
	p.Neighbors = make([]int32, deg)
	prev := int64(0)
	for i := range p.Neighbors {
		d, ok := uv()
		if !ok || d > math.MaxInt32 {
			return p, bad
		}
		prev += int64(d)
		if prev > math.MaxInt32 {
			return p, bad
		}
		p.Neighbors[i] = int32(prev)
	}
	if uint64(len(b)) != 8*deg {
		return p, bad
	}
	p.Volumes = make([]float64, deg)
	for i := range p.Volumes {
		p.Volumes[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return p, nil
}
