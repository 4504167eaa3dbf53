package distmap

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"github.com/gpumap/gpumap/mpirank/mpi"
)

// SameFile hashes sameFileBlocks blocks of sameFileBlock bytes, spread
// evenly over the file: the whole of a file below 1 MiB, and of a larger
// one its head, its tail and 14 blocks between, where comparing the head
// alone let a file that differed only after its first 64 KiB through
// (exit 0, feasible=true printed for another graph's mapping: the review).
const (
	sameFileBlocks = 16
	sameFileBlock  = 64 << 10
)

// SameFile fails on every rank where the file at path, read in parts,
// differs on a rank from rank 0's in its size or in the blocks it hashes
// (one path on several nodes' own disks, or an MPMD launch naming
// another file per rank): each rank would read its part of another graph
// (collective; KindInconsistent, naming the lowest such rank). Paths are
// not compared: a relative and an absolute path, or a link, may name the
// same file. A rank other than 0 that cannot open or read the file
// where rank 0 can fails the same way, naming itself and its error (the
// reader's error named neither the rank nor that rank 0 had the file);
// where rank 0 cannot, the reader says why. A graph mapped whole is rank
// 0's on every rank (WholeRead.Finish), so this is for the parts only.
func SameFile(c mpi.Comm, path string) error {
	if err := unusable(c); err != nil {
		return err
	}
	_, _, _, _, rank := mpi.Inspect(c)
	mine := []int64{-1, 0}
	f, st, err := openRegular(path)
	if err == nil {
		var sum uint64
		if sum, err = sampleHash(f, st.Size()); err == nil {
			mine = []int64{st.Size(), int64(sum)}
		}
		f.Close()
	}
	root := append([]int64(nil), mine...)
	if err := mpi.BcastOf(c, root, 0); err != nil {
		return err
	}
	var bad error
	switch {
	case root[0] < 0:
	case mine[0] < 0:
		bad = &Error{KindInconsistent, fmt.Sprintf("rank %d: %v, but rank 0 read it: every rank must read the same file", rank, err)}
	case mine[0] != root[0]:
		bad = &Error{KindInconsistent, fmt.Sprintf("rank %d: graph file %s has %d bytes, rank 0's %d: every rank must read the same file", rank, path, mine[0], root[0])}
	case mine[1] != root[1]:
		bad = &Error{KindInconsistent, fmt.Sprintf("rank %d: graph file %s differs from rank 0's: every rank must read the same file", rank, path)}
	}
	return agree(c, bad)
}

// sampleHash hashes SameFile's blocks of f, of size bytes.
func sampleHash(f *os.File, size int64) (uint64, error) {
	h := fnv.New64a()
	buf := make([]byte, sameFileBlock)
	next := int64(0) // blocks overlap in a small file: each byte once
	for i := int64(0); i < sameFileBlocks; i++ {
		off := max(i*size/sameFileBlocks, next)
		end := min(off+sameFileBlock, size)
		if off >= end {
			continue
		}
		if _, err := f.ReadAt(buf[:end-off], off); err != nil && err != io.EOF {
			return 0, err
		}
		h.Write(buf[:end-off])
		next = end
	}
	return h.Sum64(), nil
}
