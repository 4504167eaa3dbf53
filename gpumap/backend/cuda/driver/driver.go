// Package driver is a small binding of the CUDA driver API, loaded at run
// time: dlopen of libcuda.so.1 (then the usual driver locations) and
// dlsym of the few entry points gpumap needs. Nothing links CUDA at build
// time, so binaries that import this package start and run on machines
// without a driver; Load reports why the GPU is unusable instead.
//
// gorgonia.org/cu is not used: it calls cuInit in a package init() and
// exits the process when that fails (fatal inside an MPI job on a node
// without a GPU), its binaries need libcuda.so.1 to start at all, and its
// Launch copies 8 bytes from every argument pointer regardless of the
// argument's size.
//
// CUDA contexts are bound to OS threads: callers lock their goroutine to
// its thread (runtime.LockOSThread) and make the context current there.
package driver

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;

static void *lib;
#define FN(ret, name, args) static ret (*p_##name) args;
FN(CUresult, cuInit, (unsigned int))
FN(CUresult, cuDriverGetVersion, (int *))
FN(CUresult, cuDeviceGetCount, (int *))
FN(CUresult, cuDeviceGet, (CUdevice *, int))
FN(CUresult, cuDeviceGetName, (char *, int, CUdevice))
FN(CUresult, cuDeviceGetAttribute, (int *, int, CUdevice))
FN(CUresult, cuDeviceTotalMem_v2, (size_t *, CUdevice))
FN(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))
FN(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))
FN(CUresult, cuCtxSetCurrent, (CUcontext))
FN(CUresult, cuCtxSynchronize, (void))
FN(CUresult, cuMemGetInfo_v2, (size_t *, size_t *))
FN(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))
FN(CUresult, cuMemFree_v2, (CUdeviceptr))
FN(CUresult, cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))
FN(CUresult, cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))
FN(CUresult, cuMemcpyDtoD_v2, (CUdeviceptr, CUdeviceptr, size_t))
FN(CUresult, cuMemsetD32_v2, (CUdeviceptr, unsigned int, size_t))
FN(CUresult, cuMemHostRegister_v2, (void *, size_t, unsigned int))
FN(CUresult, cuMemHostUnregister, (void *))
FN(CUresult, cuMemAllocHost_v2, (void **, size_t))
FN(CUresult, cuMemFreeHost, (void *))
FN(CUresult, cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void *, size_t, CUstream))
FN(CUresult, cuModuleLoadData, (CUmodule *, const void *))
FN(CUresult, cuModuleUnload, (CUmodule))
FN(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))
FN(CUresult, cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, CUstream, void **, void **))
FN(CUresult, cuStreamCreate, (CUstream *, unsigned int))
FN(CUresult, cuStreamDestroy_v2, (CUstream))
FN(CUresult, cuStreamSynchronize, (CUstream))
FN(CUresult, cuEventCreate, (CUevent *, unsigned int))
FN(CUresult, cuEventDestroy_v2, (CUevent))
FN(CUresult, cuEventRecord, (CUevent, CUstream))
FN(CUresult, cuEventSynchronize, (CUevent))
FN(CUresult, cuEventElapsedTime, (float *, CUevent, CUevent))
FN(CUresult, cuGetErrorString, (CUresult, const char **))
FN(CUresult, cuGetErrorName, (CUresult, const char **))

static int (*p_emu_counters)(unsigned long long *, int);
static void (*p_emu_fail)(const char *, long long, int);
static void (*p_emu_clear)(void);
static void (*p_emu_set_memory)(unsigned long long);

static const char *candidates[] = {
	"libcuda.so.1",
	"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
	"/usr/lib64/libcuda.so.1",
	"/usr/lib/libcuda.so.1",
	"/usr/local/nvidia/lib64/libcuda.so.1",
	"/usr/local/cuda/lib64/stubs/libcuda.so",
	"/usr/lib/wsl/lib/libcuda.so.1",
	NULL,
};

// gm_load: 0 on success; otherwise *why names the failure. GPUMAP_CUDA_LIB,
// when set, names the one library to load (the emulator in tests).
static char why_buf[1024];
static int gm_load(const char **why, char *tried, size_t triedlen) {
	if (lib) return 0;
	tried[0] = 0;
	const char *env = getenv("GPUMAP_CUDA_LIB");
	if (env && *env) {
		lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			snprintf(why_buf, sizeof why_buf, "GPUMAP_CUDA_LIB=%s cannot be loaded: %s", env, dlerror());
			*why = why_buf;
			return 1;
		}
	}
	for (int i = 0; candidates[i] && !lib; i++) {
		lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			strncat(tried, candidates[i], triedlen - strlen(tried) - 1);
			strncat(tried, " ", triedlen - strlen(tried) - 1);
		}
	}
	if (!lib) { *why = "no CUDA driver library found (libcuda.so.1)"; return 1; }
