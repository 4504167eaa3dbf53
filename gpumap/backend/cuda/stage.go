package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
)

// uploadWay is how UploadGraph moves the input graph to the device.
type uploadWay int

const (
	// uploadPinned page-locks each array, copies it and unlocks it
	// (copyPinned): on the real H200, rgg 2^22's 310 MB in 25.9 ms, of
	// which locking 13.2 and unlocking 5.3 (8-stop39-upload.txt).
	uploadPinned uploadWay = iota
	// uploadStaged copies the arrays through the backend's page-locked
	// staging buffers (stager): the host fills one buffer while the
	// device copies the one before, so nothing is locked per upload.
	uploadStaged
	// uploadPageable copies the arrays from the Go heap as they are: 56.2
	// ms on the H200 at 2^22.
	uploadPageable
)

var uploadWayNames = [...]string{uploadPinned: "pinned", uploadStaged: "staged", uploadPageable: "pageable"}

func (w uploadWay) String() string { return uploadWayNames[w] }

// parseUploadWay reads a way by its name.
func parseUploadWay(s string) (uploadWay, error) {
	for w, n := range uploadWayNames {
		if n == s {
			return uploadWay(w), nil
		}
	}
	return 0, fmt.Errorf("upload way %q: want pinned, staged or pageable", s)
}

// uploadMethod is the way UploadGraph uploads; the benchmarks set it
// (BenchmarkUpload compares the three on a device; GPUMAP_BENCH_UPLOAD
// picks it for the others). Pinned until a real device shows the staged
// way faster: the emulator cannot time a bus.
var uploadMethod = uploadPinned

// The staging buffers: stageBufs page-locked buffers of stageBytes each,
// allocated at a backend's first staged upload and freed by Close, filled
// by up to stageThreads goroutines, and no more than GOMAXPROCS (the
// command's -t), each at least stageGrain bytes of a buffer. Two
// buffers let the host fill one while the device copies the other. The
// size and threads are guesses that BenchmarkUpload checks on a device
// (it tries 4 and 64 MiB, 1, 4 and 16 threads): a fill runs at the
// host's memory bandwidth (BenchmarkUploadFill), which takes several
// threads, and the bus takes 16 MiB in 0.3 ms on the H200.
const stageBufs = 2

var (
	stageBytes   int64 = 16 << 20
	stageThreads       = 8
)

const stageGrain = 1 << 20

// stager holds a backend's staging buffers.
type stager struct {
	size int64
	buf  [stageBufs]unsafe.Pointer
	done [stageBufs]*driver.Event // recorded after the copy from buf
	busy [stageBufs]bool          // a copy from buf may still run
	next int                      // the buffer to fill next
	// failed: the buffers could not be allocated (page-locked memory is
	// limited); this backend's uploads go the pinned way.
	failed error
}

// hostPiece is n bytes at src, to be copied to the offset off of a
// staged upload.
type hostPiece struct {
	off int64
	src unsafe.Pointer
	n   int64
}

// stageReady allocates the staging buffers unless they are there (the
// context is current); false when they cannot be allocated.
func (b *Backend) stageReady() bool {
	s := &b.stage
	if s.failed != nil {
		return false
	}
	if s.buf[0] != nil && s.size == stageBytes {
		return true
	}
	if err := b.stageFree(); err != nil {
		s.failed = err
		return false
	}
	err := b.hostStep("host_alloc", Counts{}, func() error {
		for i := range s.buf {
			p, err := driver.AllocHost(uint64(stageBytes))
			if err != nil {
				return err
			}
			s.buf[i] = p
			e, err := driver.NewSyncEvent()
			if err != nil {
				return err
			}
			s.done[i] = e
		}
		return nil
	})
	if err != nil {
		s.failed = errors.Join(err, b.stageFree())
		return false
	}
	s.size = stageBytes
	return true
}

// stageFree waits for the copies from the staging buffers and frees
// them (the context is current).
func (b *Backend) stageFree() error {
	s := &b.stage
	errs := []error{b.stageDrain()}
	for i := range s.buf {
		errs = append(errs, driver.FreeHost(s.buf[i]))
		if s.done[i] != nil {
			errs = append(errs, s.done[i].Destroy())
		}
		s.buf[i], s.done[i] = nil, nil
	}
	s.size, s.next = 0, 0
	return errors.Join(errs...)
}

