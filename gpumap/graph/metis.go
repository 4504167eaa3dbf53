package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

type metisParser struct {
	data []byte
	pos  int
	line int
}

// nextLine returns the next line that is not a comment, and false at EOF.
func (p *metisParser) nextLine() ([]byte, bool) {
	for p.pos < len(p.data) {
		end := bytes.IndexByte(p.data[p.pos:], '\n')
		var ln []byte
		if end < 0 {
			ln = p.data[p.pos:]
			p.pos = len(p.data)
		} else {
			ln = p.data[p.pos : p.pos+end]
			p.pos += end + 1
		}
		p.line++
		if len(ln) > 0 && ln[len(ln)-1] == '\r' {
			ln = ln[:len(ln)-1]
		}
		if isComment(ln) {
			continue
		}
		return ln, true
	}
	return nil, false
}

func isComment(ln []byte) bool {
	for _, c := range ln {
		switch c {
		case ' ', '\t':
			continue
		case '%':
			return true
		default:
			return false
		}
	}
	return false
}

// nextInt scans the next integer of ln from *i. ok is false at the end of
// the line; err reports a token that is not an integer.
func nextInt(ln []byte, i *int) (v int64, ok bool, err error) {
	j := *i
	for j < len(ln) && (ln[j] == ' ' || ln[j] == '\t') {
		j++
	}
	if j == len(ln) {
		*i = j
		return 0, false, nil
	}
	start := j
	neg := false
	if ln[j] == '-' || ln[j] == '+' {
		neg = ln[j] == '-'
		j++
	}
	digits := 0
	for j < len(ln) && ln[j] >= '0' && ln[j] <= '9' {
		d := int64(ln[j] - '0')
		if v > (math.MaxInt64-d)/10 {
			return 0, false, fmt.Errorf("number %q is too large", tokenAt(ln, start))
		}
		v = v*10 + d
		j++
		digits++
	}
	if digits == 0 || (j < len(ln) && ln[j] != ' ' && ln[j] != '\t') {
		return 0, false, fmt.Errorf("%q is not an integer", tokenAt(ln, start))
	}
	*i = j
	if neg {
		v = -v
	}
	return v, true, nil
}

func tokenAt(ln []byte, start int) string {
	end := start
	for end < len(ln) && ln[end] != ' ' && ln[end] != '\t' {
		end++
	}
	if end-start > 40 {
		end = start + 40
	}
	return string(ln[start:end])
}

// header is the first line of a METIS file.
type header struct {
	n, m                  int64
	hasSize, hasVW, hasEW bool
}

// parseHeader parses "n m [fmt [ncon]]" (line hline of the file), n at
// most MaxVertices (one process's ids are int32).
func parseHeader(hdr []byte, hline int) (header, error) {
	return parseHeaderUpTo(hdr, hline, MaxVertices)
}

// parseHeaderUpTo is parseHeader with n at most maxN.
func parseHeaderUpTo(hdr []byte, hline int, maxN int64) (header, error) {
	var h header
	var fields []int64
	var fmtTok string
	for i := 0; ; {
		for i < len(hdr) && (hdr[i] == ' ' || hdr[i] == '\t') {
			i++
		}
		if i == len(hdr) {
			break
		}
		if len(fields) == 2 {
			fmtTok = tokenAt(hdr, i)
		}
		v, ok, err := nextInt(hdr, &i)
		if err != nil {
			return h, fmt.Errorf("line %d: bad header: %v", hline, err)
		}
		if !ok {
			break
		}
		fields = append(fields, v)
	}
	if len(fields) < 2 || len(fields) > 4 {
		return h, fmt.Errorf("line %d: bad header: want \"n m [fmt [ncon]]\", found %d fields", hline, len(fields))
	}
	h.n, h.m = fields[0], fields[1]
	if h.n < 0 || h.m < 0 {
		return h, fmt.Errorf("line %d: bad header: negative vertex or edge count (n=%d, m=%d)", hline, h.n, h.m)
	}
	if h.n > maxN && maxN == MaxVertices {
		return h, fmt.Errorf("line %d: bad header: n=%d exceeds the 32-bit vertex limit", hline, h.n)
	}
	if h.n > maxN {
		return h, fmt.Errorf("line %d: bad header: n=%d exceeds %d vertices", hline, h.n, maxN)
	}
	if len(fields) >= 3 {
		if len(fmtTok) > 3 || fmtTok != "" && fmtTok[0] == '-' {
			return h, fmt.Errorf("line %d: bad header: fmt %q must be up to three binary digits", hline, fmtTok)
		}
		f := strings.Repeat("0", 3-len(fmtTok)) + fmtTok
		for _, c := range f {
			if c != '0' && c != '1' {
				return h, fmt.Errorf("line %d: bad header: fmt %q must be up to three binary digits", hline, fmtTok)
			}
		}
		h.hasSize, h.hasVW, h.hasEW = f[0] == '1', f[1] == '1', f[2] == '1'
	}
	if len(fields) == 4 {
		ncon := fields[3]
		if ncon < 1 {
			return h, fmt.Errorf("line %d: bad header: ncon=%d must be positive", hline, ncon)
		}
		if ncon > 1 {
			return h, fmt.Errorf("line %d: bad header: ncon=%d: multi-constraint vertex weights are not supported", hline, ncon)
		}
	}
	return h, nil
}

