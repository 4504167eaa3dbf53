package main

/*
#include <stdint.h>
#include <string.h>
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"unsafe"

	"github.com/gpumap/gpumap/mpirank"
	"github.com/gpumap/gpumap/mpirank/record"
)

// gpumap_record_write_v2 is the finalize step of libgpumap_record.so (see
// cabi/record/record.h; the name carries the version of this interface,
// REC_WRITE_SYMBOL), not part of gpumap.h: collective over comm (a
// duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN), it gathers every
// rank's send table on rank 0, which writes the pattern to path (and the
// message counts to msgpath unless it is empty). It returns 0 with a
// summary in msg on rank 0, or non-zero with the reason in msg.
//
//export gpumap_record_write_v2
func gpumap_record_write_v2(comm C.int, n C.int, peers *C.int, bytes, msgs *C.uint64_t, lost C.uint64_t,
	program, path, msgpath *C.char, msg *C.char, msglen C.int) (status C.int) {
	say := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		if len(s) >= int(msglen) {
			s = s[:max(int(msglen)-1, 0)]
		}
		if msglen > 0 {
			out := unsafe.Slice((*byte)(unsafe.Pointer(msg)), int(msglen))
			out[copy(out, s)] = 0
		}
	}
	defer func() {
		if p := recover(); p != nil {
			say("internal error: %v\n%s", p, debug.Stack())
			status = 1
		}
	}()
	// Views of the recorder's arrays, not copies: they outlive this call.
	mine := record.Rank{Lost: uint64(lost)}
	if n > 0 {
		mine.Peers = unsafe.Slice((*int32)(unsafe.Pointer(peers)), int(n))
		mine.Bytes = unsafe.Slice((*uint64)(unsafe.Pointer(bytes)), int(n))
		mine.Msgs = unsafe.Slice((*uint64)(unsafe.Pointer(msgs)), int(n))
	}
	p, err := mpirank.GatherPattern(mpirank.Comm(comm), mine, C.GoString(program))
	if err != nil {
		say("%v", err)
		return 1
	}
	if p == nil { // not rank 0
		return 0
	}
	out := C.GoString(path)
	if err := p.WriteFile(out, false); err != nil {
		say("%v", err)
		return 1
	}
	if mp := C.GoString(msgpath); mp != "" {
		if sameFile(mp, out) {
			say("GPUMAP_RECORD_MESSAGES names %s, the file GPUMAP_RECORD wrote: message counts not written", mp)
			return 1
		}
		if err := p.WriteFile(mp, true); err != nil {
			say("%v", err)
			return 1
		}
		out += " and " + mp
	}
	say("wrote %s: %s", out, p.Summary())
	return 0
}

// sameFile: a and b name one file (b exists).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	return ea == nil && eb == nil && os.SameFile(sa, sb)
}