#define SYM(name) if (!(p_##name = dlsym(lib, #name))) { *why = "libcuda lacks " #name; dlclose(lib); lib = NULL; return 2; }
	SYM(cuInit) SYM(cuDriverGetVersion) SYM(cuDeviceGetCount) SYM(cuDeviceGet) SYM(cuDeviceGetName)
	SYM(cuDeviceGetAttribute) SYM(cuDeviceTotalMem_v2) SYM(cuDevicePrimaryCtxRetain)
	SYM(cuDevicePrimaryCtxRelease_v2) SYM(cuCtxSetCurrent) SYM(cuCtxSynchronize) SYM(cuMemGetInfo_v2)
	SYM(cuMemAlloc_v2) SYM(cuMemFree_v2) SYM(cuMemcpyHtoD_v2) SYM(cuMemcpyDtoH_v2) SYM(cuMemcpyDtoD_v2)
	SYM(cuMemsetD32_v2) SYM(cuModuleLoadData) SYM(cuModuleUnload) SYM(cuModuleGetFunction)
	SYM(cuLaunchKernel) SYM(cuStreamCreate) SYM(cuStreamDestroy_v2) SYM(cuStreamSynchronize)
	SYM(cuEventCreate) SYM(cuEventDestroy_v2) SYM(cuEventRecord) SYM(cuEventSynchronize)
	SYM(cuMemHostRegister_v2) SYM(cuMemHostUnregister) SYM(cuMemAllocHost_v2) SYM(cuMemFreeHost)
	SYM(cuMemcpyHtoDAsync_v2)
	SYM(cuEventElapsedTime) SYM(cuGetErrorString) SYM(cuGetErrorName)
	// The emulator's controls (tests/cudaemu); absent from real drivers.
	p_emu_counters = dlsym(lib, "cudaemu_counters");
	p_emu_fail = dlsym(lib, "cudaemu_fail");
	p_emu_clear = dlsym(lib, "cudaemu_clear_failures");
	p_emu_set_memory = dlsym(lib, "cudaemu_set_memory");
	return 0;
}

