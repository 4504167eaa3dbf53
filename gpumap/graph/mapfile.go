package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/gpumap/gpumap/gpumap/internal/par"
)

// WriteMapping writes one PE id per line in vertex order (the convention of
// KaHIP, SharedMap and GPU-HeiPa). Pieces of the mapping are formatted by
// all threads and written in order.
func WriteMapping(w io.Writer, pe []int32) error {
	x := par.New(0)
	pieces := (len(pe) + writePiece - 1) / writePiece
	bufs := make([][]byte, x.Workers(pieces))
	for lo := 0; lo < pieces; lo += len(bufs) {
		hi := min(lo+len(bufs), pieces)
		x.Each(hi-lo, func(_, i int) {
			b := bufs[i][:0]
			for _, p := range pe[(lo+i)*writePiece : min((lo+i+1)*writePiece, len(pe))] {
				b = strconv.AppendInt(b, int64(p), 10)
				b = append(b, '\n')
			}
			bufs[i] = b
		})
		for _, b := range bufs[:hi-lo] {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// writePiece is the number of vertices WriteMapping formats at once.
const writePiece = 1 << 16

// ReadMapping reads a mapping file for n vertices and k PEs: n lines with
// one integer in [0,k) each ('%' comment lines and trailing blank lines are
// ignored). It reads line by line and stops at binary data or beyond
// 64 MiB + 32 bytes per vertex, so /dev/zero or an endless stream is an
// error, not a hang.
func ReadMapping(r io.Reader, n, k int) ([]int32, error) {
	limit := int64(64<<20) + 32*int64(n)
	br := bufio.NewReaderSize(r, 1<<16)
	pe := make([]int32, 0, n)
	line := 0
	var read int64
	for {
		ln, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, br.Size())
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(ln) == 0 && err == io.EOF {
			break
		}
		read += int64(len(ln))
		line++
		if bytes.IndexByte(ln, 0) >= 0 {
			return nil, fmt.Errorf("line %d: binary data (a NUL byte), not a mapping file", line)
		}
		if read > limit {
			return nil, fmt.Errorf("line %d: the file exceeds %d bytes, far more than %d entries need", line, limit, n)
		}
		ln = bytes.TrimSpace(ln)
		if len(ln) > 0 && ln[0] != '%' {
			if len(pe) == n {
				return nil, fmt.Errorf("line %d: more than %d entries (the graph has %d vertices)", line, n, n)
			}
			v, perr := strconv.ParseInt(string(ln), 10, 64)
			if perr != nil {
				return nil, fmt.Errorf("line %d: %q is not a PE id", line, truncateBytes(ln, 40))
			}
			if v < 0 || v >= int64(k) {
				return nil, fmt.Errorf("line %d: PE %d is outside [0,%d)", line, v, k)
			}
			pe = append(pe, int32(v))
		}
		if err == io.EOF {
			break
		}
	}
	if len(pe) != n {
		return nil, fmt.Errorf("mapping has %d entries, the graph has %d vertices", len(pe), n)
	}
	return pe, nil
}

func truncateBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
