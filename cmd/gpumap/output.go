package main

import "os"

// create opens an output file for writing only (created or truncated).
// os.Create opens it for reading too: given a pipe's name (-m /dev/stdout
// piped to head), that fd is one more reader of the pipe, so when the
// real reader had gone the writes filled the pipe and blocked forever
// instead of failing.
func create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}
