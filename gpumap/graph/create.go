package graph

import "os"

// Create opens an output file (a mapping, a pattern, a picture) for
// writing only, creating or truncating it. os.Create opens it for reading
// too: given a pipe's name (/dev/stdout piped to head), that descriptor is
// one more reader of the pipe, so once the real reader had gone the
// writes filled the pipe and blocked forever instead of failing.
func Create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}
