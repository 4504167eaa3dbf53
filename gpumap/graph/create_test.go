package graph

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// entries lists dir, for checks that no temporary file was left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWriteFileReplaces: the new contents replace the old; nothing else
// is left in the directory.
func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.WriteFile(path, []byte("old contents, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("target holds %q, want %q", b, "new")
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Fatalf("directory holds %v, want only out", es)
	}
}

// TestWriteFileFailureKeepsOld: a writer that fails half-way (a crash or
// a full disk) leaves the old target as it was and no temporary file; a
// target that did not exist still does not.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	half := func(w io.Writer) error {
		io.WriteString(w, "half of the new con")
		return boom
	}
	if err := WriteFile(path, half); !errors.Is(err, boom) || !strings.Contains(err.Error(), "writing "+path) {
		t.Fatalf("error %v: want boom, naming %s", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("target holds %q after a failed write, want %q", b, "old")
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Fatalf("directory holds %v after a failed write, want only out", es)
	}
	fresh := filepath.Join(dir, "fresh")
	if err := WriteFile(fresh, half); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Lstat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed write created %s (%v)", fresh, err)
	}
	// Written but neither committed nor closed: the target is still old.
	o, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "uncommitted")
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("target holds %q before Commit", b)
	}
	o.Close()
	if err := o.Commit(); err == nil {
		t.Fatal("Commit after Close succeeded")
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Fatalf("directory holds %v after Close, want only out", es)
	}
}

// TestWriteFileRefusesSymlink: a symbolic link at the target (planted in
// a shared directory to make us truncate the victim) is neither written
// through nor replaced.
func TestWriteFileRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{victim, filepath.Join(dir, "nothing-yet")} {
		link := filepath.Join(dir, "link")
		os.Remove(link)
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
		err := WriteFile(link, writeString("new"))
		if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Fatalf("link to %s: error %v, want a refusal", to, err)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Fatalf("written through the link: the victim holds %q", b)
		}
		if got, err := os.Readlink(link); err != nil || got != to {
			t.Fatalf("the link was replaced: %q, %v", got, err)
		}
		if _, err := os.Lstat(to); to != victim && !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the link's target was created")
		}
	}
	if es := entries(t, dir); len(es) != 2 {
		t.Fatalf("directory holds %v, want link and victim", es)
	}
}

// TestCreateMode: a new output is 0644 less the umask. With umask 002
// (usual for shared project groups) 0666 less the umask gave 0664: a file
// the whole group could rewrite.
func TestCreateMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ umask, want os.FileMode }{{0o002, 0o644}, {0o022, 0o644}, {0o077, 0o600}, {0, 0o644}} {
		old := syscall.Umask(int(c.umask))
		path := filepath.Join(dir, fmt.Sprintf("out%o", c.umask))
		err := WriteFile(path, writeString("x"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != c.want {
			t.Fatalf("umask %03o: mode %v (%v), want %v", c.umask, st.Mode().Perm(), err, c.want)
		}
	}
}

// TestCreateNotRegular: a named pipe is written directly (it cannot be
// replaced) and stays a pipe; a descriptor's name writes to the
// descriptor, at its offset (here after what the descriptor wrote).
func TestCreateNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo here:", err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("the reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", st.Mode(), err)
	}

	path := filepath.Join(dir, "by-descriptor")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("first ")
	name := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := os.Stat(name); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	if err := WriteFile(name, writeString("second")); err != nil {
		t.Fatal(err)
	}
	f.WriteString(" third") // the descriptor is still open
	if b, _ := os.ReadFile(path); string(b) != "first second third" {
		t.Fatalf("%s holds %q", path, b)
	}
}

// TestCrashLeavesNothing: a process killed while writing (SIGKILL: no
// deferred Close runs) leaves the old target and no other file, where the
// file system has unnamed files (O_TMPFILE; elsewhere a hidden temporary
// file may stay behind, which the check below then skips).
func TestCrashLeavesNothing(t *testing.T) {
	if dir := os.Getenv("GPUMAP_TEST_CRASH_DIR"); dir != "" {
		o, err := Create(filepath.Join(dir, "out"))
		if err != nil {
			os.Exit(3)
		}
		o.Write(make([]byte, 1<<20))
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	dir := t.TempDir()
	if f := openUnnamed(dir); f == nil {
		t.Skip("no unnamed files (O_TMPFILE) on the file system of", dir)
	} else {
		f.Close()
	}
	path := filepath.Join(dir, "out")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashLeavesNothing$")
	cmd.Env = append(os.Environ(), "GPUMAP_TEST_CRASH_DIR="+dir)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the writer was not killed: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("target holds %.20q after the crash", b)
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Fatalf("directory holds %v after the crash, want only out", es)
	}
}
