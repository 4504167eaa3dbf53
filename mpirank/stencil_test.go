package mpirank

import (
	"bytes"
	"strings"
	"testing"
)

// The library path maps a stencil in rank order by its tiling: the
// machine hwdetect infers from uniform nodes is a tree, regular in fact,
// and the tiling proven optimal is all that runs.
func TestReorderStencilByTiling(t *testing.T) {
	all, sizes, displs := synthetic(16, 16, 16) // 64 nodes of 64, launched round-robin
	var log bytes.Buffer
	_, res, e := mapOnRoot(all, sizes, displs, Options{Preset: 1, Verbosity: 2, Log: &log}, false)
	if e != nil {
		t.Fatal(e)
	}
	if !strings.Contains(log.String(), "tiling J") || !strings.Contains(log.String(), "optimal (the lower bound)") ||
		strings.Contains(log.String(), "gpumap: one-to-one ") {
		t.Errorf("the tiling did not decide alone:\n%s", log.String())
	}
	if res.JAfter >= res.JBefore {
		t.Errorf("J %g -> %g", res.JBefore, res.JAfter)
	}
	t.Logf("J %g -> %g (%.3f)", res.JBefore, res.JAfter, res.JAfter/res.JBefore)
}
