package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkTopoCartCreate: the cost of MPI_Cart_create (reorder = 1) at 16
// ranks on one node, as tests/testdata/topo_bench.c sees it: through the
// interposer, the first call of a pattern (after a warm-up call of another
// pattern that loads libgpumap.so) and the median of 20 repeats of it
// (served by the mapping cache), and the MPI library's own call (no
// interposer, median of 20). Both stacks; make bench-topo runs it once.
// Metrics: first_ms, repeat_ms, mpi_ms and the ratios repeat/first and
// first/mpi.
func BenchmarkTopoCartCreate(b *testing.B) {
	for _, s := range topoStacks {
		if _, err := os.Stat(filepath.Join(root, s.bin, "topo_bench")); err != nil {
			b.Skipf("%s is missing: make testprogs (and MPI=mpich)", filepath.Join(s.bin, "topo_bench"))
		}
	}
	for _, s := range topoStacks {
		b.Run(s.name, func(b *testing.B) {
			var first, repeat, own float64
			for i := 0; i < b.N; i++ {
				f, r, _ := topoBench(b, s, true)
				_, o, _ := topoBench(b, s, false)
				first, repeat, own = first+f, repeat+r, own+o
			}
			n := float64(b.N)
			b.ReportMetric(first/n, "first_ms")
			b.ReportMetric(repeat/n, "repeat_ms")
			b.ReportMetric(own/n, "mpi_ms")
			b.ReportMetric(repeat/first, "repeat/first")
			b.ReportMetric(first/own, "first/mpi")
		})
	}
}

// topoBench runs topo_bench on 16 processes and returns its first call,
// the median of its repeats and their minimum, in ms.
func topoBench(b *testing.B, s topoStack, preload bool) (first, median, least float64) {
	b.Helper()
	prog := filepath.Join(root, s.bin, "topo_bench")
	var name string
	var args []string
	env := [][2]string{}
	if preload {
		env = append(env, [2]string{"LD_PRELOAD", filepath.Join(root, s.lib, "libgpumap_topo.so")})
	}
	if s.name == "openmpi" {
		name = "mpirun.openmpi"
		args = append(append(args, openmpiFlags...), "-np", "16")
		for _, e := range env {
			args = append(args, "-x", e[0]+"="+e[1])
		}
	} else {
		name = "mpiexec.mpich"
		args = []string{"-n", "16"}
		for _, e := range env {
			args = append(args, "-genv", e[0], e[1])
		}
	}
	args = append(args, prog, "20")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 9 && f[0] == "BENCH" {
			first, _ = strconv.ParseFloat(f[2], 64)
			median, _ = strconv.ParseFloat(f[4], 64)
			least, _ = strconv.ParseFloat(f[6], 64)
			return
		}
	}
	b.Fatalf("no BENCH line:\n%s", out)
	return
}
