package main

/*
#include "safe.h"
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"
)

// The caller's arrays and strings are checked before they are read
// (safe.c): a count larger than its array, or a pointer into nowhere,
// gives an error naming the argument instead of a fault that kills the
// process, and a count no machine could hold is refused before anything
// is allocated.

// callerSlice returns the n elements of type T at p (the caller's memory,
// not copied) after checking that all of them can be read; what names the
// argument and count in the error.
func callerSlice[T any](p unsafe.Pointer, n int, what string) ([]T, error) {
	var zero T
	size := uint64(n) * uint64(unsafe.Sizeof(zero))
	if n < 0 || size/uint64(unsafe.Sizeof(zero)) != uint64(n) {
		return nil, fmt.Errorf("%s: %d entries cannot be addressed", what, n)
	}
	if n == 0 {
		return nil, nil
	}
	if C.gpumap_readable(p, C.size_t(size)) == 0 {
		return nil, fmt.Errorf("%s: %d entries cannot be read at %p (the array is shorter, or no array)", what, n, p)
	}
	return unsafe.Slice((*T)(p), n), nil
}

// callerString reads the NUL-terminated string at s (nil: "").
func callerString(s *C.char, what string) (string, error) {
	if s == nil {
		return "", nil
	}
	n := C.gpumap_strlen(s)
	if n < 0 {
		return "", fmt.Errorf("%s points to memory that cannot be read (%p: not a NUL-terminated string)", what, unsafe.Pointer(s))
	}
	return C.GoStringN(s, C.int(n)), nil
}

// fitsMemory says whether copies of the given number of bytes fit in
// this machine's memory (RAM and swap), so that an absurd count gives an
// error instead of the Go runtime's fatal "out of memory".
func fitsMemory(bytes uint64, what string) error {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return nil
	}
	total := (uint64(si.Totalram) + uint64(si.Totalswap)) * uint64(si.Unit)
	if bytes > total {
		return fmt.Errorf("%s: copying it takes %d bytes, more than this machine's %d bytes of memory", what, bytes, total)
	}
	return nil
}
