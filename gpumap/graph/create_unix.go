//go:build unix

package graph

import (
	"os"
	"syscall"
)

const oNofollow = syscall.O_NOFOLLOW

// dupDescriptor returns a duplicate of the open descriptor fd (close on
// exec), named name.
func dupDescriptor(fd int, name string) (*os.File, error) {
	nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, errno
	}
	return os.NewFile(nfd, name), nil
}
