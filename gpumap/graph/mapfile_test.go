package graph

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Pieces formatted in parallel come out in vertex order, one PE per line,
// and read back as written.
func TestWriteMappingPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, writePiece, 3*writePiece + 5} {
		pe := make([]int32, n)
		var want bytes.Buffer
		for v := range pe {
			pe[v] = int32(rng.IntN(100000))
			fmt.Fprintf(&want, "%d\n", pe[v])
		}
		var got bytes.Buffer
		if err := WriteMapping(&got, pe); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("n=%d: %v, text differs", n, err)
		}
		back, err := ReadMapping(&got, n, 100000)
		if err != nil || !slices.Equal(back, pe) && n > 0 {
			t.Fatalf("n=%d: read back %v", n, err)
		}
	}
}
