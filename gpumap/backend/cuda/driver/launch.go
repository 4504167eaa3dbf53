package driver

/*
#include <stdlib.h>
#include <string.h>
typedef int CUresult;
typedef void *CUfunction;
typedef void *CUstream;
CUresult gm_launch_args(CUfunction f, unsigned gx, unsigned bx, unsigned shared, CUstream s,
                        const void *blob, int bloblen, const int *offsets, int nargs);
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// Arg is one kernel argument with its exact size: the driver copies
// sizeof(parameter) bytes from each argument pointer, so a 4-byte int must
// point at 4 bytes, a pointer or 64-bit value at 8.
type Arg struct {
	b [8]byte
	n int
}

// I32 is an int / int32_t / uint32_t parameter.
func I32(v int32) Arg { var a Arg; binary.LittleEndian.PutUint32(a.b[:], uint32(v)); a.n = 4; return a }

// I64 is a long long / int64_t / uint64_t parameter.
func I64(v int64) Arg { var a Arg; binary.LittleEndian.PutUint64(a.b[:], uint64(v)); a.n = 8; return a }

// F64 is a double parameter.
func F64(v float64) Arg { return I64(int64(math.Float64bits(v))) }

// P is a device pointer parameter.
func P(p Ptr) Arg { return I64(int64(p)) }

// Launch runs f on a 1-D grid of grid blocks of block threads on stream s.
// The arguments are packed, each aligned to its size, into one C buffer
// whose slots are passed to cuLaunchKernel.
func (f *Function) Launch(s *Stream, grid, block uint32, args ...Arg) error {
	return f.LaunchShared(s, grid, block, 0, args...)
}

// LaunchShared is Launch with dynamic shared memory.
func (f *Function) LaunchShared(s *Stream, grid, block, shared uint32, args ...Arg) error {
	if grid == 0 {
		return nil
	}
	blob, offs := pack(args)
	var sp C.CUstream
	if s != nil {
		sp = s.s
	}
	var bp unsafe.Pointer
	var op *C.int
	if len(args) > 0 {
		bp, op = unsafe.Pointer(&blob[0]), &offs[0]
	}
	if r := C.gm_launch_args(f.f, C.uint(grid), C.uint(block), C.uint(shared), sp, bp, C.int(len(blob)), op, C.int(len(args))); r != 0 {
		return fmt.Errorf("launching %s: %w", f.name, check("cuLaunchKernel", r))
	}
	return nil
}

// pack lays the arguments out, each aligned to its size.
func pack(args []Arg) ([]byte, []C.int) {
	blob := make([]byte, 0, 8*len(args))
	offs := make([]C.int, len(args))
	for i, a := range args {
		for len(blob)%a.n != 0 {
			blob = append(blob, 0)
		}
		offs[i] = C.int(len(blob))
		blob = append(blob, a.b[:a.n]...)
	}
	return blob, offs
}
