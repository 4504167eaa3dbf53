// Package hash holds the integer hash behind gpumap's deterministic random
// choices, shared by the phases so that every backend draws the same
// values (the CUDA kernels implement the same function).
package hash

// Splitmix64 is the finaliser of the SplitMix64 generator: a bijective mix
// of x whose every output bit depends on every input bit.
func Splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
