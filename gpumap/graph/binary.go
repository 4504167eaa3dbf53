package graph

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
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