static CUresult gm_init(void) { return p_cuInit(0); }
static CUresult gm_driver_version(int *v) { return p_cuDriverGetVersion(v); }
static CUresult gm_device_count(int *n) { return p_cuDeviceGetCount(n); }
static CUresult gm_device_get(CUdevice *d, int i) { return p_cuDeviceGet(d, i); }
static CUresult gm_device_name(char *b, int n, CUdevice d) { return p_cuDeviceGetName(b, n, d); }
static CUresult gm_device_attr(int *v, int a, CUdevice d) { return p_cuDeviceGetAttribute(v, a, d); }
static CUresult gm_device_mem(size_t *b, CUdevice d) { return p_cuDeviceTotalMem_v2(b, d); }
static CUresult gm_ctx_retain(CUcontext *c, CUdevice d) { return p_cuDevicePrimaryCtxRetain(c, d); }
static CUresult gm_ctx_release(CUdevice d) { return p_cuDevicePrimaryCtxRelease_v2(d); }
static CUresult gm_ctx_set(CUcontext c) { return p_cuCtxSetCurrent(c); }
static CUresult gm_ctx_sync(void) { return p_cuCtxSynchronize(); }
static CUresult gm_mem_info(size_t *f, size_t *t) { return p_cuMemGetInfo_v2(f, t); }
static CUresult gm_alloc(CUdeviceptr *p, size_t n) { return p_cuMemAlloc_v2(p, n); }
static CUresult gm_free(CUdeviceptr p) { return p_cuMemFree_v2(p); }
static CUresult gm_htod(CUdeviceptr d, const void *h, size_t n) { return p_cuMemcpyHtoD_v2(d, h, n); }
static CUresult gm_dtoh(void *h, CUdeviceptr d, size_t n) { return p_cuMemcpyDtoH_v2(h, d, n); }
static CUresult gm_dtod(CUdeviceptr a, CUdeviceptr b, size_t n) { return p_cuMemcpyDtoD_v2(a, b, n); }
static CUresult gm_memset32(CUdeviceptr d, unsigned v, size_t n) { return p_cuMemsetD32_v2(d, v, n); }
// The page-aligned start lies before p's Go allocation: it is computed here,
// in C, because Go's checkptr (-race) rejects a Go pointer moved outside its
// allocation even if only C ever uses it.
static CUresult gm_host_register(void *p, size_t head, size_t n) { return p_cuMemHostRegister_v2((char *)p - head, n, 0); }
static CUresult gm_host_unregister(void *p, size_t head) { return p_cuMemHostUnregister((char *)p - head); }
static CUresult gm_alloc_host(void **p, size_t n) { return p_cuMemAllocHost_v2(p, n); }
static CUresult gm_free_host(void *p) { return p_cuMemFreeHost(p); }
static CUresult gm_htod_async(CUdeviceptr d, const void *h, size_t n, CUstream s) {
	return p_cuMemcpyHtoDAsync_v2(d, h, n, s);
}
int gm_emu_counters(unsigned long long *out, int n) { return p_emu_counters ? p_emu_counters(out, n) : -1; }
int gm_emu_fail(const char *call, long long nth, int code) {
	if (!p_emu_fail) return -1;
	p_emu_fail(call, nth, code);
	return 0;
}
int gm_emu_clear(void) {
	if (!p_emu_clear) return -1;
	p_emu_clear();
	return 0;
}
int gm_emu_set_memory(unsigned long long b) {
	if (!p_emu_set_memory) return -1;
	p_emu_set_memory(b);
	return 0;
}
static CUresult gm_module_load(CUmodule *m, const void *img) { return p_cuModuleLoadData(m, img); }
static CUresult gm_module_unload(CUmodule m) { return p_cuModuleUnload(m); }
static CUresult gm_function(CUfunction *f, CUmodule m, const char *n) { return p_cuModuleGetFunction(f, m, n); }
CUresult gm_launch_ptr(CUfunction f, unsigned gx, unsigned bx, unsigned shared, CUstream s, void **args) {
	return p_cuLaunchKernel(f, gx, 1, 1, bx, 1, 1, shared, s, args, NULL);
}
static CUresult gm_stream_create(CUstream *s) { return p_cuStreamCreate(s, 0); } // blocking stream
static CUresult gm_stream_destroy(CUstream s) { return p_cuStreamDestroy_v2(s); }
static CUresult gm_stream_sync(CUstream s) { return p_cuStreamSynchronize(s); }
static CUresult gm_event_create(CUevent *e) { return p_cuEventCreate(e, 0); }
static CUresult gm_event_create_sync(CUevent *e) { return p_cuEventCreate(e, 2); } // CU_EVENT_DISABLE_TIMING
static CUresult gm_event_destroy(CUevent e) { return p_cuEventDestroy_v2(e); }
static CUresult gm_event_record(CUevent e, CUstream s) { return p_cuEventRecord(e, s); }
static CUresult gm_event_sync(CUevent e) { return p_cuEventSynchronize(e); }
static CUresult gm_event_elapsed(float *ms, CUevent a, CUevent b) { return p_cuEventElapsedTime(ms, a, b); }
static const char *gm_error(CUresult r) {
	const char *s = NULL, *n = NULL;
	if (!lib) return "CUDA driver not loaded";
	p_cuGetErrorName(r, &n);
	p_cuGetErrorString(r, &s);
	return s ? s : (n ? n : "unknown CUDA error");
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// Error is a failed driver call.
type Error struct {
	Call string
	Code int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (CUDA error %d)", e.Call, e.Msg, e.Code) }

func check(call string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return &Error{Call: call, Code: int(r), Msg: C.GoString(C.gm_error(r))}
}

// ErrUnavailable wraps every reason why no GPU can be used.
var ErrUnavailable = errors.New("CUDA unavailable")

var (
	loadOnce sync.Once
	loadErr  error
)

// Load opens the driver library and initialises CUDA once per process.
func Load() error {
	loadOnce.Do(func() {
		var why *C.char
		tried := make([]byte, 1024)
		if C.gm_load(&why, (*C.char)(unsafe.Pointer(&tried[0])), C.size_t(len(tried))) != 0 {
			t := strings.TrimSpace(string(tried[:clen(tried)]))
			if t != "" {
				t = " (tried " + t + ")"
			}
			loadErr = fmt.Errorf("%w: %s%s", ErrUnavailable, C.GoString(why), t)
			return
		}
		if err := check("cuInit", C.gm_init()); err != nil {
			loadErr = fmt.Errorf("%w: the CUDA driver found no usable device: %v", ErrUnavailable, err)
		}
	})
	return loadErr
}

func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

// DriverVersion is the driver's CUDA version (e.g. 13000 for 13.0).
func DriverVersion() (int, error) {
	var v C.int
	err := check("cuDriverGetVersion", C.gm_driver_version(&v))
	return int(v), err
}

// Device is one GPU.
type Device struct {
	id           C.CUdevice
	Name         string
	Major, Minor int // compute capability
	TotalMem     uint64
	SMs          int
}

const (
	attrSMs   = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	attrMajor = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrMinor = 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
)

// Devices lists the GPUs.
func Devices() ([]Device, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	var n C.int
	if err := check("cuDeviceGetCount", C.gm_device_count(&n)); err != nil {
		return nil, err
	}
	out := make([]Device, 0, int(n))
	for i := 0; i < int(n); i++ {
		var d Device
		if err := check("cuDeviceGet", C.gm_device_get(&d.id, C.int(i))); err != nil {
			return nil, err
		}
		name := make([]byte, 256)
		C.gm_device_name((*C.char)(unsafe.Pointer(&name[0])), C.int(len(name)), d.id)
		d.Name = string(name[:clen(name)])
		var v C.int
		C.gm_device_attr(&v, attrMajor, d.id)
		d.Major = int(v)
		C.gm_device_attr(&v, attrMinor, d.id)
		d.Minor = int(v)
		C.gm_device_attr(&v, attrSMs, d.id)
		d.SMs = int(v)
		var mem C.size_t
		C.gm_device_mem(&mem, d.id)
		d.TotalMem = uint64(mem)
		out = append(out, d)
	}
	return out, nil
}

// Context is a device's primary context.
type Context struct {
	dev Device
	ctx C.CUcontext
}

// Retain retains d's primary context and makes it current on the calling
// thread.
func Retain(d Device) (*Context, error) {
	c := &Context{dev: d}
	if err := check("cuDevicePrimaryCtxRetain", C.gm_ctx_retain(&c.ctx, d.id)); err != nil {
		return nil, err
	}
	return c, c.MakeCurrent()
}

// MakeCurrent binds the context to the calling OS thread.
func (c *Context) MakeCurrent() error { return check("cuCtxSetCurrent", C.gm_ctx_set(c.ctx)) }

// Release drops the primary context.
func (c *Context) Release() error {
	return check("cuDevicePrimaryCtxRelease", C.gm_ctx_release(c.dev.id))
}

// Synchronize waits for all work of the current context.
func Synchronize() error { return check("cuCtxSynchronize", C.gm_ctx_sync()) }

// MemInfo returns free and total device memory in bytes.
func MemInfo() (free, total uint64, err error) {
	var f, t C.size_t
	err = check("cuMemGetInfo", C.gm_mem_info(&f, &t))
	return uint64(f), uint64(t), err
}

// Ptr is a device address.
type Ptr uint64

// Alloc allocates n bytes of device memory (at least 4).
func Alloc(n uint64) (Ptr, error) {
	var p C.CUdeviceptr
	err := check("cuMemAlloc", C.gm_alloc(&p, C.size_t(max(n, 4))))
	return Ptr(p), err
}

// Free releases device memory.
func Free(p Ptr) error {
	if p == 0 {
		return nil
	}
	return check("cuMemFree", C.gm_free(C.CUdeviceptr(p)))
}

// CopyIn copies n bytes from host memory at src to the device.
func CopyIn(dst Ptr, src unsafe.Pointer, n uint64) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyHtoD", C.gm_htod(C.CUdeviceptr(dst), src, C.size_t(n)))
}

// CopyOut copies n bytes from the device to host memory at dst.
func CopyOut(dst unsafe.Pointer, src Ptr, n uint64) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyDtoH", C.gm_dtoh(dst, C.CUdeviceptr(src), C.size_t(n)))
}

