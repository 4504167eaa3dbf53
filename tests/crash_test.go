package tests

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A program that dies of a signal in a test (issue 8: two rare SIGSEGVs at
// exit under OpenMPI, never reproduced by hand) must leave something to
// debug. When the kernel writes cores to an absolute directory
// (/proc/sys/kernel/core_pattern), the tests lift their core size limit,
// which mpirun and every rank inherit, and a run that dies of a signal
// gets the new cores' paths and, where gdb is installed, their backtraces
// appended to its output. With a relative pattern ("core") nothing
// changes: cores would land in the checkout.
var coreDir = func() string {
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	p := strings.TrimSpace(string(b))
	if err != nil || !strings.HasPrefix(p, "/") {
		return ""
	}
	dir := filepath.Dir(p)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CORE, &lim) != nil {
		return ""
	}
	lim.Cur = lim.Max
	if lim.Cur == 0 || syscall.Setrlimit(syscall.RLIMIT_CORE, &lim) != nil {
		return ""
	}
	return dir
}()

// killedBySignal matches what mpirun, OpenMPI's handler, MPICH and
// os/exec say about a process that died of a signal.
var killedBySignal = regexp.MustCompile(`exited on signal|Process received signal|signal: |killed by signal|Segmentation fault|core dumped`)

// crashReport returns the cores written since start with their
// backtraces (gdb on the first program of args that lies in the
// checkout, else on the core alone), or "" when there are none.
func crashReport(start time.Time, out string, err error, name string, args []string) string {
	if coreDir == "" || err == nil || !killedBySignal.MatchString(out+err.Error()) {
		return ""
	}
	entries, _ := os.ReadDir(coreDir)
	var cores []string
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && !info.ModTime().Before(start.Add(-time.Second)) {
			cores = append(cores, filepath.Join(coreDir, e.Name()))
		}
	}
	if len(cores) == 0 {
		return ""
	}
	// The program of a core that names no absolute path: the first of the
	// run's programs in the checkout.
	guess := ""
	for _, a := range append([]string{name}, args...) {
		if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 && strings.HasPrefix(a, root) {
			guess = a
			break
		}
	}
	var b strings.Builder
	gdb, gdbErr := exec.LookPath("gdb")
	for i, c := range cores {
		fmt.Fprintf(&b, "\n[crash report: core %s]\n", c)
		if gdbErr != nil || i >= 3 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		a := []string{"-batch", "-nx", "-ex", "info threads", "-ex", "thread apply all bt 40"}
		exe := coreProgram(c)
		if exe == "" {
			exe = guess
		}
		if exe != "" {
			a = append(a, exe)
		}
		bt, _ := exec.CommandContext(ctx, gdb, append(a, "-c", c)...).CombinedOutput()
		cancel()
		for _, l := range strings.Split(string(bt), "\n") {
			if !strings.HasPrefix(l, "[New LWP") && !strings.HasPrefix(l, "warning: ") && strings.TrimSpace(l) != "" {
				b.WriteString(l + "\n")
			}
		}
	}
	if gdbErr != nil {
		b.WriteString("[crash report: gdb is not installed; no backtraces]\n")
	}
	return b.String()
}

// coreProgram returns the program a core was dumped from, read from its
// NT_PRPSINFO note (the command line's first word, looked up in PATH when
// it has no slash), or "" when that fails.
func coreProgram(core string) string {
	f, err := elf.Open(core)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data, err := io.ReadAll(p.Open())
		for err == nil && len(data) >= 12 {
			nsz, dsz, typ := binary.LittleEndian.Uint32(data), binary.LittleEndian.Uint32(data[4:]), binary.LittleEndian.Uint32(data[8:])
			off := 12 + (int(nsz)+3)&^3
			end := off + (int(dsz)+3)&^3
			if end > len(data) || off+int(dsz) > len(data) {
				break
			}
			// x86-64 elf_prpsinfo: pr_psargs[80] at offset 56
			if typ == 3 && dsz >= 136 {
				args := string(data[off+56 : off+136])
				if i := strings.IndexByte(args, 0); i >= 0 {
					args = args[:i]
				}
				if w := strings.Fields(args); len(w) > 0 {
					if filepath.IsAbs(w[0]) {
						return w[0]
					}
					if !strings.Contains(w[0], "/") {
						if p, err := exec.LookPath(w[0]); err == nil {
							return p
						}
					}
				}
				return ""
			}
			data = data[end:]
		}
	}
	return ""
}

// TestCrashReport: a program that dies of SIGSEGV leaves a core, and its
// run's output names it (with a backtrace where gdb is installed).
func TestCrashReport(t *testing.T) {
	if coreDir == "" {
		t.Skip("core_pattern is not an absolute path: no cores to report")
	}
	out, err := run(t, time.Minute, nil, "sh", "-c", "echo pid $$; kill -SEGV $$")
	if err == nil {
		t.Fatalf("sh survived SIGSEGV:\n%s", out)
	}
	pid := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(out)
	cores := regexp.MustCompile(`\[crash report: core (\S+)\]`).FindAllStringSubmatch(out, -1)
	if pid == nil || len(cores) == 0 {
		t.Fatalf("%v: no core reported:\n%s", err, out)
	}
	for _, c := range cores { // ours only: other programs may crash meanwhile
		if regexp.MustCompile(`\b` + pid[1] + `\b`).MatchString(filepath.Base(c[1])) {
			os.Remove(c[1])
		}
	}
	t.Log(out)
	if _, gdbErr := exec.LookPath("gdb"); gdbErr == nil && !strings.Contains(out, "#0 ") {
		t.Errorf("gdb is installed but no backtrace was reported:\n%s", out)
	}
}
