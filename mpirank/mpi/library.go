package mpi

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#cgo LDFLAGS: -ldl

// The file of the shared object that defines MPI_Init in this process
// (the MPI library the dynamic linker loaded), or NULL (MPI linked
// statically into the executable gives the executable's name).
static const char *g_library(void) {
	Dl_info info;
	if (dladdr((void *)&MPI_Init, &info) == 0 || info.dli_fname == NULL) return NULL;
	return info.dli_fname;
}
*/
import "C"

// Library returns the path of the MPI library this process loaded (the
// file that defines MPI_Init, as the dynamic linker named it: it may be a
// symbolic link), or "" where dladdr cannot tell. It calls no MPI
// function, so it may be called before Init.
func Library() string {
	if p := C.g_library(); p != nil {
		return C.GoString(p)
	}
	return ""
}
