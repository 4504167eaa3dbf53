//go:build !mpich

package gompi_test

import (
	"os"
	"testing"
)

// TestMain lets the example start OpenMPI as a singleton (no mpirun)
// where the tests run as root, as make test does in CI.
func TestMain(m *testing.M) {
	if os.Geteuid() == 0 {
		os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
		os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	}
	os.Exit(m.Run())
}
