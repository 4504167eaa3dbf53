package hash

import "testing"

// The reference values of SplitMix64 seeded with 0: the generator's
// successive outputs are Splitmix64(0), Splitmix64(γ), Splitmix64(2γ), ...
// with γ = 0x9e3779b97f4a7c15 already added inside, so Splitmix64(i*γ)
// is output i+1.
func TestSplitmix64Reference(t *testing.T) {
	const gamma = 0x9e3779b97f4a7c15
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := Splitmix64(uint64(i) * gamma); got != w {
			t.Errorf("output %d = %#x, want %#x", i+1, got, w)
		}
	}
}
