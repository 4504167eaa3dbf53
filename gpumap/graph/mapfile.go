package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// WriteMapping writes one PE id per line in vertex order (the convention of
// KaHIP, SharedMap and GPU-HeiPa).
func WriteMapping(w io.Writer, pe []int32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	for _, p := range pe {
		buf = strconv.AppendInt(buf[:0], int64(p), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadMapping reads a mapping file for n vertices and k PEs: n lines with
// one integer in [0,k) each ('%' comment lines and trailing blank lines are
// ignored).
func ReadMapping(r io.Reader, n, k int) ([]int32, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	pe := make([]int32, 0, n)
	line := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var ln []byte
		if i < 0 {
			ln, data = data, nil
		} else {
			ln, data = data[:i], data[i+1:]
		}
		line++
		ln = bytes.TrimSpace(ln)
		if len(ln) == 0 || ln[0] == '%' {
			continue
		}
		if len(pe) == n {
			return nil, fmt.Errorf("line %d: more than %d entries (the graph has %d vertices)", line, n, n)
		}
		v, err := strconv.ParseInt(string(ln), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q is not a PE id", line, ln)
		}
		if v < 0 || v >= int64(k) {
			return nil, fmt.Errorf("line %d: PE %d is outside [0,%d)", line, v, k)
		}
		pe = append(pe, int32(v))
	}
	if len(pe) != n {
		return nil, fmt.Errorf("mapping has %d entries, the graph has %d vertices", len(pe), n)
	}
	return pe, nil
}