// Copy copies n bytes within the device.
func Copy(dst, src Ptr, n uint64) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyDtoD", C.gm_dtod(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n)))
}

// Fill32 sets n 32-bit words at p to v.
func Fill32(p Ptr, v uint32, n uint64) error {
	if n == 0 {
		return nil
	}
	return check("cuMemsetD32", C.gm_memset32(C.CUdeviceptr(p), C.uint(v), C.size_t(n)))
}

// Module is loaded PTX.
type Module struct{ m C.CUmodule }

// LoadPTX JIT-compiles PTX text for the current device.
func LoadPTX(ptx string) (*Module, error) {
	cs := C.CString(ptx)
	defer C.free(unsafe.Pointer(cs))
	var m Module
	if err := check("cuModuleLoadData", C.gm_module_load(&m.m, unsafe.Pointer(cs))); err != nil {
		return nil, err
	}
	return &m, nil
}

// Unload releases the module.
func (m *Module) Unload() error { return check("cuModuleUnload", C.gm_module_unload(m.m)) }

// Function is a kernel.
type Function struct {
	f    C.CUfunction
	name string
}

// Function looks a kernel up by name.
func (m *Module) Function(name string) (*Function, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	f := &Function{name: name}
	if err := check("cuModuleGetFunction("+name+")", C.gm_function(&f.f, m.m, cs)); err != nil {
		return nil, err
	}
	return f, nil
}

