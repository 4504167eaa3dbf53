//go:build !linux

package distmap

// cpuMask is a CPU affinity mask; elsewhere than on Linux none is read
// or set.
type cpuMask [16]uint64

func threadMask() (cpuMask, bool)   { return cpuMask{}, false }
func setProcessMask(m cpuMask) bool { return false }
