package graph

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/klauspost/compress/zstd"
)

// Limits on the text of a graph file (after decompression), stated in
// README.md: a compressed file may expand to MaxExpansion times its size
// (at least MinTextLimit, at most MaxTextBytes); any file to MaxTextBytes.
// ReadFileLimit takes an explicit limit instead.
const (
	MaxTextBytes = 16 << 30
	MaxExpansion = 64
	MinTextLimit = 1 << 20
)

// ErrTooLarge is wrapped by the error for input beyond the text limit.
var ErrTooLarge = errors.New("graph text exceeds the size limit")

// ReadFile reads a METIS graph file, or one in ParHIP's binary format
// (see IsBinary, ReadBinaryFile). Input compressed with gzip or zstd is
// recognised by its magic bytes, whatever the file is called. The text is
// limited as described at MaxTextBytes.
func ReadFile(path string) (*Graph, error) { return ReadFileLimit(path, 0) }

// ReadFileLimit is ReadFile with a limit on the size of the text after
// decompression; limit <= 0 means the default one.
func ReadFileLimit(path string, limit int64) (*Graph, error) {
	if isBinaryFile(path) {
		return ReadBinaryFile(path)
	}
	data, err := ReadText(path, limit)
	if err != nil {
		return nil, err
	}
	g, err := ParseMETIS(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ReadText returns the text of a graph file, decompressed and checked
// like ReadFileLimit's (limits, binary data, the header line), for
// readers that parse more than the graph: the file is read once, so a
// FIFO or /dev/stdin works. Errors name path.
func ReadText(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	if data, ok, err := readParallel(f, size, limit); ok {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return data, nil
	}
	data, err := readAll(f, size, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// parallelReadMin is the size from which an uncompressed regular file is
// read in pieces of readChunk bytes by all threads at once
// (variables for the tests).
var parallelReadMin, readChunk int64 = 8 << 20, 1 << 20

// readParallel reads an uncompressed regular file of the given size within
// the limit (<= 0: MaxTextBytes) in pieces, on every thread, each piece
// checked for NUL bytes as it arrives, then checks the header as readText
// does, with the same errors. ok is false when the file is small,
// compressed, too large or changed size while it was read: then f is
// rewound for readAll, which decides.
func readParallel(f *os.File, size, limit int64) (data []byte, ok bool, err error) {
	if limit <= 0 {
		limit = MaxTextBytes
	}
	if size < parallelReadMin || size > limit {
		return nil, false, nil
	}
	rewind := func() ([]byte, bool, error) {
		_, err := f.Seek(0, io.SeekStart)
		return nil, err != nil, err
	}
	var head [4]byte
	if n, _ := f.ReadAt(head[:], 0); n < len(head) || bytes.HasPrefix(head[:], gzipMagic) ||
		bytes.HasPrefix(head[:], zstdMagic) || bytes.HasPrefix(head[:], xzMagic[:4]) || bytes.HasPrefix(head[:], bzip2Magic) {
		return rewind()
	}
	buf := make([]byte, size+1)
	// Pieces of readChunk bytes go to the threads as they become free.
	// One piece per thread left a core idle while the slower thread read
	// its half (26 ms of a 2^20-vertex 3D grid's read at -t 2, 43 MB, in
	// an execution trace: page faults and the host make halves uneven).
	x := par.New(0)
	pieces := 1
	if x.Threads() > 1 {
		pieces = int((size + readChunk - 1) / readChunk)
	}
	short := make([]bool, pieces)
	nul := make([]int64, pieces)
	x.Each(pieces, func(_, i int) {
		lo, hi := size*int64(i)/int64(pieces), size*int64(i+1)/int64(pieces)
		n, _ := f.ReadAt(buf[lo:hi], lo)
		short[i] = int64(n) < hi-lo
		nul[i] = -1
		if j := bytes.IndexByte(buf[lo:hi], 0); j >= 0 {
			nul[i] = lo + int64(j)
		}
	})
	// A file that grew or shrank is read again, in order.
	if n, err := f.ReadAt(buf[size:], size); n != 0 || err != io.EOF || anyTrue(short) {
		return rewind()
	}
	buf = buf[:size]
	for _, j := range nul {
		if j >= 0 {
			return nil, true, fmt.Errorf("byte %d is NUL: binary data, not a METIS text file", j)
		}
	}
	hs := headerScan{}
	if err := hs.scan(buf, true); err != nil {
		return nil, true, err
	}
	return buf, true, nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	// recognised only to say that they are not read
	xzMagic    = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
	bzip2Magic = []byte{'B', 'Z', 'h'}
)

// ReadMETIS parses a METIS graph: a header "n m [fmt [ncon]]" followed by one
// line per vertex ([size] [weight] neighbour [edge-weight] ...), neighbours
// numbered from 1, lines starting with '%' ignored. fmt is up to three
// binary digits: vertex sizes (read and ignored), vertex weights, edge
// weights. Errors name the line and the problem. Compressed input may
// expand to MaxExpansion times the compressed bytes read (at least
// MinTextLimit), any input to MaxTextBytes.
func ReadMETIS(r io.Reader) (*Graph, error) {
	data, err := readAll(r, -1, 0)
	if err != nil {
		return nil, err
	}
	return ParseMETIS(data)
}

// readAll reads the text from r, whose size is known when size >= 0.
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 1<<16)
	head, _ := br.Peek(4)
	var src io.Reader = br
	compressed := true
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		src = zr
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		src = zr
	case bytes.HasPrefix(head, xzMagic[:4]), bytes.HasPrefix(head, bzip2Magic):
		return nil, fmt.Errorf("%s-compressed input: only gzip and zstd compression are read (decompress it first)",
			map[bool]string{true: "xz", false: "bzip2"}[bytes.HasPrefix(head, xzMagic[:4])])
	default:
		compressed = false
	}
	lim := textLimit{fixed: limit}
	if limit <= 0 {
		lim.fixed = MaxTextBytes
		if compressed {
			lim.in, lim.size = cr, size
		}
	}
	return readText(src, lim, size)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// textLimit is the largest text allowed: fixed, or for compressed input
// MaxExpansion times the compressed size (known, or counted so far).
type textLimit struct {
	fixed int64
	in    *countingReader // compressed input, nil when fixed applies alone
	size  int64           // its size when known, else -1
}

func (l textLimit) bytes() (int64, string) {
	if l.in == nil {
		return l.fixed, fmt.Sprintf("%d bytes", l.fixed)
	}
	c := l.size
	if c < 0 {
		c = l.in.n
	}
	x := min(max(MaxExpansion*c, MinTextLimit), l.fixed)
	return x, fmt.Sprintf("%d bytes (%d x the %d compressed bytes, at least %d, at most %d)",
		x, MaxExpansion, c, MinTextLimit, l.fixed)
}

// readText reads all of src within the limit, failing early on binary data
// (a NUL byte) and on a first line that is not a METIS header, so that
// /dev/zero or a stream of garbage costs nothing.
func readText(src io.Reader, lim textLimit, size int64) ([]byte, error) {
	c := int64(1 << 20)
	if lim.in == nil && size >= 0 {
		c = size + 1 // an uncompressed file: one read
	}
	if x, _ := lim.bytes(); c > x+1 {
		c = x + 1
	}
	buf := make([]byte, 0, c)
	hs := headerScan{}
	for {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), 2*cap(buf)+4096)
			copy(nb, buf)
			buf = nb
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		if i := bytes.IndexByte(buf[len(buf):len(buf)+n], 0); i >= 0 {
			return nil, fmt.Errorf("byte %d is NUL: binary data, not a METIS text file", len(buf)+i)
		}
		buf = buf[:len(buf)+n]
		if x, what := lim.bytes(); int64(len(buf)) > x {
			return nil, fmt.Errorf("%w: more than %s", ErrTooLarge, what)
		}
		if err := hs.scan(buf, err == io.EOF); err != nil {
			return nil, err
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading graph: %w", err)
		}
	}
}

