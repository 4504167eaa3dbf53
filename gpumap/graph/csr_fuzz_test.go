package graph

import (
	"encoding/binary"
	"slices"
	"testing"
)

// csrInput decodes fuzz bytes into CSR arrays: n, then n+1 offsets, the
// neighbours, and (flagged) vertex and edge weights, all small so that
// offsets often agree with the neighbour count.
func csrInput(data []byte) (xadj []int64, adj []int32, vw, ew []int64) {
	next := func() int64 {
		if len(data) == 0 {
			return 0
		}
		v, n := binary.Varint(data)
		if n <= 0 {
			data = data[1:]
			return int64(int8(data0(data)))
		}
		data = data[n:]
		return v
	}
	n := int(uint8(next())) % 16
	flags := next()
	xadj = make([]int64, n+1)
	for i := range xadj {
		xadj[i] = next()
	}
	m := xadj[n]
	if m < 0 || m > 256 {
		m = 0
	}
	adj = make([]int32, m)
	for i := range adj {
		adj[i] = int32(next())
	}
	if flags&1 != 0 {
		vw = make([]int64, n)
		for i := range vw {
			vw[i] = next()
		}
	}
	if flags&2 != 0 {
		ew = make([]int64, m)
		for i := range ew {
			ew[i] = next()
		}
	}
	return
}

func data0(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func appendCSR(xadj []int64, adj []int32, vw, ew []int64) []byte {
	b := binary.AppendVarint(nil, int64(len(xadj)-1))
	flags := int64(0)
	if vw != nil {
		flags |= 1
	}
	if ew != nil {
		flags |= 2
	}
	b = binary.AppendVarint(b, flags)
	for _, x := range xadj {
		b = binary.AppendVarint(b, x)
	}
	for _, x := range adj {
		b = binary.AppendVarint(b, int64(x))
	}
	for _, x := range vw {
		b = binary.AppendVarint(b, x)
	}
	for _, x := range ew {
		b = binary.AppendVarint(b, x)
	}
	return b
}

// FuzzFromCSR: the validation of gpumap_map_graph's arrays never panics,
// and what it accepts is a valid graph equal to the input, within the
// weight limits, and equal to FromCheckedCSR's.
func FuzzFromCSR(f *testing.F) {
	f.Add(appendCSR([]int64{0, 1, 3, 5, 6}, []int32{1, 0, 2, 1, 3, 2}, nil, nil))
	f.Add(appendCSR([]int64{0, 1, 3, 5, 6}, []int32{1, 0, 2, 1, 4, 2}, nil, nil))
	f.Add(appendCSR([]int64{0, 1, 2}, []int32{1, 0}, []int64{1, 2}, []int64{3, 3}))
	f.Add(appendCSR([]int64{0, 1, 2}, []int32{1, 0}, []int64{-1 << 62, 1 << 62}, []int64{1 << 62, 1 << 62}))
	f.Add(appendCSR([]int64{0, 0, 0}, nil, []int64{1 << 62, 1 << 62}, nil))
	f.Add(appendCSR([]int64{0, 2, 1}, []int32{1, 0}, nil, nil))
	f.Add(appendCSR([]int64{5, 1}, []int32{1}, nil, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		xadj, adj, vw, ew := csrInput(data)
		// FromCheckedCSR (given copies: it keeps them) fails where
		// FromCSR does for the arrays' shape, with the same message,
		// and builds the same graph where FromCSR accepts.
		tg, terr := FromCheckedCSR(slices.Clone(xadj), slices.Clone(adj), slices.Clone(vw), slices.Clone(ew))
		g, err := FromCSR(xadj, adj, vw, ew)
		switch {
		case terr != nil && (err == nil || err.Error() != terr.Error()):
			t.Fatalf("FromCheckedCSR: %v, FromCSR: %v", terr, err)
		case err == nil && terr == nil:
			w32, w64 := g.Weights()
			t32, t64 := tg.Weights()
			if !slices.Equal(g.XAdj, tg.XAdj) || !slices.Equal(g.Adj, tg.Adj) || !slices.Equal(g.VW, tg.VW) ||
				!slices.Equal(w32, t32) || !slices.Equal(w64, t64) || (w32 == nil) != (t32 == nil) || (w64 == nil) != (t64 == nil) {
				t.Fatalf("FromCheckedCSR built another graph")
			}
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty message")
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		if g.N() != len(xadj)-1 || len(g.Adj) != len(adj) {
			t.Fatalf("shape changed")
		}
		for i, u := range adj {
			if g.Adj[i] != u || ew != nil && g.W(int64(i)) != ew[i] {
				t.Fatalf("entry %d changed", i)
			}
		}
		if g.TotalVertexWeight() > MaxTotalVertexWeight || g.TotalVertexWeight() < 0 || g.TotalEdgeWeight() > MaxTotalEdgeWeight || g.TotalEdgeWeight() < 0 {
			t.Fatalf("weights beyond the limits accepted")
		}
	})
}
