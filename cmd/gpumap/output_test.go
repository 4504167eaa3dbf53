package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputToAClosedPipeFails: a mapping written to a pipe whose reader
// has gone (-m /dev/stdout | head) must end with an error; opened for
// reading and writing, the output was a reader itself and the run blocked
// forever once the pipe was full.
func TestOutputToAClosedPipeFails(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	dir := t.TempDir()
	g := filepath.Join(dir, "g.graph")
	if code, _, errs := runCLI("gen", "-t", "grid", "-dims", "200x200", "-o", g); code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	r.Close() // the only reader goes away before anything is written
	type result struct {
		code int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errs := runCLI("map", "-q", "-g", g, "-h", "4:8:6", "-d", "1:10:100", "-m", path)
		done <- result{code, errs}
	}()
	select {
	case r := <-done:
		if r.code != exitFailure || !strings.Contains(r.errs, "writing "+path) || !strings.Contains(r.errs, "broken pipe") {
			t.Fatalf("exit %d, %q: want a failure writing %s (broken pipe)", r.code, r.errs, path)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("writing to a pipe without a reader blocked")
	}
}

// TestOutputNotThroughSymlink: gpumap's outputs (here gen -o and map -m)
// do not write through a symbolic link planted at the output's name, and
// a new output is 0644 under umask 002 (0666 gave the group write
// access).
func TestOutputNotThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := writeFile(t, dir, "victim", "precious")
	g := filepath.Join(dir, "g.graph")
	old := syscall.Umask(0o002)
	code, _, errs := runCLI("gen", "-t", "grid", "-dims", "4x4", "-o", g)
	syscall.Umask(old)
	if code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	if st, err := os.Stat(g); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("gen -o under umask 002: mode %v, want 0644", st.Mode().Perm())
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gen", "-t", "grid", "-dims", "4x4", "-o", link},
		{"map", "-q", "-g", g, "-h", "4:4", "-d", "1:10", "-m", link},
	} {
		code, _, errs := runCLI(args...)
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Fatalf("%s wrote through the link: the victim holds %.20q", args[0], b)
		}
		if code != exitFailure || !strings.Contains(errs, link+" is a symbolic link") {
			t.Fatalf("%s: exit %d, %q: want a failure naming the link", args[0], code, errs)
		}
	}
}