// ParseMETIS parses METIS text held in memory (see ReadMETIS).
func ParseMETIS(data []byte) (*Graph, error) {
	p := &metisParser{data: data}
	hdr, ok := p.nextLine()
	if !ok {
		return nil, fmt.Errorf("bad header: the file has no header line")
	}
	hline := p.line
	h, err := parseHeader(hdr, hline)
	if err != nil {
		return nil, err
	}
	n, m, hasEW := h.n, h.m, h.hasEW
	mh := METISHeader{N: n, M: m, HasSize: h.hasSize, HasVW: h.hasVW, HasEW: hasEW}
	// Every vertex needs a line: reject absurd counts before allocating.
	// A last line without its newline counts; the newline ending the
	// file starts none (counting one there said 40001 lines follow of a
	// 40000-line file).
	rest := data[p.pos:]
	lines := int64(bytes.Count(rest, []byte{'\n'}))
	if len(rest) > 0 && rest[len(rest)-1] != '\n' {
		lines++
	}
	if n > lines {
		return nil, fmt.Errorf("line %d: bad header: n=%d vertices but only %d lines follow", hline, n, lines)
	}
	if m > int64(len(data)) {
		return nil, fmt.Errorf("line %d: bad header: m=%d edges cannot fit in a %d-byte file", hline, m, len(data))
	}
	// Large inputs are parsed and checked in parallel; anything unusual
	// comes back here, where errors name their line.
	if g := parseParallel(data[p.pos:], h); g != nil {
		return g, nil
	}
	g := &Graph{XAdj: make([]int64, n+1), VW: make([]int64, n)}
	// Every neighbour entry takes at least two bytes of the file.
	entries := min(2*m, int64(len(data))/2+1)
	g.Adj = make([]int32, 0, entries)
	var ew []int64
	if hasEW {
		ew = make([]int64, 0, entries)
	}
	lineOf := make([]int32, n)
	for v := int64(0); v < n; v++ {
		ln, ok := p.nextLine()
		if !ok {
			return nil, fmt.Errorf("line %d: file ends after %d of %d vertex lines", p.line, v, n)
		}
		lineOf[v] = int32(min(p.line, math.MaxInt32))
		vw, err := ParseMETISVertex(ln, mh, v, int64(p.line), func(u, w int64) error {
			if int64(len(g.Adj)) >= 2*m {
				return fmt.Errorf("line %d (vertex %d): more edges than the header's m=%d", p.line, v+1, m)
			}
			g.Adj = append(g.Adj, int32(u))
			if hasEW {
				ew = append(ew, w)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		g.VW[v] = vw
		g.XAdj[v+1] = int64(len(g.Adj))
	}
	for {
		ln, ok := p.nextLine()
		if !ok {
			break
		}
		if len(bytes.TrimSpace(ln)) != 0 {
			return nil, fmt.Errorf("line %d: more than the header's n=%d vertex lines", p.line, n)
		}
	}
	if got := int64(len(g.Adj)); got != 2*m {
		return nil, fmt.Errorf("line %d: bad header: m=%d edges, but the vertex lines list %d neighbour entries (want 2m=%d)",
			hline, m, got, 2*m)
	}
	if hasEW {
		g.SetEdgeWeights(ew)
	}
	where := func(v int32) string { return fmt.Sprintf("line %d (vertex %d)", lineOf[v], v+1) }
	if err := checkAdjacency(g, where, 1); err != nil {
		return nil, err
	}
	if err := CheckWeights(g, where); err != nil {
		return nil, err
	}
	return g, nil
}

// WriteMETIS writes g in METIS format, with the fmt field set to carry the
// vertex and edge weights only when some weight differs from 1.
func WriteMETIS(w io.Writer, g *Graph) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	unitV, unitE := g.UnitWeights()
	fmt.Fprintf(bw, "%d %d", g.N(), g.M())
	switch {
	case !unitV && !unitE:
		bw.WriteString(" 11")
	case !unitV:
		bw.WriteString(" 10")
	case !unitE:
		bw.WriteString(" 1")
	}
	bw.WriteByte('\n')
	var buf []byte
	for v := 0; v < g.N(); v++ {
		buf = buf[:0]
		sep := false
		if !unitV {
			buf = strconv.AppendInt(buf, g.VW[v], 10)
			sep = true
		}
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if sep {
				buf = append(buf, ' ')
			}
			sep = true
			buf = strconv.AppendInt(buf, int64(g.Adj[e])+1, 10)
			if !unitE {
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, g.W(e), 10)
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
