// Package mpitest runs a Go test under mpirun: the test binary starts
// itself on np ranks (OpenMPI), with ChildEnv set so that the test knows
// it is one of the ranks. For the tests of packages that call MPI.
package mpitest

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// ChildEnv is set in the ranks' environment.
const ChildEnv = "GPUMAP_MPI_CHILD"

// Child reports whether this process is one of the ranks.
func Child() bool { return os.Getenv(ChildEnv) != "" }

// Run runs this test binary's test named test on np ranks and returns
// their output; it skips unless GPUMAP_MPI_TESTS=1 and fails on a
// non-zero exit or after a minute (a hang).
func Run(t *testing.T, np int, test string) string {
	t.Helper()
	if os.Getenv("GPUMAP_MPI_TESTS") != "1" {
		t.Skip("mpirun tests run with GPUMAP_MPI_TESTS=1 (make test sets it)")
	}
	cmd := exec.Command("mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
		"--mca", "pml", "ob1", "--mca", "btl", "self,vader,tcp", "-x", ChildEnv+"=1",
		"-np", strconv.Itoa(np), os.Args[0], "-test.run", "^"+test+"$", "-test.count=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mpirun -np %d: %v\n%s", np, err, out.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mpirun -np %d timed out (a hang)\n%s", np, out.String())
	}
	return out.String()
}
