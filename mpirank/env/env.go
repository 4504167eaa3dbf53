// Package env reads gpumap's GPUMAP_* switches and levels by the one rule
// every gpumap library shares: the C code of cabi/dl/gpumap_env.h, called
// through cgo rather than rewritten, so that a value cannot mean one thing
// to the interposer and another to the Go library (mpirank) or the
// command gpumap-mpi.
package env

/*
#cgo CFLAGS: -I${SRCDIR}/../../cabi/dl
#include <stdlib.h>
#include "gpumap_env.h"
*/
import "C"

import "unsafe"

// Switch reads the switch name now (C getenv, which sees what os.Setenv
// and the C code set). An unknown value gives def and the warning that
// rank 0 prints ("" when none).
func Switch(name string, def bool) (bool, string) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var buf [256]C.char
	d := C.int(0)
	if def {
		d = 1
	}
	v := C.gpumap_env_get(cname, 1, d, &buf[0], C.size_t(len(buf)))
	return v != 0, C.GoString(&buf[0])
}

// Parse is the rule on one value (max 1: a switch, else a level): 0..max,
// or -1 (unset: the default) or -2 (unknown: the default and a warning).
func Parse(value string, max int) int {
	cv := C.CString(value)
	defer C.free(unsafe.Pointer(cv))
	return int(C.gpumap_env_parse(cv, C.int(max)))
}
