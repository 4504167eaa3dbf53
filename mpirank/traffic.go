package mpirank

import (
	"fmt"

	"github.com/gpumap/gpumap/mpirank/record"
)

// GatherTraffic collects what every rank of c sent (recorded by
// libgpumap_record.so) on rank 0, compressed like Reorder's patterns. It is
// collective over c and runs on a private copy with MPI_ERRORS_RETURN. Rank 0
// gets one record.Rank per rank of c, the others nil; mine.Host is set to
// this process's processor name.
func GatherTraffic(c Comm, mine record.Rank) ([]record.Rank, error) {
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
	// A rank's record: its host, a few counts, and per peer at most 5
	// bytes of rank delta and 10 each of bytes and messages.
	maxRaw := 1<<16 + 25*size
	ranks := make([]record.Rank, size)
	for r := range ranks {
		b, err := decompress(all[displs[r]:displs[r]+sizes[r]], maxRaw)
		if err == nil {
			ranks[r], err = record.DecodeRank(b)
		}
		if err != nil {
			return nil, fmt.Errorf("traffic of rank %d: %v", r, err)
		}
	}
	return ranks, nil
}