// Stream is a CUDA stream. It is a blocking stream: the synchronous copies
// (which use the legacy default stream) are ordered with its kernels.
type Stream struct{ s C.CUstream }

// NewStream creates a stream.
func NewStream() (*Stream, error) {
	var s Stream
	err := check("cuStreamCreate", C.gm_stream_create(&s.s))
	return &s, err
}

// Synchronize waits for the stream.
func (s *Stream) Synchronize() error { return check("cuStreamSynchronize", C.gm_stream_sync(s.s)) }

// Destroy releases the stream.
func (s *Stream) Destroy() error { return check("cuStreamDestroy", C.gm_stream_destroy(s.s)) }

// Event marks a point in a stream, for timing.
type Event struct{ e C.CUevent }

// NewEvent creates an event.
func NewEvent() (*Event, error) {
	var e Event
	err := check("cuEventCreate", C.gm_event_create(&e.e))
	return &e, err
}

// NewSyncEvent creates an event that only marks a point to wait for (no
// timing: cheaper to record and to wait for).
func NewSyncEvent() (*Event, error) {
	var e Event
	err := check("cuEventCreate", C.gm_event_create_sync(&e.e))
	return &e, err
}

// Synchronize waits until the work recorded before the event is done.
func (e *Event) Synchronize() error { return check("cuEventSynchronize", C.gm_event_sync(e.e)) }

// Record records the event on s.
func (e *Event) Record(s *Stream) error { return check("cuEventRecord", C.gm_event_record(e.e, s.s)) }

// Elapsed returns the milliseconds between two recorded events.
func Elapsed(a, b *Event) (float32, error) {
	if err := check("cuEventSynchronize", C.gm_event_sync(b.e)); err != nil {
		return 0, err
	}
	var ms C.float
	err := check("cuEventElapsedTime", C.gm_event_elapsed(&ms, a.e, b.e))
	return float32(ms), err
}

// Destroy releases the event.
func (e *Event) Destroy() error { return check("cuEventDestroy", C.gm_event_destroy(e.e)) }

// RegisterHost page-locks n bytes of host memory from head bytes before p
// for fast copies (cuMemHostRegister); UnregisterHost, given the same p and
// head, undoes it. The memory must stay
// alive and unmoved until then (Go heap memory does not move).
func RegisterHost(p unsafe.Pointer, head uintptr, n uint64) error {
	return check("cuMemHostRegister", C.gm_host_register(p, C.size_t(head), C.size_t(n)))
}

// UnregisterHost releases a registration made by RegisterHost.
func UnregisterHost(p unsafe.Pointer, head uintptr) error {
	return check("cuMemHostUnregister", C.gm_host_unregister(p, C.size_t(head)))
}

// AllocHost allocates n bytes of page-locked host memory
// (cuMemAllocHost): copies from it run at the bus's pinned rate and
// asynchronously. FreeHost releases it.
func AllocHost(n uint64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := check("cuMemAllocHost", C.gm_alloc_host(&p, C.size_t(max(n, 4))))
	return p, err
}

// FreeHost releases memory allocated by AllocHost.
func FreeHost(p unsafe.Pointer) error {
	if p == nil {
		return nil
	}
	return check("cuMemFreeHost", C.gm_free_host(p))
}

// CopyInAsync queues a copy of n bytes from host memory at src to the
// device on s and returns at once: src must be page-locked (AllocHost) and
// must not change until the copy is done (an event recorded after it, or
// the stream, synchronised).
func CopyInAsync(dst Ptr, src unsafe.Pointer, n uint64, s *Stream) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyHtoDAsync", C.gm_htod_async(C.CUdeviceptr(dst), src, C.size_t(n), s.s))
}
