package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/backend"
	"github.com/gpumap/gpumap/gpumap/backend/cuda/driver"
)

//go:embed kernels/gpumap.ptx
var ptx string

// PTX is the embedded kernel module.
func PTX() string { return ptx }

// ErrTooLarge: the graph does not fit the free device memory.
var ErrTooLarge = errors.New("graph does not fit the GPU's free memory")

// ErrOutOfMemory: a device allocation failed during a mapping (the caller
// falls back to the CPU).
var ErrOutOfMemory = errors.New("the GPU ran out of memory")

var errClosed = errors.New("cuda: the backend is closed")

const (
	threads  = 256  // block size of the barrier-free kernels
	spread   = 1024 // accumulators per sum of jet_cost (SPREAD in gpumap.cu)
	rbatch   = 32   // bins per batch of loads in reb_refine (RBATCH in gpumap.cu)
	sbatch   = 16   // partial sums per batch of loads in scan_mid (SBATCH in gpumap.cu)
	bwShared = 1024 // the most PEs block_weights sums in shared memory (BWSH in gpumap.cu)
	// The launch geometry at which the model prices serial paths and
	// atomics (Counts.Chain, Counts.Atomics): an H100's or H200's 132 SMs
	// and 256-thread single blocks, whatever device ran (the emulator's 2
	// SMs and 64-thread blocks would price another device).
	modelSMs  = 132
	modelTeam = 256
)

var kernelNames = []string{"scan_up", "scan_down", "edge_sources", "match_prefer", "match_resolve",
	"hop_key", "hop_pair", "match_self", "cmap_flags", "cmap_fill", "cmap_partner", "contract_bounds",
	"contract_insert", "contract_count", "contract_compact", "project", "block_weights", "jet_cost",
	"jet_lp", "jet_after", "reb_cand", "reb_cut", "reb_hist", "reb_refine", "reb_evict",
	"reb_over", "reb_place"}

// Backend runs on one GPU. Its methods may be called from any goroutine,
// one at a time: each binds the context to its OS thread for the call.
type Backend struct {
	dev    driver.Device
	ctx    *driver.Context
	mod    *driver.Module
	fn     map[string]*driver.Function
	stream *driver.Stream
	grid   uint32 // blocks of the grid-stride kernels
	scanB  uint32 // blocks of a scan's passes
	team   uint32 // threads of the single-block kernels with barriers (at most TEAM in gpumap.cu)
	// teamGrid bounds the blocks of the many-block kernels with barriers
	// (block_weights): two per SM on a GPU, one per SM on the emulator,
	// whose barriers cost real threads. tailGrid bounds those of the
	// grid-stride kernels whose last block finishes the step (tail): the
	// barrier-free kernels' grid on a GPU, one block per SM on the
	// emulator.
	teamGrid, tailGrid uint32
	phase              Phase
	stats              Stats
	prof               profiler // per-kernel measurement (SetProfile)
	keep               bool     // Accumulate: uploads do not reset stats
	// queued: the stream has work that the host has not waited for since
	// its last synchronisation. A copy to the host waits only then: the
	// copies of one download follow each other with nothing in between.
	queued bool
	// pending: the gathers counted for the next launch, which takes them
	// into its kind (Counts.Kinds); inLate: late is attributing counts
	// itself.
	pending Work
	inLate  bool
	stage   stager // page-locked staging buffers of uploads (stage.go)
}

// Open loads the driver, picks GPU 0 and JIT-loads the kernels.
func Open() (*Backend, error) {
	if err := driver.Load(); err != nil {
		return nil, err
	}
	devs, err := driver.Devices()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", driver.ErrUnavailable, err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w: the CUDA driver reports no device", driver.ErrUnavailable)
	}
	runtime.LockOSThread() // Retain makes the context current on this thread
	defer runtime.UnlockOSThread()
	b := &Backend{dev: devs[0], fn: map[string]*driver.Function{}}
	if b.ctx, err = driver.Retain(b.dev); err != nil {
		return nil, err
	}
	if err := b.load(); err != nil {
		b.release()
		return nil, err
	}
	sms := uint32(max(b.dev.SMs, 1))
	b.grid = sms * 32
	b.scanB = sms // scan_up's last block reads each partial sum of a pass twice
	// The single-block kernels (scans of partial sums, J and balance)
	// get 256 threads; a device of a few SMs (the emulator) gets 64, which
	// keeps their barriers cheap to emulate.
	b.team, b.teamGrid, b.tailGrid = 256, sms*2, b.grid
	if sms < 8 {
		b.team, b.teamGrid, b.tailGrid = 64, sms, sms
	}
	return b, nil
}

func (b *Backend) load() (err error) {
	if b.mod, err = driver.LoadPTX(ptx); err != nil {
		return fmt.Errorf("loading the kernels: %w", err)
	}
	for _, name := range kernelNames {
		if b.fn[name], err = b.mod.Function(name); err != nil {
			return err
		}
	}
	b.stream, err = driver.NewStream()
	return err
}

// release drops what Open acquired (on the thread where the context is
// current).
func (b *Backend) release() error {
	errs := []error{b.stageFree()}
	if b.stream != nil {
		errs = append(errs, b.stream.Destroy())
	}
	if b.mod != nil {
		errs = append(errs, b.mod.Unload())
	}
	errs = append(errs, b.ctx.Release())
	b.stream, b.mod, b.ctx = nil, nil, nil
	return errors.Join(errs...)
}

// Name is the device and its capability.
func (b *Backend) Name() string {
	return fmt.Sprintf("cuda (%s, sm_%d%d, %d SMs, %d MiB)", b.dev.Name, b.dev.Major, b.dev.Minor, b.dev.SMs, b.dev.TotalMem>>20)
}

