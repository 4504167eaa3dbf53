// Package tests holds gpumap's integration tests: mpirun tests of the C
// and Fortran ABI on one node and on a two-node cluster made of network
// and UTS namespaces (tests/cluster/cluster.sh), with OpenMPI and MPICH.
//
// They need the test programs built by "make testprogs" (sources in
// tests/testdata) and run only with GPUMAP_MPI_TESTS=1, which "make test"
// sets; the two-node tests also need root. Every mpirun runs under a
// timeout, so a hang fails the test instead of stalling CI.
package tests