// headerScan finds the header (the first line that is not a comment) as
// soon as it is complete and checks it.
type headerScan struct {
	pos, line int
	done      bool
}

// maxHeaderLine bounds the header line: "n m fmt ncon" needs a few dozen
// bytes.
const maxHeaderLine = 4096

func (h *headerScan) scan(data []byte, eof bool) error {
	for !h.done {
		end := bytes.IndexByte(data[h.pos:], '\n')
		if end < 0 {
			if len(data)-h.pos > maxHeaderLine && !isCommentPrefix(data[h.pos:]) {
				return fmt.Errorf("line %d: bad header: no line end within %d bytes", h.line+1, maxHeaderLine)
			}
			if !eof {
				return nil
			}
			end = len(data) - h.pos
		}
		ln := data[h.pos : h.pos+end]
		h.pos += end + 1
		h.line++
		if len(ln) > 0 && ln[len(ln)-1] == '\r' {
			ln = ln[:len(ln)-1]
		}
		if isComment(ln) {
			if h.pos >= len(data) {
				h.done = eof
				return nil
			}
			continue
		}
		h.done = true
		if _, err := parseHeader(ln, h.line); err != nil {
			return err
		}
	}
	return nil
}

// isCommentPrefix: the incomplete line starts a comment.
func isCommentPrefix(ln []byte) bool {
	t := bytes.TrimLeft(ln, " \t")
	return len(t) > 0 && t[0] == '%'
}
