//go:build !unix

package graph

import (
	"errors"
	"os"
)

// No O_NOFOLLOW: Create's Lstat is the only check against links here.
const oNofollow = 0

func dupDescriptor(fd int, name string) (*os.File, error) {
	return nil, errors.New("descriptor names are not supported here")
}
