package mpirank

import (
	"fmt"
	"math"

	"github.com/gpumap/gpumap/mpirank/record"
)

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

// GatherPattern collects what every rank of c sent (recorded by
// libgpumap_record.so, mine being this rank's) on rank 0, which merges it
// into the pattern (record.BuildEncoded); the other ranks get nil. It is
// collective over c and runs on a private copy with MPI_ERRORS_RETURN;
// mine.Host is set to this process's processor name. Rank 0 never holds
// the decoded records of all ranks: patternOnRoot streams them into the
// graph.
func GatherPattern(c Comm, mine record.Rank, program string) (*record.Pattern, error) {
	if !Ready() {
		return nil, fmt.Errorf("MPI is not initialized or already finalized")
	}
	isNull, invalid, inter, size, rank := inspect(c)
	if isNull || invalid || inter {
		return nil, fmt.Errorf("the communicator is MPI_COMM_NULL, no communicator or an inter-communicator")
	}
	d, err := dup(c, true)
	if err != nil {
		return nil, err
	}
	defer Free(d)
	mine.Host = ProcessorName()
	raw, err := record.EncodeRank(mine)
	// Every rank takes part in the gather even when its own record is
	// bad (an empty one stands in), so no rank is left waiting.
	if err != nil {
		raw = nil
	}
	all, sizes, displs, e := gatherOnRoot(d, compress(raw), rank, size)
	if e != nil {
		return nil, e
	}
	if err != nil {
		return nil, fmt.Errorf("rank %d: %v", rank, err)
	}
	if rank != 0 {
		return nil, nil
	}
	return patternOnRoot(all, sizes, displs, program)
}

// patternOnRoot is rank 0's part of GatherPattern, without MPI: rank r's
// compressed record is all[displs[r]:][:sizes[r]]. Each record is
// decompressed into one reused buffer, twice (record.BuildEncoded reads
// them twice), so that the memory is the pattern's CSR and one record.
func patternOnRoot(all []byte, sizes, displs []int32, program string) (*record.Pattern, error) {
	// A rank's record: its host, a few counts, and per peer at most 5
	// bytes of rank delta and 10 each of bytes and messages.
	maxRaw := 1<<16 + 25*len(sizes)
	var buf []byte
	return record.BuildEncoded(len(sizes), program, func(r int) ([]byte, error) {
		b, err := decompressTo(buf, all[displs[r]:displs[r]+sizes[r]], maxRaw)
		if err == nil && cap(b) > cap(buf) {
			buf = b
		}
		return b, err
	})
}
