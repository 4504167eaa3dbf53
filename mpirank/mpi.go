package mpirank

import "github.com/gpumap/gpumap/mpirank/mpi"

// The MPI calls live once, in package mpi (shared with the distributed
// mapper); these names keep mpirank's call sites as they were.

// Comm is an MPI communicator as a Fortran handle (MPI_Comm_c2f).
type Comm = mpi.Comm

// CommNull is MPI_COMM_NULL; it calls no MPI function, so it may be used
// before MPI_Init and after MPI_Finalize.
func CommNull() Comm { return mpi.CommNull() }

// Ready reports whether MPI is initialized and not finalized.
func Ready() bool { return mpi.Ready() }

// Free releases a communicator.
func Free(c Comm) error { return mpi.Free(c) }

// ProcessorName is MPI_Get_processor_name.
func ProcessorName() string { return mpi.ProcessorName() }

// Dup returns a communicator in c's order for a caller: c's group and
// error handler, none of its attributes or topology.
func Dup(c Comm) (Comm, error) { return mpi.Copy(c, false) }

func inspect(c Comm) (null, invalid, inter bool, size, rank int) { return mpi.Inspect(c) }

func dup(c Comm, quiet bool) (Comm, error) { return mpi.Copy(c, quiet) }

func allreduceMax(c Comm, v []int32) error { return mpi.Allreduce(c, v, mpi.Max) }

func gatherInt(c Comm, v int32, all []int32, root int) error {
	return mpi.Gather(c, []int32{v}, all, root)
}

func gatherv(c Comm, buf []byte, all []byte, counts, displs []int32, root int) error {
	return mpi.Gatherv(c, buf, all, counts, displs, root)
}

func scatterInt(c Comm, all []int32, v *int32, root int) error {
	return mpi.ScatterInt(c, all, v, root)
}

func bcast(c Comm, buf []byte, root int) error { return mpi.Bcast(c, buf, root) }

func split(c Comm, color, key int) (Comm, error) { return mpi.Split(c, color, key) }
