// Package gompi reorders the ranks of a Go MPI program written with
// github.com/sbromberger/gompi (pinned at v0.2.0): Reorder is
// gpumap_reorder for MPI_COMM_WORLD, and its result is a gompi
// communicator whose rank i is the process placed for task i.
//
//	func init() { runtime.LockOSThread() } // MPI from the main thread only
//
//	mpi.Start(false)
//	defer mpi.Stop()
//	comm, res, err := gompi.Reorder(neighbours, bytes, gompi.DefaultOptions())
//	if err != nil { ... }      // the same error on every rank
//	task := comm.Rank()        // this process now plays task comm.Rank()
//
// Reorder is collective over MPI_COMM_WORLD and calls mpirank.Reorder, so
// its validation, agreement and errors are those of the C call: every rank
// returns the same *mpirank.Error (Code is gpumap.h's status), and the
// GPUMAP_* environment variables act as they do for C programs. The
// reordered communicator is gompi's mpi.NewCommunicator(perm), where
// perm[i] is the world rank that plays task i (MPI_Group_incl in that
// order); gompi v0.2.0 has no way to free it.
//
// Build tags: none. gompi v0.2.0 links OpenMPI unconditionally (its
// flags.go names Debian's OpenMPI include and library directories,
// /usr/lib/x86_64-linux-gnu/openmpi), and so does this package by default
// (pkg-config ompi-c, like mpirank). The mpich tag, which builds mpirank
// and libgpumap for MPICH, is refused here at compile time: a program
// would load both MPI libraries. The C library does not depend on this
// package or on gompi.
//
// MPI is called from the calling goroutine only; a program keeps its main
// goroutine on the thread that called MPI_Init with runtime.LockOSThread
// in an init function (the Go runtime otherwise moves goroutines between
// threads, which MPI_THREAD_SINGLE and FUNNELED forbid).
package gompi
