package distmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// ReadGraph reads a graph file in parallel (collective; every rank
// returns the same error): ParHIP's binary format (ReadBinary) when
// graph.IsBinary says so (the name ends in .bgf, or the first 8 bytes
// hold a NUL byte, which no METIS text has), METIS text (ReadMETIS)
// otherwise. Rank 0 decides, so that all ranks take the same reader.
// Every rank's file must be rank 0's in size and in the blocks SameFile
// compares, where it opens.
func ReadGraph(c mpi.Comm, path string) (*Graph, error) {
	if err := unusable(c); err != nil {
		return nil, err
	}
	defer func() { abortOnPanic(c, recover()) }()
	if err := SameFile(c, path); err != nil {
		return nil, err
	}
	_, _, _, _, rank := mpi.Inspect(c)
	kind := []int64{0}
	if rank == 0 && isBinary(path) {
		kind[0] = 1
	}
	if err := mpi.BcastOf(c, kind, 0); err != nil {
		return nil, err
	}
	if kind[0] == 1 {
		return ReadBinary(c, path)
	}
	return ReadMETIS(c, path)
}

// openRegular opens the graph file at path to read it in parts: a
// regular file only, checked before the open too, which blocks on a FIFO
// until a writer comes (gpumap-mpi hung there: every rank opens the
// path, and a pipe's bytes would reach one of them only).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	notRegular := fmt.Errorf("%s: not a regular file (the ranks read their parts of it at offsets)", path)
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, notRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = notRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// isBinary reports whether path names a binary graph (graph.IsBinary).
// A file that cannot be read is left to the METIS reader to report.
func isBinary(path string) bool {
	f, _, err := openRegular(path)
	if err != nil {
		return graph.IsBinary(path, nil)
	}
	defer f.Close()
	var head [8]byte
	m, _ := f.ReadAt(head[:], 0)
	return graph.IsBinary(path, head[:m])
}

// compressed reports whether a file starting with head is gzip or zstd.
func compressed(head []byte) bool {
	return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b ||
		len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd})
}

// binaryMax bounds n and 2m of a binary graph, so that every byte offset
// (8 (3 + n + 1 + 2m)) fits in an int64.
const binaryMax = 1 << 58

// ReadBinary reads a graph in ParHIP's binary format (graph.WriteBinary)
// in parallel: each rank reads the header, finds where its vertices
// start by a binary search over the offsets (so that every rank gets
// about (n + 2m)/size vertices and neighbours), and reads only their
// offsets and neighbours. Vertex ids in its errors count from 0, as the
// file's do. Collective; every rank returns the same error.
func ReadBinary(c mpi.Comm, path string) (*Graph, error) {
	if err := unusable(c); err != nil {
		return nil, err
	}
	defer func() { abortOnPanic(c, recover()) }()
	_, _, _, size, rank := mpi.Inspect(c)
	f, n, arcs, err := openBinary(path)
	if f != nil {
		defer f.Close()
	}
	if err := agree(c, err); err != nil {
		return nil, err
	}
	// The first vertex of this rank; the last rank's range ends at n.
	first, err := splitBinary(f, n, arcs, rank, size)
	if err := agree(c, err); err != nil {
		return nil, err
	}
	firsts, err := mpi.Allgather(c, []int64{first}, size)
	if err != nil {
		return nil, err
	}
	vtxdist := append(firsts, n)
	for r := range size {
		if vtxdist[r] > vtxdist[r+1] {
			// Offsets out of order: split by vertex count, and the
			// checks of the parts below name the bad offset.
			for r := range size {
				vtxdist[r] = evenSplit(n, r, size)
			}
			break
		}
	}
	lo, hi := vtxdist[rank], vtxdist[rank+1]
	xadj, adj, err := readBinaryPart(f, n, arcs, lo, hi)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	if err := agree(c, err); err != nil {
		return nil, err
	}
	vw := make([]int64, hi-lo)
	for i := range vw {
		vw[i] = 1
	}
	g, err := build(c, vtxdist, xadj, adj, nil, vw)
	if err != nil {
		return nil, err
	}
	if err := check(g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// openBinary opens a binary graph and checks its header against its
// size; it returns the file, n and 2m.
func openBinary(path string) (*os.File, int64, int64, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, 0, 0, err
	}
	var hdr [8 * graph.BinaryHeaderWords]byte
	m, err := f.ReadAt(hdr[:], 0)
	if compressed(hdr[:m]) {
		return f, 0, 0, fmt.Errorf("%s: compressed input: gpumap-mpi reads a plain binary graph (decompress it first)", path)
	}
	if m < len(hdr) {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("%s: a binary graph of %d bytes is shorter than its %d-byte header", path, m, len(hdr))
		}
		return f, 0, 0, err
	}
	version := binary.LittleEndian.Uint64(hdr[0:])
	un := binary.LittleEndian.Uint64(hdr[8:])
	um := binary.LittleEndian.Uint64(hdr[16:])
	switch {
	case version != graph.BinaryVersion:
		return f, 0, 0, fmt.Errorf("%s: binary graph version %d, but gpumap reads version %d (ParHIP's, as KaHIP's graph2binary writes)", path, version, graph.BinaryVersion)
	case un > binaryMax || um > binaryMax:
		return f, 0, 0, fmt.Errorf("%s: bad header: n=%d, m=%d: more than 2^58", path, un, um)
	case um%2 != 0:
		return f, 0, 0, fmt.Errorf("%s: bad header: m=%d stored edges is odd (every edge is stored at both ends)", path, um)
	}
	n, arcs := int64(un), int64(um)
	switch want := graph.BinarySize(n, arcs); {
	case st.Size() < want:
		return f, 0, 0, fmt.Errorf("%s: the file has %d bytes, shorter than the %d its header says (n=%d, m=%d)", path, st.Size(), want, n, arcs)
	case st.Size() > want:
		return f, 0, 0, fmt.Errorf("%s: the file has %d bytes, longer than the %d its header says (n=%d, m=%d)", path, st.Size(), want, n, arcs)
	}
	return f, n, arcs, nil
}