// stageDrain waits for every copy that may read a staging buffer.
func (b *Backend) stageDrain() error {
	s := &b.stage
	if !slices.Contains(s.busy[:], true) {
		return nil
	}
	s.busy = [stageBufs]bool{}
	return b.sync()
}

// copyStaged copies pieces (sorted by offset, apart) to dst+off through
// the staging buffers: bytes [0, end of the last piece) of dst, the gaps
// between pieces as zeros, in chunks of a buffer. Before a buffer is
// filled again the host waits for its previous copy (an event); the last
// copies may still run when it returns (the stream orders them before
// the kernels that follow).
//
// The counts: every chunk is an H2D copy from page-locked memory, so its
// bytes count as H2DPinnedBytes, which the model prices at the bus's
// pinned rate; filling the buffers is host work that the model does not
// price (as it does not price page-locking): the profile rows stage_fill
// and stage_wait (the host waiting for a buffer's copy) time it, and
// copy_h2d times only the queueing of the copies.
func (b *Backend) copyStaged(dst driver.Ptr, pieces []hostPiece) (err error) {
	s := &b.stage
	var end int64
	for _, p := range pieces {
		end = max(end, p.off+p.n)
	}
	defer func() {
		if err != nil { // the buffers must be free for the next upload
			err = errors.Join(err, b.stageDrain())
		}
	}()
	for lo := int64(0); lo < end; lo += s.size {
		hi := min(lo+s.size, end)
		i := s.next
		s.next = (i + 1) % stageBufs
		if s.busy[i] {
			b.count().Syncs++
			if err := b.hostStep("stage_wait", Counts{Syncs: 1}, s.done[i].Synchronize); err != nil {
				return err
			}
			s.busy[i] = false
		}
		buf := unsafe.Slice((*byte)(s.buf[i]), hi-lo)
		b.hostStep("stage_fill", Counts{}, func() error {
			fillStage(buf, pieces, lo, min(stageThreads, runtime.GOMAXPROCS(0)))
			return nil
		})
		c := Counts{H2D: 1, H2DBytes: hi - lo, H2DPinnedBytes: hi - lo}
		s.busy[i] = true // from here until the event says otherwise
		if err := b.hostStep("copy_h2d", c, func() error { return b.copyInAsync(dst+driver.Ptr(lo), s.buf[i], hi-lo) }); err != nil {
			return err
		}
		if err := s.done[i].Record(b.stream); err != nil {
			return err
		}
	}
	return nil
}

// copyInAsync queues a copy from page-locked host memory on the stream.
func (b *Backend) copyInAsync(dst driver.Ptr, src unsafe.Pointer, bytes int64) error {
	c := b.count()
	c.H2D++
	c.H2DBytes += bytes
	c.H2DPinnedBytes += bytes
	b.queued = true
	return driver.CopyInAsync(dst, src, uint64(bytes), b.stream)
}

// fillStage fills buf with bytes [lo, lo+len(buf)) of a staged upload
// of pieces, on up to threads goroutines (the same bytes for any count).
func fillStage(buf []byte, pieces []hostPiece, lo int64, threads int) {
	n := int64(len(buf))
	t := max(1, min(int64(threads), n/stageGrain))
	if t == 1 {
		fillRange(buf, pieces, lo, 0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range t {
		a, z := n*k/t&^63, n*(k+1)/t&^63
		if k == t-1 {
			z = n
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fillRange(buf, pieces, lo, a, z)
		}()
	}
	wg.Wait()
}

// fillRange fills buf[a:z), bytes [lo+a, lo+z) of the upload: the
// pieces' bytes there, zeros between them.
func fillRange(buf []byte, pieces []hostPiece, lo, a, z int64) {
	pos := a // buf is filled up to pos
	for _, p := range pieces {
		from, to := max(p.off, lo+a), min(p.off+p.n, lo+z)
		if from >= to {
			continue
		}
		clear(buf[pos : from-lo])
		src := unsafe.Slice((*byte)(p.src), p.n)
		copy(buf[from-lo:to-lo], src[from-p.off:to-p.off])
		pos = to - lo
	}
	clear(buf[pos:z])
}
