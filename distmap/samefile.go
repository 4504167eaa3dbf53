package distmap

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// SamePath fails on every rank where a rank names another graph file
// than rank 0 (collective; KindInconsistent, naming the lowest such
// rank). An MPMD launch with a different -g per rank mapped each rank's
// own file as one graph: exit 0 and feasible=true printed for a mapping
// that was not, or a parse error about the other file (issue 24).
func SamePath(c mpi.Comm, path string) error {
	_, _, _, _, rank := mpi.Inspect(c)
	root := []byte(path)
	n := []int64{int64(len(root))}
	if err := mpi.BcastOf(c, n, 0); err != nil {
		return err
	}
	if rank != 0 {
		root = make([]byte, n[0])
	}
	if err := mpi.Bcast(c, root, 0); err != nil {
		return err
	}
	var bad error
	if string(root) != path {
		bad = &Error{KindInconsistent, fmt.Sprintf("rank %d: graph file %q differs from rank 0's %q: every rank must read the same graph", rank, path, root)}
	}
	return agree(c, bad)
}

// sameFileHead is how much of the file SameFile hashes.
const sameFileHead = 64 << 10

// SameFile fails on every rank where the file at path, read in parts,
// differs on a rank from rank 0's in its size or its first 64 KiB (one
// path on several nodes' own disks): each rank would read its part of
// another graph (collective; KindInconsistent, naming the lowest such
// rank). A rank that cannot open the file is not compared: the reader
// names it. A graph mapped whole is rank 0's on every rank
// (WholeRead.Finish), so this is for the parts only.
func SameFile(c mpi.Comm, path string) error {
	_, _, _, _, rank := mpi.Inspect(c)
	mine := []int64{-1, 0}
	if f, err := os.Open(path); err == nil {
		if st, err := f.Stat(); err == nil {
			h := fnv.New64a()
			if _, err := io.CopyN(h, f, sameFileHead); err == nil || err == io.EOF {
				mine = []int64{st.Size(), int64(h.Sum64())}
			}
		}
		f.Close()
	}
	root := append([]int64(nil), mine...)
	if err := mpi.BcastOf(c, root, 0); err != nil {
		return err
	}
	var bad error
	switch {
	case mine[0] < 0 || root[0] < 0:
	case mine[0] != root[0]:
		bad = &Error{KindInconsistent, fmt.Sprintf("rank %d: graph file %s has %d bytes, rank 0's %d: every rank must read the same file", rank, path, mine[0], root[0])}
	case mine[1] != root[1]:
		bad = &Error{KindInconsistent, fmt.Sprintf("rank %d: graph file %s differs from rank 0's in its first %d KiB: every rank must read the same file", rank, path, sameFileHead>>10)}
	}
	return agree(c, bad)
}
