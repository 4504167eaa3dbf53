package graph

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ParHIP's binary graph format (KaHIP's graph2binary, file name ending
// in .bgf), which a distributed reader can read in pieces: each process
// finds its vertices' neighbours by their offsets, without scanning the
// file. All words are little-endian uint64:
//
//	BinaryVersion, n, 2m        the header (m undirected edges, stored twice)
//	o_0, o_1, ..., o_n          byte offsets from the file's start: the
//	                            neighbours of vertex v are words [o_v, o_{v+1})
//	neighbours                  2m ids in 0..n-1, vertex by vertex
//
// So o_0 = 8(3+n+1) and o_n = 8(3+n+1+2m) is the file's size. The format
// has no weights: every vertex and edge weighs 1.
const (
	BinaryVersion     = 3
	BinaryHeaderWords = 3
)

// BinarySize is the size in bytes of a binary graph file with n vertices
// and arcs stored neighbours (2m), for n, arcs < 2^59.
func BinarySize(n, arcs int64) int64 { return 8 * (BinaryHeaderWords + n + 1 + arcs) }

// ErrWeighted is returned by WriteBinary for a graph with weights other
// than 1.
var ErrWeighted = errors.New("the binary graph format has no weights, and this graph has vertex or edge weights other than 1")

// WriteBinary writes g in ParHIP's binary graph format. It refuses a
// graph with weights other than 1 (ErrWeighted) rather than drop them:
// the written graph would be another mapping problem (other loads, other
// J) under the same name.
func WriteBinary(w io.Writer, g *Graph) error {
	if vw, ew := g.UnitWeights(); !vw || !ew {
		return ErrWeighted
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var word [8]byte
	put := func(x int64) {
		binary.LittleEndian.PutUint64(word[:], uint64(x))
		bw.Write(word[:]) // a bufio.Writer keeps its first error for Flush
	}
	n := int64(g.N())
	put(BinaryVersion)
	put(n)
	put(g.DirectedEdges())
	start := BinarySize(n, 0)
	for _, x := range g.XAdj {
		put(start + 8*x)
	}
	for _, u := range g.Adj {
		put(int64(u))
	}
	return bw.Flush()
}

// IsBinary reports whether a graph file named name whose first bytes are
// head is in the binary format: its name ends in .bgf, or its first 8
// bytes hold a NUL byte, which no METIS text has (the version word of
// the binary header has seven) and which compressed input is checked for
// first (a gzip header has one).
func IsBinary(name string, head []byte) bool {
	if strings.HasSuffix(name, ".bgf") {
		return true
	}
	head = head[:min(len(head), 8)]
	if bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, zstdMagic) ||
		bytes.HasPrefix(head, xzMagic[:4]) || bytes.HasPrefix(head, bzip2Magic) {
		return false
	}
	return bytes.IndexByte(head, 0) >= 0
}

// isBinaryFile applies IsBinary to a regular file (a pipe is not read
// ahead: its bytes would be lost to the METIS reader).
func isBinaryFile(path string) bool {
	if strings.HasSuffix(path, ".bgf") {
		return true
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [8]byte
	m, _ := io.ReadFull(f, head[:])
	return IsBinary(path, head[:m])
}

// ReadBinaryFile reads a whole graph in the binary format (one process;
// gpumap-mpi's ranks read their parts with distmap.ReadBinary). Errors
// name the file and count vertices from 0, as the file does.
func ReadBinaryFile(path string) (*Graph, error) {
	g, err := readBinary(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

func readBinary(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var word [8]byte
	next := func() (uint64, error) {
		if _, err := io.ReadFull(br, word[:]); err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(word[:]), nil
	}
	var hdr [BinaryHeaderWords]uint64
	for i := range hdr {
		if hdr[i], err = next(); err != nil {
			return nil, fmt.Errorf("a binary graph of %d bytes is shorter than its %d-byte header", st.Size(), 8*BinaryHeaderWords)
		}
	}
	version, un, arcs := hdr[0], hdr[1], hdr[2]
	switch {
	case version != BinaryVersion:
		return nil, fmt.Errorf("binary graph version %d, but gpumap reads version %d (ParHIP's, as KaHIP's graph2binary writes)", version, BinaryVersion)
	case un < 1 || un > MaxVertices:
		return nil, fmt.Errorf("bad header: n=%d vertices: want 1 to %d", un, int64(MaxVertices))
	case arcs > MaxCSREdges:
		return nil, fmt.Errorf("bad header: m=%d stored edges exceed the limit %d", arcs, int64(MaxCSREdges))
	}
	n := int64(un)
	if want := BinarySize(n, int64(arcs)); st.Mode().IsRegular() && st.Size() != want {
		return nil, fmt.Errorf("the file has %d bytes, but its header says %d (n=%d, m=%d)", st.Size(), want, n, arcs)
	}
	start := uint64(BinarySize(n, 0))
	xadj := make([]int64, n+1)
	for v := range xadj {
		o, err := next()
		switch {
		case err != nil:
			return nil, errors.New("the file ends inside the offsets")
		case o < start || o > start+8*arcs || (o-start)%8 != 0:
			return nil, fmt.Errorf("vertex %d: offset %d is not a word of the neighbour section [%d, %d]", v, o, start, start+8*arcs)
		case v == 0 && o != start, v == int(n) && o != start+8*arcs:
			return nil, fmt.Errorf("vertex %d: offset %d, but the neighbours span bytes [%d, %d]", v, o, start, start+8*arcs)
		}
		xadj[v] = int64(o-start) / 8
		if v > 0 && xadj[v] < xadj[v-1] {
			return nil, fmt.Errorf("vertex %d: offset %d is below vertex %d's (the offsets must not decrease)", v, o, v-1)
		}
	}
	adj := make([]int32, arcs)
	for i := range adj {
		u, err := next()
		switch {
		case err != nil:
			return nil, errors.New("the file ends inside the neighbours")
		case u >= un:
			return nil, fmt.Errorf("neighbour entry %d: vertex %d is out of range [0,%d)", i, u, n)
		}
		adj[i] = int32(u)
	}
	vw := make([]int64, n)
	for i := range vw {
		vw[i] = 1
	}
	g := &Graph{XAdj: xadj, Adj: adj, VW: vw}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}
