// Package mpirank reorders the ranks of an MPI communicator so that ranks
// that communicate much sit close together in the machine.
//
// Reorder is collective over a communicator handed in from C or Fortran
// (as a Fortran handle, MPI_Comm_c2f, which is portable across MPI
// implementations). Every rank passes its communication pattern: the ranks
// it sends to and how many bytes. The steps:
//
//  1. Agreement: local checks (degree, neighbour range, self neighbours,
//     negative or NaN volumes, options, the GPUMAP_* environment read
//     through C getenv); rank 0 broadcasts the canonical form of its call
//     (Reorder or Cost), options and environment (a fixed 1 KiB), every
//     rank compares it byte by byte with its own, and one MPI_Allreduce
//     tells all ranks whether some rank failed or differs. The lowest such
//     rank broadcasts its message, so every rank returns the same status.
//  2. Each rank locates itself (hwdetect: host, boot id, socket, core),
//     encodes its record and pattern compactly (varint deltas, float64
//     volumes), compresses them with zstd (prefixed by the decompressed
//     length, which bounds what rank 0 allocates) and MPI_Gatherv's them
//     to rank 0.
//  3. Rank 0 merges the patterns into a task graph, infers the machine,
//     and maps tasks one-to-one onto processes with gpumap (or only
//     computes the cost: Cost, GPUMAP_DISABLE); any failure, panics
//     included, becomes a status. The new order is kept only when it
//     lowers J by at least MinGain.
//  4. MPI_Bcast of a fixed header (status, costs, ranks moved, machine),
//     then MPI_Scatter of each rank's new rank (4 bytes per rank, not the
//     permutation) and MPI_Comm_split with it as key; MPI_Comm_dup when
//     the order is kept.
//
// Merge rule: with PatternSend (default) volumes are bytes sent, and the
// task graph's edge {a,b} carries vol(a->b) + vol(b->a). With
// PatternExchange each rank reports the bytes it exchanges with a
// neighbour (a halo swap), both sides must report the same value, and the
// edge carries it once; a one-sided or mismatched report is an error.
//
// Integer edge weights give the largest volume 2^24, fewer when the sum
// of weights times the largest distance would pass 2^62; distances above
// 2^20 are scaled down in proportion for the mapper (the parser takes up
// to 2^40). Costs are reported from the doubles and the real distances,
// and a cost beyond the largest double is an ErrVolume.
//
// All internal communication runs on a private copy of the caller's
// communicator (MPI_Comm_split, so none of its attribute callbacks run)
// with MPI_ERRORS_RETURN; the caller's communicator is only used for
// MPI_Comm_split and is left as it was. MPI is
// called only from the calling goroutine (the thread that entered from C).
package mpirank
