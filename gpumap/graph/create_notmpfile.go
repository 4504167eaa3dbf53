//go:build !(linux && (amd64 || arm64 || 386 || arm || riscv64 || ppc64 || ppc64le || s390x || loong64))

package graph

import (
	"errors"
	"os"
)

// openUnnamed: no O_TMPFILE here; Create names its temporary files.
func openUnnamed(dir string) *os.File { return nil }

func linkUnnamed(f *os.File, name string) error { return errors.New("no unnamed files here") }
