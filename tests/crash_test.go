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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A program that dies of a signal in a test (issue 8: two rare SIGSEGVs at
// exit under OpenMPI, never reproduced by hand) must leave something to
// debug. Unless the kernel pipes cores to a handler (a core_pattern of
// "|..."), the tests lift their core size limit, which mpirun and every
// rank inherit, and a run that dies of a signal gets the new cores' paths
// and, where gdb is installed (make deps installs it), their backtraces
// appended to its output. An absolute pattern puts the cores in its
// directory. A relative one (Debian's default, "core") puts them in the
// crashing process's working directory, the checkout for the programs
// run() starts: those are moved to tests/out/cores, out of the sources.
var cores = func() (c struct{ dir, prefix, moveTo string }) {
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	p := strings.TrimSpace(string(b))
	if err != nil || p == "" || strings.HasPrefix(p, "|") {
		return c
	}
	dir := filepath.Dir(p)
	if !filepath.IsAbs(p) {
		dir = filepath.Join(root, dir)
		c.moveTo = filepath.Join(root, "tests", "out", "cores")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return c
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CORE, &lim) != nil {
		return c
	}
	lim.Cur = lim.Max
	if lim.Cur == 0 || syscall.Setrlimit(syscall.RLIMIT_CORE, &lim) != nil {
		return c
	}
	// The name's fixed part: what precedes the first %-specifier.
	c.prefix, _, _ = strings.Cut(filepath.Base(p), "%")
	c.dir = dir
	return c
}()

// killedBySignal matches what mpirun, OpenMPI's handler, MPICH and
// os/exec say about a process that died of a signal.
var killedBySignal = regexp.MustCompile(`exited on signal|Process received signal|signal: |killed by signal|Segmentation fault|core dumped`)

// crashReport returns the cores written since start with their
// backtraces (gdb on the first program of args that lies in the
// checkout, else on the core alone), or "" when there are none.
func crashReport(start time.Time, out string, err error, name string, args []string) string {
	if cores.dir == "" || err == nil || !killedBySignal.MatchString(out+err.Error()) {
		return ""
	}
	entries, _ := os.ReadDir(cores.dir)
	var found []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.ModTime().Before(start.Add(-time.Second)) ||
			!strings.HasPrefix(e.Name(), cores.prefix) {
			continue
		}
		c := filepath.Join(cores.dir, e.Name())
		if _, pid := coreInfo(c); pid == 0 {
			continue // not a core
		} else if cores.moveTo != "" {
			if c = moveCore(c, pid); c == "" {
				continue
			}
		}
		found = append(found, c)
	}
	if len(found) == 0 {
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
	for i, c := range found {
		fmt.Fprintf(&b, "\n[crash report: core %s]\n", c)
		if gdbErr != nil || i >= 3 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		a := []string{"-batch", "-nx", "-ex", "info threads", "-ex", "thread apply all bt 40"}
		exe, _ := coreInfo(c)
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

// moveCore moves a core out of the checkout to tests/out/cores/core.PID
// (a name not yet taken), and returns its new path, or "" when it cannot
// be moved.
func moveCore(c string, pid int) string {
	if os.MkdirAll(cores.moveTo, 0o755) != nil {
		return ""
	}
	for i := 0; i < 100; i++ {
		dst := filepath.Join(cores.moveTo, fmt.Sprintf("core.%d", pid))
		if i > 0 {
			dst += fmt.Sprintf(".%d", i)
		}
		// A link then an unlink: never replaces a core kept from before.
		if os.Link(c, dst) == nil {
			os.Remove(c)
			return dst
		}
	}
	return ""
}

// coreInfo returns the program a core was dumped from, read from its
// NT_PRPSINFO note (the command line's first word, looked up in PATH when
// it has no slash; "" when that fails), and the process's id, 0 when the
// file is no core.
func coreInfo(core string) (prog string, pid int) {
	f, err := elf.Open(core)
	if err != nil {
		return "", 0
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
			// x86-64 elf_prpsinfo: pr_pid at offset 24, pr_psargs[80]
			// at offset 56
			if typ == 3 && dsz >= 136 && f.Type == elf.ET_CORE {
				pid = int(binary.LittleEndian.Uint32(data[off+24:]))
				args := string(data[off+56 : off+136])
				if i := strings.IndexByte(args, 0); i >= 0 {
					args = args[:i]
				}
				if w := strings.Fields(args); len(w) > 0 {
					if filepath.IsAbs(w[0]) {
						return w[0], pid
					}
					if !strings.Contains(w[0], "/") {
						if p, err := exec.LookPath(w[0]); err == nil {
							return p, pid
						}
					}
				}
				return "", pid
			}
			data = data[end:]
		}
	}
	return "", 0
}

// TestCrashReport: a program that dies of SIGSEGV leaves a core, and its
// run's output names it, with a backtrace where gdb is installed (make
// deps installs it). It runs under absolute and relative core patterns.
func TestCrashReport(t *testing.T) {
	if cores.dir == "" {
		t.Skip("core_pattern pipes cores to a handler, or the core size limit cannot be raised: no cores to report")
	}
	out, err := run(t, time.Minute, nil, "sh", "-c", "echo pid $$; kill -SEGV $$")
	if err == nil {
		t.Fatalf("sh survived SIGSEGV:\n%s", out)
	}
	pid := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(out)
	reported := regexp.MustCompile(`\[crash report: core (\S+)\]`).FindAllStringSubmatch(out, -1)
	if pid == nil || len(reported) == 0 {
		t.Fatalf("%v: no core reported:\n%s", err, out)
	}
	ours := false
	for _, c := range reported { // ours only: other programs may crash meanwhile
		if _, p := coreInfo(c[1]); strconv.Itoa(p) == pid[1] {
			ours = true
			os.Remove(c[1])
		}
		if cores.moveTo != "" && !strings.HasPrefix(c[1], cores.moveTo+"/") {
			t.Errorf("core %s left in the checkout, not moved to %s", c[1], cores.moveTo)
		}
	}
	if !ours {
		t.Errorf("no reported core is of process %s:\n%s", pid[1], out)
	}
	t.Log(out)
	if _, gdbErr := exec.LookPath("gdb"); gdbErr == nil && !strings.Contains(out, "#0 ") {
		t.Errorf("gdb is installed but no backtrace was reported:\n%s", out)
	}
}
