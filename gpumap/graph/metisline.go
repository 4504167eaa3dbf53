package graph

import "fmt"

// The line-level METIS grammar, shared by ParseMETIS and the distributed
// reader (distmap), which parses each process's byte range of a file on
// its own.

// METISHeader is a METIS file's header: n vertices, m undirected edges,
// and which optional fields the vertex lines carry.
type METISHeader struct {
	N, M                  int64
	HasSize, HasVW, HasEW bool
}

// ParseMETISHeader parses a header line; line numbers the errors. It is
// the distributed readers' (gpumap-mpi): n may pass MaxVertices, up to
// 2^61 (their ids are int64, as in their binary reader and vtxdist);
// the gpumap-mpi reader refused n > 2^31-1 before.
func ParseMETISHeader(ln []byte, line int64) (METISHeader, error) {
	h, err := parseHeaderUpTo(ln, int(line), 1<<61)
	return METISHeader{N: h.n, M: h.m, HasSize: h.hasSize, HasVW: h.hasVW, HasEW: h.hasEW}, err
}

// IsMETISComment reports whether a line is a comment (a '%' after blanks).
func IsMETISComment(ln []byte) bool { return isComment(ln) }

// ParseMETISVertex parses the line of vertex v (0-based) of a file with
// header h, found at line: it returns the vertex weight and calls edge
// with every neighbour (0-based) and edge weight, in the line's order.
// Errors name the line and the vertex (1-based, as the file does); an
// error of edge is returned as it is.
func ParseMETISVertex(ln []byte, h METISHeader, v, line int64, edge func(u, w int64) error) (int64, error) {
	i := 0
	get := func(what string) (int64, bool, error) {
		x, ok, err := nextInt(ln, &i)
		if err != nil {
			return 0, false, fmt.Errorf("line %d (vertex %d): %s: %v", line, v+1, what, err)
		}
		return x, ok, nil
	}
	if h.HasSize {
		s, ok, err := get("vertex size")
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("line %d (vertex %d): missing vertex size", line, v+1)
		}
		if s < 0 {
			return 0, fmt.Errorf("line %d (vertex %d): negative vertex size %d", line, v+1, s)
		}
	}
	vw := int64(1)
	if h.HasVW {
		w, ok, err := get("vertex weight")
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("line %d (vertex %d): missing vertex weight", line, v+1)
		}
		if w < 0 {
			return 0, fmt.Errorf("line %d (vertex %d): negative vertex weight %d", line, v+1, w)
		}
		vw = w
	}
	for {
		u, ok, err := get("neighbour")
		if err != nil {
			return 0, err
		}
		if !ok {
			return vw, nil
		}
		if u < 1 || u > h.N {
			return 0, fmt.Errorf("line %d (vertex %d): neighbour %d is out of range [1,%d]", line, v+1, u, h.N)
		}
		if u == v+1 {
			return 0, fmt.Errorf("line %d (vertex %d): self loop", line, v+1)
		}
		w := int64(1)
		if h.HasEW {
			w, ok, err = get("edge weight")
			if err != nil {
				return 0, err
			}
			if !ok {
				return 0, fmt.Errorf("line %d (vertex %d): neighbour %d has no edge weight", line, v+1, u)
			}
			if w < 0 {
				return 0, fmt.Errorf("line %d (vertex %d): edge to %d has negative weight %d", line, v+1, u, w)
			}
		}
		if err := edge(u-1, w); err != nil {
			return 0, err
		}
	}
}
