// Package mpirank reorders the ranks of an MPI communicator so that ranks
// that communicate much sit close together in the machine.
//
// Reorder is collective over a communicator handed in from C or Fortran
// (as a Fortran handle, MPI_Comm_c2f, which is portable across MPI
// implementations). Every rank passes its communication pattern: the ranks
// it sends to and how many bytes. The steps:
//
//  1. Local checks (degree, neighbour range, self neighbours, negative or
//     NaN volumes, options) and one MPI_Allreduce, so every rank returns
//     the same status, with the message of the lowest failing rank.
//  2. Each rank locates itself (hwdetect: host, boot id, socket, core),
//     encodes its record and pattern compactly (varint deltas, float64
//     volumes), compresses them with zstd and MPI_Gatherv's them to rank 0.
//  3. Rank 0 merges the patterns into a task graph, infers the machine,
//     and maps tasks one-to-one onto processes with gpumap; any failure,
//     panics included, becomes a status.
//  4. MPI_Bcast of the status and the permutation; MPI_Comm_split with the
//     new rank as key builds the new communicator.
//
// Merge rule: with PatternSend (default) volumes are bytes sent, and the
// task graph's edge {a,b} carries vol(a->b) + vol(b->a). With
// PatternExchange each rank reports the bytes it exchanges with a
// neighbour (a halo swap), both sides must report the same value, and the
// edge carries it once; a one-sided or mismatched report is an error.
//
// All internal communication runs on a duplicate of the caller's
// communicator with MPI_ERRORS_RETURN; the caller's communicator is only
// used for MPI_Comm_dup and MPI_Comm_split and is left as it was. MPI is
// called only from the calling goroutine (the thread that entered from C).
package mpirank
