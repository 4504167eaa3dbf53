package mpirank

import "math"

// gatherOnRoot collects every rank's data on rank 0 of d: the sizes with
// one MPI_Gather, then the bytes with one MPI_Gatherv. On rank 0, rank r's
// data is all[displs[r] : displs[r]+sizes[r]]; elsewhere all three are
// nil. Collective: every rank returns the same error, the 2 GiB limit of
// MPI's int counts included (rank 0 broadcasts the verdict).
func gatherOnRoot(d Comm, data []byte, rank, size int) (all []byte, sizes, displs []int32, e *Error) {
	return gatherFitting(d, data, rank, size, false)
}

// gatherFitting is gatherOnRoot where every rank may already know that the
// data of all ranks fits in 2 GiB (fits, the same on every rank): rank 0
// then need not broadcast its verdict, one collective fewer.
func gatherFitting(d Comm, data []byte, rank, size int, fits bool) (all []byte, sizes, displs []int32, e *Error) {
	if rank == 0 {
		sizes = make([]int32, size)
	}
	n := int32(len(data))
	if len(data) > math.MaxInt32 {
		n = -1 // too large: rank 0 says so
	}
	if err := gatherInt(d, n, sizes, 0); err != nil {
		return nil, nil, nil, errorf(ErrMPI, "%v", err)
	}
	flag := []byte{0}
	if rank == 0 {
		displs = make([]int32, size)
		total := int64(0)
		for r, s := range sizes {
			displs[r] = int32(min(total, math.MaxInt32))
			if s < 0 {
				total = math.MaxInt32 + 1
			}
			total += int64(max(s, 0))
		}
		if total > math.MaxInt32 {
			flag[0] = 1
		} else {
			all = make([]byte, total)
		}
	}
	if fits {
		flag[0] = 0
	} else if err := bcast(d, flag, 0); err != nil {
		return nil, nil, nil, errorf(ErrMPI, "%v", err)
	}
	if flag[0] == 1 {
		return nil, nil, nil, errorf(ErrArgument, "the patterns of all ranks exceed 2 GiB even compressed")
	}
	if err := gatherv(d, data, all, sizes, displs, 0); err != nil {
		return nil, nil, nil, errorf(ErrMPI, "%v", err)
	}
	return all, sizes, displs, nil
}
