package refinement

import (
	"hash/fnv"
	"sync/atomic"
	"testing"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// TestFMDenseUnchanged pins the sequential FM's result on dense graphs,
// where a move's update of its neighbours' entries and their
// reconsideration share one pass over its row (moveAndConsider): the
// gains, the counted work and the assignment are those the two passes
// (ConnTable.Move, then consider on every neighbour) gave, under the cut
// and under J, with and without frozen hubs. The values were recorded with
// the two-pass code.
func TestFMDenseUnchanged(t *testing.T) {
	g := graph.Communities(2048, 64, 18, 4, 7)
	// Hubs above 8x the average degree are frozen (hubDegree).
	hub := graph.PowerLaw(2048, 10, 8)
	frozen := 0
	for v := 0; v < hub.N(); v++ {
		if hub.XAdj[v+1]-hub.XAdj[v] > hubDegree(hub) {
			frozen++
		}
	}
	if frozen == 0 {
		t.Fatal("no frozen hub in the power-law graph")
	}
	for _, c := range []struct {
		name      string
		g         *graph.Graph
		k         int
		obj       func(k int) Objective
		gain, wrk int64
		hash      uint64
	}{
		{"cut k=2", g, 2, cutObj, 1169, 480182, 0x7c9fe9c9ae266ae4},
		{"cut k=8", g, 8, cutObj, 864, 1066175, 0xea7f4827c08cb40d},
		{"J k=192", g, 192, mapObj, 394, 1111541, 0xb2e8b3454282b0fd},
		{"cut hubs k=4", hub, 4, cutObj, 930, 893437, 0x5470474e7dee87ad},
	} {
		part, maxW := stripes(c.g, c.k)
		// Shift the stripes by half a community: the communities straddle
		// the blocks and FM has moves to make.
		for v := range part {
			part[v] = int32((v + 32) % c.g.N() * c.k / c.g.N())
		}
		s := NewState(c.g, c.k, part, maxW, c.obj(c.k))
		var w atomic.Int64
		gain := RunFM(s, FMConfig{Rounds: 2, Alpha: 30, SkipExplored: true, WasteWork: 3, Seed: 5, Work: &w}, -1)
		h := fnv.New64a()
		for _, b := range part {
			h.Write([]byte{byte(b), byte(b >> 8)})
		}
		if gain != c.gain || w.Load() != c.wrk || h.Sum64() != c.hash {
			t.Errorf("%s: gain %d, work %d, assignment %#x; want %d, %d, %#x", c.name, gain, w.Load(), h.Sum64(), c.gain, c.wrk, c.hash)
		}
	}
}
