package distmap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// ReadMETIS reads a METIS text file in parallel: each of the size ranks of
// c reads only the lines that start in its 1/size of the file's bytes, so
// the vertices are spread by the bytes of their lines (about by edges).
// Collective; every rank returns the same error, which names the file
// and its line as gpumap map does.
//
// The rank's text is read three times in blocks (lines, then tokens,
// then the values), never whole: held whole it took as much memory as
// the rank's part of the graph.
func ReadMETIS(c mpi.Comm, path string) (_ *Graph, err error) {
	if err := unusable(c); err != nil {
		return nil, err
	}
	defer func() { abortOnPanic(c, recover()) }()
	// The file's name, where the error does not give it already (the
	// opening's and the reads' do): the parsing's and check's named
	// only the line, as ReadBinary's and the whole read's do not.
	defer func() {
		if err != nil && !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	_, _, _, size, rank := mpi.Inspect(c)
	f, start, end, err := openRange(path, rank, size)
	if f != nil {
		defer f.Close()
	}
	buf := make([]byte, readBlock)
	if err := agree(c, err); err != nil {
		return nil, err
	}
	if start, end, buf, err = balanceLines(c, f, start, end, buf); err != nil {
		return nil, err
	}
	// The lines of this rank, and its first that is no comment (the
	// header, if this rank holds it). The same pass sums the lines'
	// tokens for the arrays' sizes below, for every number of tokens a
	// vertex and an edge may take (the header says which): a pass of its
	// own was a fifth of the reader's passes over the text.
	var nlines, kept, firstAt int64
	var first []byte
	var firstTokens int64
	var perTokens [3][2]int64 // [tokens a vertex][tokens an edge - 1]
	addTokens := func(t, lines int64) {
		for pv := range perTokens {
			for pe := range perTokens[pv] {
				perTokens[pv][pe] += lines * (max(t-int64(pv), 0) / int64(pe+1))
			}
		}
	}
	// The lines of fewer than len(few) tokens by their count, added up
	// once after the pass: the six divisions a line cost as much as
	// counting its tokens.
	var few [64]int64
	if err == nil {
		buf, err = eachLineAt(f, start, end, buf, func(i int64, ln []byte) {
			nlines++
			if graph.IsMETISComment(ln) {
				return
			}
			t := tokens(ln)
			switch {
			case kept == 0:
				first, firstAt, firstTokens = slices.Clone(ln), i, t
			case t < int64(len(few)):
				few[t]++
			default:
				addTokens(t, 1)
			}
			kept++
		})
	}
	for t, lines := range few {
		addTokens(int64(t), lines)
	}
	if err := agree(c, err); err != nil {
		return nil, err
	}
	// eachText visits the lines again; a read that fails now (the file
	// changed) is agreed on below.
	var readErr error
	eachText := func(fn func(i int64, ln []byte)) {
		if readErr == nil {
			buf, readErr = eachLineAt(f, start, end, buf, fn)
		}
	}
	before, err := mpi.Scan(c, []int64{nlines, kept}, mpi.Sum, true)
	if err != nil {
		return nil, err
	}
	line0, index0 := before[0]+1, before[1] // 1-based line, 0-based non-comment index
	// The header is the first line that is no comment: its rank sends it.
	flag := int64(size)
	if kept > 0 && index0 == 0 {
		flag = int64(rank)
	}
	holder, _, err := mpi.MinLoc(c, flag)
	if err != nil {
		return nil, err
	}
	if holder == int64(size) {
		return nil, agree(c, errors.New("bad header: the file has no header line"))
	}
	var hdr []byte
	hline := []int64{0, 0}
	if holder == int64(rank) {
		hdr, hline = first, []int64{int64(len(first)), line0 + firstAt}
	}
	if err := mpi.BcastOf(c, hline, int(holder)); err != nil {
		return nil, err
	}
	if holder != int64(rank) {
		hdr = make([]byte, hline[0])
	}
	if err := mpi.Bcast(c, hdr, int(holder)); err != nil {
		return nil, err
	}
	h, err := graph.ParseMETISHeader(hdr, hline[1])
	if err != nil {
		return nil, agree(c, err)
	}
	total, err := sumAll(c, kept)
	if err != nil {
		return nil, err
	}
	// Vertex v is the non-comment line of index v+1.
	// This rank holds the vertices vlo..vhi-1.
	vlo, vhi := min(max(index0-1, 0), h.N), min(max(index0+kept-1, 0), h.N)
	// The arrays are sized exactly (they are the largest of the reader):
	// every token of a vertex line is a neighbour, a weight or a size.
	perVertex, perEdge := int64(0), int64(1)
	if h.HasSize {
		perVertex++
	}
	if h.HasVW {
		perVertex++
	}
	if h.HasEW {
		perEdge++
	}
	// The first line counts unless it is the header; lines past the
	// n-th vertex count too (blank, or an error below).
	entries := perTokens[perVertex][perEdge-1]
	if index0 > 0 {
		entries += max(firstTokens-perVertex, 0) / perEdge
	}
	idx := index0
	entries = min(entries, 2*h.M)
	adj := make([]int64, 0, entries)
	var w []int64
	if h.HasEW {
		w = make([]int64, 0, entries)
	}
	xadj, vw := make([]int64, 1, vhi-vlo+1), make([]int64, 0, vhi-vlo)
	idx = index0
	err = nil
	eachText(func(i int64, ln []byte) {
		if err != nil || graph.IsMETISComment(ln) {
			return
		}
		lineNo := line0 + i
		switch v := idx - 1; {
		case v < 0:
		case v >= h.N:
			if len(bytes.TrimSpace(ln)) != 0 {
				err = fmt.Errorf("line %d: more than the header's n=%d vertex lines", lineNo, h.N)
			}
		default:
			x, e := graph.ParseMETISVertex(ln, h, v, lineNo, func(u, wt int64) error {
				adj = append(adj, u)
				if h.HasEW {
					w = append(w, wt)
				}
				return nil
			})
			if e != nil {
				err = e
			}
			vw = append(vw, x)
			xadj = append(xadj, int64(len(adj)))
		}
		idx++
	})
	buf = nil
	if err == nil {
		err = readErr
	}
	if err == nil && total[0]-1 < h.N && rank == size-1 {
		err = fmt.Errorf("line %d: file ends after %d of %d vertex lines", line0+nlines-1, max(total[0]-1, 0), h.N)
	}
	if err := agree(c, err); err != nil {
		return nil, err
	}
	arcs, err := sumAll(c, int64(len(adj)))
	if err != nil {
		return nil, err
	}
	if arcs[0] != 2*h.M {
		return nil, fmt.Errorf("line %d: bad header: m=%d edges, but the vertex lines list %d neighbour entries (want 2m=%d)",
			hline[1], h.M, arcs[0], 2*h.M)
	}
	his, err := mpi.Allgather(c, []int64{vhi}, size)
	if err != nil {
		return nil, err
	}
	vtxdist := append([]int64{0}, his...)
	g, err := build(c, vtxdist, xadj, adj, w, vw)
	if err != nil {
		return nil, err
	}
	g.base = 1
	if err := check(g); err != nil {
		return nil, err
	}
	return g, nil
}

// readBlock is the size of the reader's block of text.
const readBlock = 4 << 20

// eachLineAt calls fn with every line of bytes [start, end) of f (without
// its '\n' or "\r\n"; a last line without '\n' too) and its index,
// reading them in blocks into buf, which grows to hold a longer line; it
// returns buf for the next pass. fn's line is valid during the call
// only.
func eachLineAt(f *os.File, start, end int64, buf []byte, fn func(i int64, ln []byte)) ([]byte, error) {
	return eachLineOff(f, start, end, buf, func(i, _ int64, ln []byte) { fn(i, ln) })
}

// eachLineOff is eachLineAt that also passes each line's byte offset.
func eachLineOff(f *os.File, start, end int64, buf []byte, fn func(i, off int64, ln []byte)) ([]byte, error) {
	var i int64
	carry := 0 // the start of an unfinished line, moved to buf's start
	for pos := start; pos < end; {
		if carry == len(buf) {
			buf = append(buf, make([]byte, max(len(buf), 64))...)
		}
		k := int(min(int64(len(buf)-carry), end-pos))
		if _, err := f.ReadAt(buf[carry:carry+k], pos); err != nil {
			if err == io.EOF {
				return buf, fmt.Errorf("%s: the file ended early (was it changed while read?)", f.Name())
			}
			return buf, fmt.Errorf("%s: %w", f.Name(), err)
		}
		off := pos - int64(carry) // of data[0]
		pos += int64(k)
		data := buf[:carry+k]
		for {
			j := bytes.IndexByte(data, '\n')
			if j < 0 {
				break
			}
			fn(i, off, trimCR(data[:j]))
			i++
			data = data[j+1:]
			off += int64(j + 1)
		}
		if pos == end && len(data) > 0 {
			fn(i, off, trimCR(data))
			break
		}
		carry = copy(buf, data)
	}
	return buf, nil
}

// trimCR drops a last '\r' (bytes.TrimSuffix's comparison was 5% of
// the reader's CPU on NE).
func trimCR(ln []byte) []byte {
	if n := len(ln); n > 0 && ln[n-1] == '\r' {
		return ln[:n-1]
	}
	return ln
}

// tokens counts the blank-separated tokens of ln.
func tokens(ln []byte) int64 {
	var k int64
	in := false
	for _, b := range ln {
		blank := b == ' ' || b == '\t'
		if !blank && !in {
			k++
		}
		in = !blank
	}
	return k
}

// balanceLines moves the ranks' ranges [start, end) (consecutive, whole
// lines) so that each holds about the same number of lines plus tokens,
// about vertices plus neighbours as the binary reader splits: bytes alone
// gave the first rank of a numbered graph, whose first lines hold shorter
// ids, the most edges (10% more than the others on a 2^22 rgg at P=4,
// and the largest peak memory). Rank r's new range starts at the first
// line whose preceding lines and tokens reach r/size of the total.
// Collective; every rank returns the same error.
//
// One pass counts the work and marks every markEvery-th line (its offset
// and the work before it); a cut is then found by reading only the lines
// between the two marks around it. A second pass over the whole range
// for the cuts took a fifth of the reader's passes over the text.
func balanceLines(c mpi.Comm, f *os.File, start, end int64, buf []byte) (int64, int64, []byte, error) {
	_, _, _, size, rank := mpi.Inspect(c)
	type mark struct{ off, work int64 }
	var marks []mark
	var work, lines int64
	buf, err := eachLineOff(f, start, end, buf, func(_, off int64, ln []byte) {
		if lines%markEvery == 0 {
			marks = append(marks, mark{off, work})
		}
		lines++
		work += 1 + tokens(ln)
	})
	if err := agree(c, err); err != nil {
		return 0, 0, buf, err
	}
	before, err := mpi.Scan(c, []int64{work}, mpi.Sum, true)
	if err != nil {
		return 0, 0, buf, err
	}
	total, err := sumAll(c, work)
	if err != nil {
		return 0, 0, buf, err
	}
	// cut[r]: the offset of this rank's first line with at least
	// r/size of the work before it; the least over the ranks is the
	// first in the file. The last rank's range ends at the file's end.
	last := []int64{end}
	if err := mpi.Allreduce(c, last, mpi.Max); err != nil {
		return 0, 0, buf, err
	}
	cut := make([]int64, size+1)
	for r := range cut {
		cut[r] = last[0]
	}
	cut[0] = 0
	for r := 1; r < size && err == nil; r++ {
		target := evenSplit(total[0], r, size) - before[0] // in this range's work
		// The first mark at or past the target; the cut lies on it or
		// among the lines after the mark before it.
		i := sort.Search(len(marks), func(i int) bool { return marks[i].work >= target })
		switch {
		case i == 0 && len(marks) > 0:
			cut[r] = marks[0].off
			continue
		case i == 0: // no lines
			continue
		}
		to, found := end, false
		if i < len(marks) {
			to = marks[i].off
		}
		p := marks[i-1].work
		buf, err = eachLineOff(f, marks[i-1].off, to, buf, func(_, off int64, ln []byte) {
			if !found && p >= target {
				cut[r], found = off, true
			}
			p += 1 + tokens(ln)
		})
		if !found && i < len(marks) {
			cut[r] = marks[i].off
		}
	}
	if err := agree(c, err); err != nil {
		return 0, 0, buf, err
	}
	if err := mpi.Allreduce(c, cut, mpi.Min); err != nil {
		return 0, 0, buf, err
	}
	return cut[rank], cut[rank+1], buf, nil
}

// markEvery is how many lines apart balanceLines marks a line.
const markEvery = 64

// openRange opens path and returns the bytes [start, end) of the lines
// that start in bytes [size*rank/size, size*(rank+1)/size) of it: a line
// belongs to the rank whose range holds its first byte. The file is
// returned when it opened, also with an error.
func openRange(path string, rank, size int) (f *os.File, start, end int64, err error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, 0, 0, err
	}
	n := st.Size()
	var magic [4]byte
	if m, _ := f.ReadAt(magic[:], 0); compressed(magic[:m]) {
		return f, 0, 0, fmt.Errorf("%s: compressed input: gpumap-mpi reads plain METIS text (decompress it first)", path)
	}
	start, err = lineStart(f, n, n/int64(size)*int64(rank)+n%int64(size)*int64(rank)/int64(size))
	if err != nil {
		return f, 0, 0, err
	}
	end, err = lineStart(f, n, n/int64(size)*int64(rank+1)+n%int64(size)*int64(rank+1)/int64(size))
	return f, start, end, err
}

// lineStart returns the first line start at or after x (a line starts at
// 0 and after every '\n'); n when there is none.
func lineStart(f *os.File, n, x int64) (int64, error) {
	if x <= 0 || x >= n {
		return min(max(x, 0), n), nil
	}
	buf := make([]byte, 64<<10)
	for pos := x - 1; pos < n; pos += int64(len(buf)) {
		m, err := f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:m], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if m == 0 {
			break
		}
	}
	return n, nil
}