// Close releases the device. Closing twice is harmless.
func (b *Backend) Close() error {
	if b.ctx == nil {
		return nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := b.ctx.MakeCurrent(); err != nil {
		return err
	}
	return b.release()
}

// bind makes the context current on the calling goroutine's OS thread for
// the duration of one call: call the returned function when done.
func (b *Backend) bind(p Phase) (func(), error) {
	if b.ctx == nil {
		return nil, errClosed
	}
	runtime.LockOSThread()
	if err := b.ctx.MakeCurrent(); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	b.phase = p
	return runtime.UnlockOSThread, nil
}

// Stats returns the counts of the current (or last) mapping: since the
// last upload of an input graph.
func (b *Backend) Stats() Stats { return b.stats }

// Accumulate(true) clears the counts and makes those of the following
// mappings add up, until Accumulate(false): a pipeline that maps twice on
// the device (-a auto's GPU-HM and GPU-IM) reports both.
func (b *Backend) Accumulate(on bool) {
	if on {
		b.stats, b.pending = Stats{}, Work{}
	}
	b.keep = on
}

// Report is the performance model of the last mapping (see Stats.Table).
func (b *Backend) Report() string { return b.stats.Table() }

func (b *Backend) count() *Counts { return &b.stats.Phases[b.phase] }

// --- launches and transfers, counted ---

func (b *Backend) blocks(n int64) uint32 {
	if n <= 0 {
		return 0
	}
	return uint32(min((n+threads-1)/threads, int64(b.grid)))
}

// launch runs a kernel on grid x block threads; bytes is the device memory
// it reads and writes (the model's figure).
func (b *Backend) launch(name string, grid, block uint32, bytes int64, args ...driver.Arg) error {
	if grid == 0 {
		return nil
	}
	c := b.count()
	c.Launches++
	c.DeviceBytes += bytes
	w := &c.Kinds[kindOf(name)]
	w.add(b.pending)
	w.Bytes += bytes
	b.pending = Work{}
	b.queued = true
	return b.timed(name, Counts{Launches: 1, DeviceBytes: bytes}, func() error {
		return b.fn[name].Launch(b.stream, grid, block, args...)
	})
}

// loop runs a grid-stride kernel over n items.
func (b *Backend) loop(name string, n, bytes int64, args ...driver.Arg) error {
	return b.launch(name, b.blocks(n), threads, bytes, args...)
}

// tail runs a grid-stride team kernel over n items whose last block to
// finish does the step that follows (take_ticket in gpumap.cu) when
// ticket is set: blocks of b.team threads, at least one block. On the
// model's device each block takes its ticket by an atomic into one
// address.
func (b *Backend) tail(name string, n, bytes int64, ticket bool, args ...driver.Arg) error {
	grid := uint32(max(1, min(int64(b.tailGrid), ceilDiv(n, int64(b.team)))))
	if ticket {
		b.serial(0, max(1, min(32*modelSMs, ceilDiv(n, modelTeam))))
	}
	return b.launch(name, grid, b.team, bytes, args...)
}

func (b *Backend) sync() error {
	b.count().Syncs++
	b.queued = false
	return b.stream.Synchronize()
}

func (b *Backend) fill32(p driver.Ptr, v uint32, words int64) error {
	if words <= 0 {
		return nil
	}
	c := b.count()
	c.Memsets++
	c.DeviceBytes += 4 * words
	c.Kinds[KindMemset].Bytes += 4 * words
	b.queued = true
	return b.timed("memset", Counts{Memsets: 1, DeviceBytes: 4 * words}, func() error {
		return driver.Fill32(p, v, uint64(words))
	})
}

func (b *Backend) copyD2D(dst, src driver.Ptr, bytes int64) error {
	if bytes <= 0 {
		return nil
	}
	c := b.count()
	c.D2D++
	c.DeviceBytes += 2 * bytes
	c.Kinds[KindStream].Bytes += 2 * bytes
	b.queued = true
	return b.timed("copy_d2d", Counts{D2D: 1, DeviceBytes: 2 * bytes}, func() error {
		return driver.Copy(dst, src, uint64(bytes))
	})
}

func (b *Backend) copyIn(dst driver.Ptr, src unsafe.Pointer, bytes int64, pinned bool) error {
	if bytes <= 0 {
		return nil
	}
	c := b.count()
	c.H2D++
	c.H2DBytes += bytes
	b.queued = true
	if pinned {
		c.H2DPinnedBytes += bytes
	}
	return driver.CopyIn(dst, src, uint64(bytes))
}

// copyOut synchronises the stream when work is queued on it (the copy
// must see its kernels) and copies to the host.
func (b *Backend) copyOut(dst unsafe.Pointer, src driver.Ptr, bytes int64) error {
	if bytes <= 0 {
		return nil
	}
	if b.queued {
		if err := b.sync(); err != nil {
			return err
		}
	}
	c := b.count()
	c.D2H++
	c.D2HBytes += bytes
	return driver.CopyOut(dst, src, uint64(bytes))
}

// readInt64 copies one device int64 to the host.
func (b *Backend) readInt64(p driver.Ptr) (int64, error) {
	var x int64
	err := b.copyOut(unsafe.Pointer(&x), p, 8)
	return x, err
}

// alloc allocates device memory; an allocation failure wraps
// ErrOutOfMemory.
func alloc(bytes int64) (driver.Ptr, error) {
	p, err := driver.Alloc(uint64(max(bytes, 8)))
	var de *driver.Error
	if errors.As(err, &de) && de.Code == driver.ErrCodeOutOfMemory {
		return 0, fmt.Errorf("%w: %d bytes: %v", ErrOutOfMemory, bytes, err)
	}
	return p, err
}

var _ backend.Backend = (*Backend)(nil)

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
