package main

import (
	"os/exec"
	"testing"
)

// TestMeasureRSSIsTheChilds: the peak RSS of a small child must not be
// the bench's own (Go's vfork start carried the parent's high-water mark
// into the child's getrusage, which made every tool look as big as the
// bench).
func TestMeasureRSSIsTheChilds(t *testing.T) {
	if gnuTime = findGNUTime(); gnuTime == "" {
		t.Skip("GNU time is not installed")
	}
	big := make([]byte, 256<<20)
	for i := range big {
		big[i] = 1
	}
	r, _, err := measure(exec.Command("/bin/true"))
	if err != nil {
		t.Fatal(err)
	}
	if r.rss <= 0 || r.rss >= 64<<20 {
		t.Fatalf("peak RSS of /bin/true: %d bytes while the test holds %d", r.rss, len(big))
	}
	big[len(big)-1] = 2 // keep big alive until here
}
