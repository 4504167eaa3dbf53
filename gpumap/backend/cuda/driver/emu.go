package driver

/*
int gm_emu_counters(unsigned long long *out, int n);
int gm_emu_fail(const char *call, long long nth, int code);
int gm_emu_clear(void);
int gm_emu_set_memory(unsigned long long b);
#include <stdlib.h>
*/
import "C"

import (
	"errors"
	"unsafe"
)

// The emulated driver of tests/cudaemu (loaded with GPUMAP_CUDA_LIB) has
// controls and counters that a real driver lacks. These functions reach
// them; on a real driver they report ErrNotEmulated.

// ErrNotEmulated: the loaded driver is not the emulator.
var ErrNotEmulated = errors.New("the CUDA driver is not the emulator (tests/cudaemu)")

// EmuCounters are the emulator's counters since it was loaded.
type EmuCounters struct {
	Launches, TeamLaunches, Syncs                uint64
	H2D, H2DBytes, H2DPinnedBytes, D2H, D2HBytes uint64
	D2D, D2DBytes, Memsets, MemsetBytes          uint64
	Allocs, Frees, LiveBytes, PeakBytes, Errors  uint64
	CtxRetains, CtxReleases, HostRegisters       uint64
	Barriers                                     uint64
	// page-locked host allocations (AllocHost), their frees, their live
	// bytes; the asynchronous copies among the H2D copies (CopyInAsync)
	HostAllocs, HostFrees, HostLiveBytes, H2DAsync uint64
}

// Emulated reports whether the loaded driver is the emulator.
func Emulated() bool {
	_, err := Emu()
	return err == nil
}

// Emu reads the emulator's counters.
func Emu() (EmuCounters, error) {
	var c EmuCounters
	if Load() != nil {
		return c, ErrNotEmulated
	}
	const n = int(unsafe.Sizeof(c) / 8)
	var v [n]C.ulonglong
	if C.gm_emu_counters(&v[0], C.int(n)) < 0 {
		return c, ErrNotEmulated
	}
	out := (*[n]uint64)(unsafe.Pointer(&c))
	for i := range v {
		out[i] = uint64(v[i])
	}
	return c, nil
}

// EmuFail makes the nth next call (1: the next one) of the named driver
// entry point (e.g. "cuMemAlloc_v2") fail with code.
func EmuFail(call string, nth int, code int) error {
	cs := C.CString(call)
	defer C.free(unsafe.Pointer(cs))
	if Load() != nil || C.gm_emu_fail(cs, C.longlong(nth), C.int(code)) < 0 {
		return ErrNotEmulated
	}
	return nil
}

// EmuClearFailures drops failures that EmuFail set up and did not use.
func EmuClearFailures() error {
	if Load() != nil || C.gm_emu_clear() < 0 {
		return ErrNotEmulated
	}
	return nil
}

// EmuSetMemory sets the emulated device's memory size.
func EmuSetMemory(bytes uint64) error {
	if Load() != nil || C.gm_emu_set_memory(C.ulonglong(bytes)) < 0 {
		return ErrNotEmulated
	}
	return nil
}

// CUDA error codes the tests inject.
const (
	ErrCodeOutOfMemory = 2   // CUDA_ERROR_OUT_OF_MEMORY
	ErrCodeLaunch      = 719 // CUDA_ERROR_LAUNCH_FAILED
)
