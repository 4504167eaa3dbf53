package mpirank

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/hwdetect"
)

func TestPayloadRoundTrip(t *testing.T) {
	p := payload{Rec: hwdetect.Record{Host: "node7", BootID: "b", Switch: "s1", Socket: 1, Core: 13},
		Neighbors: []int32{9, 2, 5, 2}, Volumes: []float64{1.5, 2, 3, math.MaxFloat64}}
	q, err := decodePayload(encodePayload(p), maxPayload)
	if err != nil {
		t.Fatal(err)
	}
	if q.Rec != p.Rec || len(q.Neighbors) != 4 {
		t.Fatalf("%+v", q)
	}
	// Sorted by neighbour, volumes follow their neighbour; the two entries
	// of neighbour 2 keep their order (a stable sort).
	wantNb, wantVol := []int32{2, 2, 5, 9}, []float64{2, math.MaxFloat64, 3, 1.5}
	for i := range wantNb {
		if q.Neighbors[i] != wantNb[i] || q.Volumes[i] != wantVol[i] {
			t.Fatalf("decoded %v %v, want %v %v", q.Neighbors, q.Volumes, wantNb, wantVol)
		}
	}
	if _, err := decodePayload([]byte("not zstd"), maxPayload); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestCheckLocalMessages(t *testing.T) {
	cases := []struct {
		nb   []int32
		vol  []float64
		want string
	}{
		{[]int32{4}, []float64{1}, "rank 1: neighbour 4 (entry 0) is out of range [0,4)"},
		{[]int32{1}, []float64{1}, "rank 1: lists itself"},
		{[]int32{0}, []float64{math.NaN()}, "is NaN"},
		{[]int32{0}, []float64{-1}, "is negative (-1)"},
		{[]int32{0}, []float64{math.Inf(1)}, "is infinite"},
		{[]int32{0, 2}, []float64{1}, "2 neighbours but 1 volumes"},
	}
	for _, c := range cases {
		if e := checkLocal(1, 4, c.nb, c.vol); e == nil || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%v %v: %v, want %q", c.nb, c.vol, e, c.want)
		}
	}
}

func TestMergeRules(t *testing.T) {
	pats := []payload{
		{Neighbors: []int32{1, 2}, Volumes: []float64{10, 5}},
		{Neighbors: []int32{0}, Volumes: []float64{3}},
		{},
	}
	w, e := merge(pats, PatternSend)
	if e != nil {
		t.Fatal(e)
	}
	// {0,1}: 10 + 3; {0,2}: 5 (one way).
	if len(w.vol) != 2 || w.vol[0] != 13 || w.vol[1] != 5 {
		t.Fatalf("send merge %+v", w)
	}
	if _, e := merge(pats, PatternExchange); e == nil || e.Code != ErrInconsistent {
		t.Fatalf("exchange merge of asymmetric patterns: %v", e)
	}
	sym := []payload{{Neighbors: []int32{1}, Volumes: []float64{7}}, {Neighbors: []int32{0}, Volumes: []float64{7}}}
	if w, e := merge(sym, PatternExchange); e != nil || w.vol[0] != 7 {
		t.Fatalf("exchange merge: %+v %v", w, e)
	}
}

// synthetic builds the payloads of an nx x ny x nz stencil whose ranks
// were dealt round-robin over nodes of 2 sockets x 32 cores (mpirun
// --map-by node), so the launch order is poor.
func synthetic(nx, ny, nz int) ([]byte, []int32, []int32) {
	n := nx * ny * nz
	nodes := n / 64
	var all []byte
	sizes := make([]int32, n)
	displs := make([]int32, n)
	for r := 0; r < n; r++ {
		x, y, z := r/(ny*nz), (r/nz)%ny, r%nz
		var nb []int32
		var vol []float64
		add := func(ok bool, o int) {
			if ok {
				nb = append(nb, int32(o))
				vol = append(vol, 1<<20)
			}
		}
		add(x > 0, r-ny*nz)
		add(x+1 < nx, r+ny*nz)
		add(y > 0, r-nz)
		add(y+1 < ny, r+nz)
		add(z > 0, r-1)
		add(z+1 < nz, r+1)
		node := r % nodes
		slot := r / nodes
		rec := hwdetect.Record{Host: fmt.Sprintf("n%04d", node), BootID: "b", Socket: slot / 32, Core: slot}
		b := encodePayload(payload{Rec: rec, Neighbors: nb, Volumes: vol})
		displs[r], sizes[r] = int32(len(all)), int32(len(b))
		all = append(all, b...)
	}
	return all, sizes, displs
}

func TestMapOnRootImprovesSynthetic(t *testing.T) {
	all, sizes, displs := synthetic(16, 16, 16)
	keys, res, e := mapOnRoot(all, sizes, displs, Options{}, false)
	if e != nil {
		t.Fatal(e)
	}
	seen := make([]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			t.Fatal("keys are not a permutation")
		}
		seen[k] = true
	}
	if !(res.JAfter < 0.5*res.JBefore) {
		t.Fatalf("J %g -> %g: expected at least a halving on a round-robin launch", res.JBefore, res.JAfter)
	}
}
