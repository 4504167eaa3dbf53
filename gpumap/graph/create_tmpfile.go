//go:build linux && (amd64 || arm64 || 386 || arm || riscv64 || ppc64 || ppc64le || s390x || loong64)

package graph

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// oTmpfile is Linux's O_TMPFILE on these architectures (__O_TMPFILE |
// O_DIRECTORY; the syscall package does not define it).
const oTmpfile = 0o20000000 | syscall.O_DIRECTORY

// atFDCWD and atSymlinkFollow are linkat's AT_FDCWD and AT_SYMLINK_FOLLOW
// (/proc/self/fd/N is a link to the open file, which is what gets the
// name).
const (
	atFDCWD         = -100
	atSymlinkFollow = 0x400
)

// openUnnamed opens a file without a name in dir, or nil where the file
// system (or a missing /proc, which linkUnnamed needs) does not allow it.
func openUnnamed(dir string) *os.File {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil
	}
	f, err := os.OpenFile(dir, os.O_WRONLY|oTmpfile, 0o644)
	if err != nil {
		return nil
	}
	return f
}

// linkUnnamed gives the open file f of openUnnamed the name name (which
// must not exist).
func linkUnnamed(f *os.File, name string) error {
	from, err := syscall.BytePtrFromString("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return err
	}
	to, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	cwd := atFDCWD
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(cwd), uintptr(unsafe.Pointer(from)),
		uintptr(cwd), uintptr(unsafe.Pointer(to)), atSymlinkFollow, 0)
	if errno != 0 {
		return &os.LinkError{Op: "linkat", Old: "/proc/self/fd", New: name, Err: errno}
	}
	return nil
}
