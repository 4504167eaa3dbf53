// Package tests holds gpumap's integration tests: mpirun tests of the C,
// C++ and Fortran ABI on one node and on a two-node cluster made of network
// and UTS namespaces (tests/cluster/cluster.sh), with OpenMPI and MPICH.
//
// They need the test programs built by "make testprogs" (sources in
// tests/testdata) and run only with GPUMAP_MPI_TESTS=1, which "make test"
// sets; the two-node tests also need root.
//
// # Timeouts
//
// Every run has a cap (launchCap, clusterCap, clusterCmdCap in
// mpi_test.go) of at least five times the slowest run of its kind measured
// on a shared, loaded 2-core machine; GPUMAP_TEST_TIMES=1 logs each run's
// time to measure again. A run that reaches its cap is killed with its
// process group and fails as "timed out (a hang)": it hung (a deadlock,
// a rank waiting for one that died), it was not slow.
//
// # Skips
//
// In "make test" (after "make deps") none of the skips below triggers on a
// machine without a GPU, except the GPU tests' in the first pass, which
// "make emutest" runs again through the emulated driver, where they must
// not skip. Each skip and why it is allowed:
//
//   - tests: GPUMAP_MPI_TESTS is not 1 (a plain "go test ./..."): the
//     mpirun tests need the programs of "make testprogs".
//   - tests TestCrashReport: core_pattern pipes cores to a handler ("|...",
//     systemd-coredump or apport) or the core size limit cannot be raised:
//     there is no core to report. Debian's default ("core") runs it.
//   - hwdetect TestLocateWithFakeTopology: PU 1 cannot be bound (a single
//     PU, or a cpuset without it); any other failure fails.
//   - bench TestMeasureRSSIsTheChilds: GNU time is missing (make deps
//     installs the time package).
//   - cmd/gpumap output_test.go: no /proc/self/fd (not Linux).
//   - mpirank/record: the temporary directory cannot hold a FIFO.
//   - gpumap/backend/cuda, cuda/driver, gpumap gpuhm_test.go, cmd/gpumap
//     gpu_test.go and gpuhm_test.go (GPU-HM): no GPU and
//     GPUMAP_CUDA_LIB unset (with it set, a driver that does not open
//     fails); the emulator-only checks: a real driver; "a GPU is present"
//     (cuda TestOpenWithoutGPUSaysWhy, gpumap backend_test.go): the no-GPU
//     error cannot be produced where a GPU opens, the emulated one included.
//   - gpumap mapper_test.go, stencil_test.go: the 30^3 cases under -short
//     only ("make test" runs -short only in its -race pass).
//   - gpumap TestEvalGPUHM: GPUMAP_HM_EVAL unset (a measurement of J, not
//     a check).
//   - Benchmarks: graph (../shared/graphs missing) and cuda (no GPU); "make
//     test" runs no benchmark.
package tests