// evenSplit returns rank*total/size without overflow.
func evenSplit(total int64, rank, size int) int64 {
	hi, lo := bits.Mul64(uint64(rank), uint64(total))
	q, _ := bits.Div64(hi, lo, uint64(size))
	return int64(q)
}

// splitBinary returns the first vertex of rank of size: the first v
// with v + (the neighbours before v) >= rank (n + 2m) / size, found by a
// binary search that reads one offset per step. Offsets outside the
// neighbour section are clamped to it here; readBinaryPart reports them.
func splitBinary(f *os.File, n, arcs int64, rank, size int) (int64, error) {
	target := evenSplit(n+arcs, rank, size)
	start := graph.BinarySize(n, 0)
	var word [8]byte
	// sort.Search with reads: the key v + arcs before v grows with v.
	a, b := int64(0), n
	for a < b {
		v := a + (b-a)/2
		if _, err := f.ReadAt(word[:], 8*(graph.BinaryHeaderWords+v)); err != nil {
			return 0, err
		}
		o := min(max(binary.LittleEndian.Uint64(word[:]), uint64(start)), uint64(start+8*arcs))
		if v+(int64(o)-start)/8 >= target {
			b = v
		} else {
			a = v + 1
		}
	}
	return a, nil
}

// readBinaryPart reads the offsets and neighbours of the vertices
// [lo, hi) and checks them: offsets in order and inside the neighbour
// section (the first at its start, the last at the file's end), each
// neighbour a vertex id other than its own.
func readBinaryPart(f *os.File, n, arcs, lo, hi int64) (xadj, adj []int64, err error) {
	start := graph.BinarySize(n, 0)
	end := start + 8*arcs
	xadj = make([]int64, hi-lo+1)
	buf := make([]byte, 1<<20)
	// read fills out[i] with the words from byte pos on.
	read := func(pos int64, out []int64, each func(i int, x uint64) error) error {
		for i := 0; i < len(out); {
			k := min(len(out)-i, len(buf)/8)
			if _, err := f.ReadAt(buf[:8*k], pos+8*int64(i)); err != nil {
				if err == io.EOF {
					return errors.New("the file ended early (was it changed while read?)")
				}
				return err
			}
			for j := range k {
				if err := each(i+j, binary.LittleEndian.Uint64(buf[8*j:])); err != nil {
					return err
				}
			}
			i += k
		}
		return nil
	}
	err = read(8*(graph.BinaryHeaderWords+lo), xadj, func(i int, x uint64) error {
		v, o := lo+int64(i), int64(x)
		switch {
		case x > uint64(end) || o < start || (o-start)%8 != 0:
			return fmt.Errorf("vertex %d: offset %d is not a word of the neighbour section [%d, %d]", v, x, start, end)
		case v == 0 && o != start:
			return fmt.Errorf("vertex 0: offset %d, but the neighbours start at byte %d", o, start)
		case v == n && o != end:
			return fmt.Errorf("the last offset is %d, but the neighbours end at byte %d (the file's end)", o, end)
		case i > 0 && (o-start)/8 < xadj[i-1]:
			return fmt.Errorf("vertex %d: offset %d is below vertex %d's (the offsets must not decrease)", v, o, v-1)
		}
		xadj[i] = (o - start) / 8
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	first := xadj[0]
	for i := range xadj {
		xadj[i] -= first
	}
	adj = make([]int64, xadj[len(xadj)-1])
	v := lo
	err = read(start+8*first, adj, func(i int, x uint64) error {
		for int64(i) >= xadj[v-lo+1] {
			v++
		}
		switch {
		case x >= uint64(n):
			return fmt.Errorf("vertex %d: neighbour %d is out of range [0,%d)", v, x, n)
		case int64(x) == v:
			return fmt.Errorf("vertex %d: self loop", v)
		}
		adj[i] = int64(x)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return xadj, adj, nil
}
