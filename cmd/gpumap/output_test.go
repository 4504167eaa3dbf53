package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
