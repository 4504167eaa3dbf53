package distmap

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// wholeMax is the number of vertices up to which Map maps a graph whole
// (coarsestSize: opt.Coarsest, or 2^17).
func wholeMax(opt Options) int64 {
	if opt.Coarsest > 0 {
		return opt.Coarsest
	}
	return 1 << 17
}

// ReadWhole reads a graph file that Map would map whole (at most 2^17
// vertices, or Options.Coarsest) on every rank of c, or returns nil (and
// no error) on every rank for a larger one, which ReadGraph reads in
// parts. Rank 0 reads the file's header: a graph to map whole is read by
// rank 0 alone, with gpumap map's reader (graph.ReadFile, errors as
// gpumap map gives them), and broadcast. Read in parts, gathered and
// built again, such a graph took as long as the mapping's lead over one
// process (finan512, 75k vertices, at P=2: read and gather 0.6 s of CPU,
// against 0.2 s for gpumap map's read). A header that cannot be read,
// or a compressed or irregular file, is left to ReadGraph (which says
// what is wrong with it), so that both paths report the same errors of
// the file as a whole. Collective; every rank returns the same error.
func ReadWhole(c mpi.Comm, path string, opt Options) (*graph.Graph, error) {
	defer func() { abortOnPanic(c, recover()) }()
	_, _, _, _, rank := mpi.Inspect(c)
	small := []int64{0}
	if rank == 0 {
		if n, ok := headerN(path); ok && n >= 1 && n <= wholeMax(opt) {
			small[0] = 1
		}
	}
	if err := mpi.BcastOf(c, small, 0); err != nil {
		return nil, err
	}
	if small[0] == 0 {
		return nil, nil
	}
	var g *graph.Graph
	var err error
	if rank == 0 {
		g, err = graph.ReadFile(path)
	}
	if err := agree(c, err); err != nil {
		return nil, err
	}
	return bcastGraph(c, g, rank)
}

// headerN returns the vertex count in the header of the graph file at
// path: ok is false where the header cannot be read, or the file is
// compressed or no regular file.
func headerN(path string) (n int64, ok bool) {
	if isBinary(path) {
		f, n, _, err := openBinary(path)
		if f != nil {
			f.Close()
		}
		return n, err == nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	var magic [4]byte
	if m, _ := f.ReadAt(magic[:], 0); compressed(magic[:m]) {
		return 0, false
	}
	// The first line that is no comment; a file that has none in its
	// first MiB (comments) is left to ReadGraph.
	r := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10)
	for line := int64(1); ; line++ {
		ln, err := r.ReadSlice('\n')
		if err != nil && err != io.EOF {
			return 0, false
		}
		if ln = bytes.TrimRight(ln, "\r\n"); len(ln) > 0 && !graph.IsMETISComment(ln) {
			h, e := graph.ParseMETISHeader(ln, line)
			return h.N, e == nil
		}
		if err == io.EOF {
			return 0, false
		}
	}
}

// bcastGraph returns rank 0's graph g on every rank (collective).
func bcastGraph(c mpi.Comm, g *graph.Graph, rank int) (*graph.Graph, error) {
	// n, 2m, and the edge weights' kind: 0 none (every weight 1), 1
	// narrow, 2 wide.
	hdr := []int64{0, 0, 0}
	if rank == 0 {
		hdr[0], hdr[1] = int64(g.N()), int64(len(g.Adj))
		switch w32, w64 := g.Weights(); {
		case w32 != nil:
			hdr[2] = 1
		case w64 != nil:
			hdr[2] = 2
		}
	}
	if err := mpi.BcastOf(c, hdr, 0); err != nil {
		return nil, err
	}
	// Wide weights are received here and stored after (SetEdgeWeights
	// keeps rank 0's values wide, as it did there).
	var wide []int64
	if rank != 0 {
		g = &graph.Graph{XAdj: make([]int64, hdr[0]+1), Adj: make([]int32, hdr[1]), VW: make([]int64, hdr[0])}
		switch hdr[2] {
		case 1:
			g.SetNarrowWeights(make([]int32, hdr[1]))
		case 2:
			wide = make([]int64, hdr[1])
		}
	}
	if err := mpi.BcastOf(c, g.XAdj, 0); err != nil {
		return nil, err
	}
	if err := mpi.BcastOf(c, g.Adj, 0); err != nil {
		return nil, err
	}
	if err := mpi.BcastOf(c, g.VW, 0); err != nil {
		return nil, err
	}
	w32, w64 := g.Weights()
	if w32 != nil {
		if err := mpi.BcastOf(c, w32, 0); err != nil {
			return nil, err
		}
	}
	if rank == 0 {
		wide = w64
	}
	if wide != nil {
		if err := mpi.BcastOf(c, wide, 0); err != nil {
			return nil, err
		}
		if rank != 0 {
			g.SetEdgeWeights(wide)
		}
	}
	return g, nil
}
