package gpumap

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/backend/cuda"
)

// TestSelectBackend: auto stays on the CPU without probing for small and
// one-to-one instances and says why; an explicit gpu request is never
// short-circuited, so without a device it fails with ErrNoGPU.
func TestSelectBackend(t *testing.T) {
	cases := []struct {
		name     string
		backend  Backend
		n        int
		oneToOne bool
		log      string // "" when nothing need be said
	}{
		{"cpu", CPU, 1 << 30, false, ""},
		{"auto small", AutoBackend, GPUMinVertices - 1, false, "fewer than"},
		{"auto one-to-one", AutoBackend, 1 << 30, true, "one-to-one mapping runs on the CPU"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		b, err := selectBackend(Options{Backend: c.backend}, &tracker{w: &buf}, c.n, c.oneToOne)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, ok := b.(*cpu.Backend); !ok {
			t.Errorf("%s: backend %s, want the CPU", c.name, b.Name())
		}
		if !strings.Contains(buf.String(), c.log) {
			t.Errorf("%s: log %q, want it to say %q", c.name, buf.String(), c.log)
		}
		b.Close()
	}
	gb, gerr := cuda.Open()
	if gerr == nil {
		gb.Close()
		t.Skip("a GPU is present: the no-GPU error cannot be checked here")
	}
	_, err := selectBackend(Options{Backend: GPU}, &tracker{}, 10, true)
	if !errors.Is(err, ErrNoGPU) || !strings.Contains(err.Error(), gerr.Error()) {
		t.Errorf("backend gpu without a device: %v, want ErrNoGPU with the reason %q", err, gerr)
	}
}
