package graph

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Output is an output file being written: a mapping, a pattern, a
// rankfile, a picture, a profile. Every writer of the module goes through
// Create or WriteFile, so that all of them keep the same promises:
//
//   - The target appears complete or not at all. A regular file (or a
//     name that does not exist yet) is written to a temporary file in the
//     same directory, which Commit renames over the target. An error, a
//     Close without Commit or a crash leaves the old target as it was.
//     Where the file system can (Linux's O_TMPFILE: ext4, XFS, Btrfs,
//     tmpfs) the temporary file has no name until Commit, so a crash
//     while writing leaves nothing; elsewhere it is named
//     .NAME.tmp-XXXXXXXX from the start, and a crash can leave it behind.
//   - Nothing is written through a symbolic link at the target: a link
//     there (planted by someone else in a shared directory, to make us
//     truncate their victim's file) is refused with an error. The link is
//     not replaced either: a link the user made on purpose stays, and the
//     message says to name the file it points to.
//   - A new file is created with mode 0644, less the umask: outputs are
//     not made group- or world-writable whatever the umask.
//   - Names of open descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
//     /proc/self/fd/N) write to a duplicate of that descriptor: "-m
//     /dev/stdout | head" and "> file" or ">> file" behave as the shell
//     set them up. Other targets that are not regular files (a named pipe,
//     /dev/null, a terminal) are opened for writing only and written
//     directly: they cannot be replaced, and there is nothing to truncate.
//     Opened for reading too, a pipe's writer was a reader of its own pipe
//     and blocked forever once the real reader had gone.
type Output struct {
	f       *os.File
	path    string // the target, as given
	temp    string // the temporary file's name, once it has one
	direct  bool   // writing to the target itself
	unnamed bool   // f has no name yet (O_TMPFILE)
	done    bool   // committed or aborted
}

// Create opens path for writing (see Output). The caller writes, then
// calls Commit; a deferred Close discards everything when Commit was not
// reached.
func Create(path string) (*Output, error) {
	if fd, ok := descriptor(path); ok {
		f, err := dupDescriptor(fd, path)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return &Output{f: f, path: path, direct: true}, nil
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return nil, fmt.Errorf("%s is a symbolic link (to %s): not written through it; remove the link or name the file it points to", path, to)
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		// O_NOFOLLOW: a link swapped in since Lstat is refused (ELOOP).
		f, err := os.OpenFile(path, os.O_WRONLY|oNofollow, 0)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err != nil || st.Mode().IsRegular() {
			// A regular file swapped in since Lstat: it would be written
			// over without being truncated.
			f.Close()
			return nil, fmt.Errorf("%s changed while it was opened", path)
		}
		return &Output{f: f, path: path, direct: true}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if f := openUnnamed(filepath.Dir(path)); f != nil {
		return &Output{f: f, path: path, unnamed: true}, nil
	}
	var f *os.File
	temp, err := withTempName(path, func(temp string) error {
		// O_EXCL with O_NOFOLLOW: a name planted in between (a file or a
		// link) is never opened, only stepped around.
		var err error
		f, err = os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNofollow, 0o644)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	return &Output{f: f, path: path, temp: temp}, nil
}

// withTempName calls create with fresh hidden names in path's directory
// until one is not taken, and returns the name it took.
func withTempName(path string, create func(temp string) error) (string, error) {
	dir, base := filepath.Split(path)
	if len(base) > 128 {
		base = base[:128] // the temporary name must stay within NAME_MAX
	}
	for try := 0; ; try++ {
		temp := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64()&0xffffffff, 16))
		err := create(temp)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 100 {
			return temp, err
		}
	}
}

// descriptor reports whether path names an open descriptor of this
// process, and which.
func descriptor(path string) (int, bool) {
	path = filepath.Clean(path)
	switch path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}

// Write writes to the output; errors name the target, not the temporary
// file.
func (o *Output) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	if err != nil {
		err = &fs.PathError{Op: "write", Path: o.path, Err: unwrapPath(err)}
	}
	return n, err
}

// Commit makes what was written the target: it flushes the temporary file
// to disk and renames it over the target (so that even a machine crash
// leaves the old file or the new one). On error ("writing PATH: ...") the
// target is unchanged and the temporary file is gone.
func (o *Output) Commit() error {
	if o.done {
		return fmt.Errorf("%s: already committed or closed", o.path)
	}
	o.done = true
	if o.direct {
		if err := o.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", o.path, unwrapPath(err))
		}
		return nil
	}
	err := o.f.Sync()
	if err == nil && o.unnamed {
		// A name for the complete file, then the rename: linkat cannot
		// replace an existing target itself.
		o.temp, err = withTempName(o.path, func(temp string) error { return linkUnnamed(o.f, temp) })
		if err != nil {
			o.temp = ""
		}
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.temp, o.path)
	}
	if err != nil {
		if o.temp != "" {
			os.Remove(o.temp)
		}
		return fmt.Errorf("writing %s: %w", o.path, unwrapPath(err))
	}
	return nil
}

// Close discards the output unless it was committed: the temporary file
// is removed and the target keeps its old contents. It is a no-op after
// Commit, so that "defer o.Close()" is always right.
func (o *Output) Close() error {
	if o.done {
		return nil
	}
	o.done = true
	err := o.f.Close()
	if o.temp != "" {
		os.Remove(o.temp)
	}
	return err
}

// WriteFile writes path through write (see Output): the target changes
// only when write and the commit succeed. Errors name path.
func WriteFile(path string, write func(w io.Writer) error) error {
	o, err := Create(path)
	if err != nil {
		return err
	}
	defer o.Close()
	if err := write(o); err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return o.Commit()
}

// unwrapPath drops an *fs.PathError's own path (the temporary file's).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
