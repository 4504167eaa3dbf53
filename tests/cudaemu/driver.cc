// driver.cc: the CUDA driver API entry points gpumap's binding loads, with
// the real signatures and error codes, over host memory.
//
//   - one device (cudaemu), compute capability 8.0, GPUMAP_CUDAEMU_SMS
//     multiprocessors (2), GPUMAP_CUDAEMU_MEM_MIB of memory (8192);
//   - a context is current per OS thread: every call that needs one fails
//     with CUDA_ERROR_INVALID_CONTEXT on a thread where none was made
//     current, and with CUDA_ERROR_CONTEXT_IS_DESTROYED after the last
//     release of the primary context;
//   - every copy and memset is checked against the live allocations;
//     allocations are filled with garbage and fenced by canaries that are
//     checked at every synchronisation and free (a kernel that wrote out
//     of bounds fails the next synchronisation with
//     CUDA_ERROR_ILLEGAL_ADDRESS); pointer arguments of a launch must
//     point into live allocations;
//   - cuModuleLoadData accepts only PTX whose first line carries the
//     SHA-256 of the gpumap.cu the emulator was built from;
//   - launches run to completion before cuLaunchKernel returns (exec.cc);
//   - cuMemcpyHtoDAsync only queues its copy: the bytes are read from the
//     host when the copy must have happened (a synchronisation of its
//     stream or context, of an event recorded after it, or any other call
//     that touches device memory), so a host buffer that its caller reuses
//     before waiting for the copy reaches the device changed;
//   - counters (launches, synchronisations, copies and bytes each way,
//     allocations, errors, per-kernel time) are printed on stderr when the
//     primary context is destroyed and at unload when
//     GPUMAP_CUDAEMU_STATS=1, and read by cudaemu_counters;
//   - cudaemu_fail (or GPUMAP_CUDAEMU_FAIL=call:nth[:code],...) makes the
//     nth next call of an entry point fail, for tests of error paths.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "emu.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;

enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_INITIALIZED = 3,
    NO_DEVICE = 100,
    INVALID_DEVICE = 101,
    INVALID_IMAGE = 200,
    INVALID_CONTEXT = 201,
    INVALID_PTX = 218,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    ILLEGAL_ADDRESS = 700,
    LAUNCH_OUT_OF_RESOURCES = 701,
    CONTEXT_IS_DESTROYED = 709,
    HOST_MEMORY_ALREADY_REGISTERED = 712,
    HOST_MEMORY_NOT_REGISTERED = 713,
    LAUNCH_FAILED = 719,
    NOT_SUPPORTED = 801,
    UNKNOWN = 999,
};

#ifndef EMU_SOURCE_SHA
#error "build with -DEMU_SOURCE_SHA=\"<sha256 of gpumap.cu>\""
#endif

namespace {

const size_t CANARY = 256; // bytes before and after every allocation (keeps 256-byte alignment)
const unsigned char CANARY_BYTE = 0xa5, GARBAGE_BYTE = 0xcb;

struct Alloc {
    size_t size;
    unsigned char *raw;
};

struct KernelStats {
    uint64_t launches = 0, blocks = 0, ns = 0;
};

struct Counters {
    uint64_t launches, team_launches, syncs, h2d, h2d_bytes, h2d_pinned_bytes, d2h, d2h_bytes, d2d, d2d_bytes,
        memsets, memset_bytes, allocs, frees, live_bytes, peak_bytes, errors, ctx_retains, ctx_releases,
        host_registers, host_allocs, host_frees, host_live_bytes, h2d_async;
};

std::mutex mu;                       // guards everything below
bool inited = false;
int refcount = 0;                    // primary context retains
int generation = 0;                  // bumps at every activation of the primary context
std::map<uintptr_t, Alloc> allocs;   // device memory by address
std::map<uintptr_t, size_t> pinned;  // registered or allocated host memory
std::set<uintptr_t> host_allocs;     // cuMemAllocHost blocks
std::set<void *> modules, streams, events;
// An event: when it was recorded, and how many asynchronous copies had
// been queued by then (cuEventSynchronize runs those).
struct Event {
    uint64_t t, copies;
};
// Asynchronous copies queued and not yet run, in order; queued counts
// every copy ever queued, run those that ran.
struct AsyncCopy {
    uintptr_t dst;
    const void *src;
    size_t n;
};
std::vector<AsyncCopy> async_queue;
uint64_t async_queued = 0, async_run = 0;
struct Function {
    int index;
    const emu_kernel *k;
    void *module;
};
std::set<void *> functions;
std::map<std::string, KernelStats> kstats;
Counters c{};
uint64_t chaos_seed = 0, launch_no = 0;
size_t mem_total = 8192ull << 20;
int sms = 2;
bool stats_on = false;
bool printed_since_change = true;

struct Fail {
    std::string call;
    long long nth;
    int code;
};
std::vector<Fail> fails;

// The primary context: a handle and the generation it was activated in.
struct Ctx {
    int generation;
} primary;
thread_local const Ctx *current = nullptr;
thread_local int current_generation = -1;

int fail_code(const char *call) {
    for (size_t i = 0; i < fails.size(); i++)
        if (fails[i].call == call && --fails[i].nth <= 0) {
            int code = fails[i].code;
            fails.erase(fails.begin() + i);
            return code;
        }
    return 0;
}

CUresult ret(CUresult r) {
    if (r != SUCCESS) c.errors++;
    return r;
}

void note(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cudaemu: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

// enter: the checks every context-bound call makes (lock held).
CUresult enter(const char *call) {
    if (!inited) return NOT_INITIALIZED;
    if (int code = fail_code(call)) return code;
    if (!current) return INVALID_CONTEXT;
    if (refcount == 0 || current_generation != generation) return CONTEXT_IS_DESTROYED;
    return SUCCESS;
}

// find returns the allocation holding [p, p+n), or null.
const Alloc *find(uintptr_t p, size_t n) {
    auto it = allocs.upper_bound(p);
    if (it == allocs.begin()) return nullptr;
    --it;
    if (p < it->first || n > it->second.size || p - it->first > it->second.size - n) return nullptr;
    return &it->second;
}

bool is_pinned(const void *h, size_t n) {
    uintptr_t p = uintptr_t(h);
    auto it = pinned.upper_bound(p);
    if (it == pinned.begin()) return false;
    --it;
    return p >= it->first && p - it->first <= it->second && n <= it->second - (p - it->first);
}

bool canaries_ok(uintptr_t base, const Alloc &a) {
    for (size_t i = 0; i < CANARY; i++)
        if (a.raw[i] != CANARY_BYTE || a.raw[CANARY + a.size + i] != CANARY_BYTE) {
            note("a kernel wrote outside allocation 0x%lx (%zu bytes): canary %s the block damaged", (unsigned long)base,
                 a.size, a.raw[i] != CANARY_BYTE ? "before" : "after");
            return false;
        }
    return true;
}

bool all_canaries_ok() {
    bool ok = true;
    for (auto &kv : allocs) ok = canaries_ok(kv.first, kv.second) && ok;
    return ok;
}

// run_async runs the queued asynchronous copies up to the upto-th ever
// queued (lock held).
void run_async(uint64_t upto) {
    size_t k = 0;
    for (; k < async_queue.size() && async_run < upto; k++, async_run++)
        memcpy((void *)async_queue[k].dst, async_queue[k].src, async_queue[k].n);
    async_queue.erase(async_queue.begin(), async_queue.begin() + long(k));
}

void run_all_async() { run_async(async_queued); }

void free_alloc(std::map<uintptr_t, Alloc>::iterator it) {
    c.live_bytes -= it->second.size;
    c.frees++;
    free(it->second.raw);
    allocs.erase(it);
}

void print_stats(const char *when) {
    if (!stats_on || printed_since_change) return;
    printed_since_change = true;
    fprintf(stderr,
            "cudaemu: %s: launches=%llu (team %llu) syncs=%llu h2d=%llu copies %llu bytes (pinned %llu) d2h=%llu copies "
            "%llu bytes d2d=%llu copies %llu bytes memsets=%llu (%llu bytes) allocs=%llu frees=%llu peak=%llu bytes "
            "live=%llu bytes errors=%llu barriers=%llu workers=%d\n",
            when, (unsigned long long)c.launches, (unsigned long long)c.team_launches, (unsigned long long)c.syncs,
            (unsigned long long)c.h2d, (unsigned long long)c.h2d_bytes, (unsigned long long)c.h2d_pinned_bytes,
            (unsigned long long)c.d2h, (unsigned long long)c.d2h_bytes, (unsigned long long)c.d2d,
            (unsigned long long)c.d2d_bytes, (unsigned long long)c.memsets, (unsigned long long)c.memset_bytes,
            (unsigned long long)c.allocs, (unsigned long long)c.frees, (unsigned long long)c.peak_bytes,
            (unsigned long long)c.live_bytes, (unsigned long long)c.errors, (unsigned long long)emu_barriers(),
            emu_workers());
    for (auto &kv : kstats)
        fprintf(stderr, "cudaemu:   %-18s launches=%-7llu blocks=%-9llu host_ms=%.1f\n", kv.first.c_str(),
                (unsigned long long)kv.second.launches, (unsigned long long)kv.second.blocks, kv.second.ns / 1e6);
}

uint64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

long long env_ll(const char *name, long long def) {
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    long long x = strtoll(v, &end, 0);
    if (*end) {
        note("ignoring %s=%s (not a number)", name, v);
        return def;
    }
    return x;
}

__attribute__((constructor)) void load() {
    stats_on = getenv("GPUMAP_CUDAEMU_STATS") && !strcmp(getenv("GPUMAP_CUDAEMU_STATS"), "1");
    mem_total = size_t(env_ll("GPUMAP_CUDAEMU_MEM_MIB", 8192)) << 20;
    sms = int(env_ll("GPUMAP_CUDAEMU_SMS", 2));
    if (sms < 1) sms = 1;
    chaos_seed = uint64_t(env_ll("GPUMAP_CUDAEMU_SEED", (long long)now_ns()));
    if (const char *f = getenv("GPUMAP_CUDAEMU_FAIL")) { // call:nth[:code],...
        std::string s(f);
        size_t pos = 0;
        while (pos < s.size()) {
            size_t end = s.find(',', pos);
            std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
            pos = end == std::string::npos ? s.size() : end + 1;
            size_t a = item.find(':');
            if (a == std::string::npos) continue;
            size_t b = item.find(':', a + 1);
            Fail x{item.substr(0, a), atoll(item.substr(a + 1, b - a - 1).c_str()), OUT_OF_MEMORY};
            if (b != std::string::npos) x.code = atoi(item.substr(b + 1).c_str());
            fails.push_back(x);
        }
    }
}

__attribute__((destructor)) void unload() {
    std::lock_guard<std::mutex> g(mu);
    print_stats("unload");
}

} // namespace

#define API extern "C" __attribute__((visibility("default")))
#define LOCK std::lock_guard<std::mutex> lock_(mu)
#define ENTER(call)                                                                                                \
    LOCK;                                                                                                          \
    if (CUresult r_ = enter(call)) return ret(r_)

// ------------------------------------------------------------ devices ---

API CUresult cuInit(unsigned int flags) {
    LOCK;
    if (int code = fail_code("cuInit")) return ret(code);
    if (flags != 0) return ret(INVALID_VALUE);
    inited = true;
    return SUCCESS;
}

API CUresult cuDriverGetVersion(int *v) {
    if (!v) return ret(INVALID_VALUE);
    *v = 12000;
    return SUCCESS;
}

API CUresult cuDeviceGetCount(int *n) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (!n) return ret(INVALID_VALUE);
    *n = 1;
    return SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (!d) return ret(INVALID_VALUE);
    if (ordinal != 0) return ret(INVALID_DEVICE);
    *d = 0;
    return SUCCESS;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (d != 0) return ret(INVALID_DEVICE);
    if (!name || len <= 0) return ret(INVALID_VALUE);
    snprintf(name, size_t(len), "cudaemu (emulated CUDA on the host)");
    return SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (d != 0) return ret(INVALID_DEVICE);
    if (!v) return ret(INVALID_VALUE);
    switch (attr) {
    case 1: *v = 1024; break;                       // max threads per block
    case 2: *v = 1024; break;                       // max block dim x
    case 3: case 4: *v = attr == 3 ? 1024 : 64; break;
    case 5: *v = 2147483647; break;                 // max grid dim x
    case 6: case 7: *v = 65535; break;
    case 8: *v = 48 << 10; break;                   // shared memory per block
    case 10: *v = 32; break;                        // warp size
    case 16: *v = sms; break;                       // multiprocessors
    case 39: *v = 2048; break;                      // threads per multiprocessor
    case 75: *v = 8; break;                         // compute capability
    case 76: *v = 0; break;
    default: *v = 0;
    }
    return SUCCESS;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (d != 0) return ret(INVALID_DEVICE);
    if (!bytes) return ret(INVALID_VALUE);
    *bytes = mem_total;
    return SUCCESS;
}

// ----------------------------------------------------------- contexts ---

API CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (int code = fail_code("cuDevicePrimaryCtxRetain")) return ret(code);
    if (d != 0) return ret(INVALID_DEVICE);
    if (!ctx) return ret(INVALID_VALUE);
    if (refcount++ == 0) generation++;
    c.ctx_retains++;
    printed_since_change = false;
    *ctx = (CUcontext)&primary;
    return SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (d != 0) return ret(INVALID_DEVICE);
    if (refcount == 0) {
        note("cuDevicePrimaryCtxRelease: the primary context is not retained (released twice?)");
        return ret(INVALID_CONTEXT);
    }
    c.ctx_releases++;
    if (--refcount > 0) return SUCCESS;
    // The context dies with everything in it.
    if (!allocs.empty()) {
        note("context destroyed with %zu allocations (%llu bytes) still live", allocs.size(),
             (unsigned long long)c.live_bytes);
        all_canaries_ok();
        while (!allocs.empty()) free_alloc(allocs.begin());
    }
    async_queue.clear(); // their memory is gone
    async_run = async_queued;
    if (!host_allocs.empty()) {
        note("context destroyed with %zu page-locked host allocations still live", host_allocs.size());
        for (uintptr_t h : host_allocs) {
            pinned.erase(h);
            c.host_frees++;
            free((void *)h);
        }
        host_allocs.clear();
        c.host_live_bytes = 0;
    }
    modules.clear();
    functions.clear();
    streams.clear();
    events.clear();
    print_stats("context destroyed");
    return SUCCESS;
}

API CUresult cuCtxSetCurrent(CUcontext ctx) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (int code = fail_code("cuCtxSetCurrent")) return ret(code);
    if (ctx == nullptr) {
        current = nullptr;
        return SUCCESS;
    }
    if (ctx != (CUcontext)&primary) return ret(INVALID_CONTEXT);
    if (refcount == 0) return ret(CONTEXT_IS_DESTROYED);
    current = &primary;
    current_generation = generation;
    return SUCCESS;
}

API CUresult cuCtxGetCurrent(CUcontext *ctx) {
    LOCK;
    if (!inited) return ret(NOT_INITIALIZED);
    if (!ctx) return ret(INVALID_VALUE);
    *ctx = (CUcontext)current;
    return SUCCESS;
}

API CUresult cuCtxSynchronize(void) {
    ENTER("cuCtxSynchronize");
    run_all_async();
    c.syncs++;
    return all_canaries_ok() ? SUCCESS : ret(ILLEGAL_ADDRESS);
}

// ------------------------------------------------------------- memory ---

API CUresult cuMemGetInfo_v2(size_t *free_, size_t *total) {
    ENTER("cuMemGetInfo_v2");
    if (!free_ || !total) return ret(INVALID_VALUE);
    *total = mem_total;
    *free_ = mem_total - c.live_bytes;
    return SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    ENTER("cuMemAlloc_v2");
    if (!p || n == 0) return ret(INVALID_VALUE);
    if (n > mem_total - c.live_bytes) return ret(OUT_OF_MEMORY);
    unsigned char *raw = (unsigned char *)aligned_alloc(CANARY, CANARY + ((n + CANARY - 1) / CANARY) * CANARY + CANARY);
    if (!raw) return ret(OUT_OF_MEMORY);
    memset(raw, CANARY_BYTE, CANARY);
    memset(raw + CANARY, GARBAGE_BYTE, n); // device memory starts undefined
    memset(raw + CANARY + n, CANARY_BYTE, CANARY);
    uintptr_t base = uintptr_t(raw + CANARY);
    allocs[base] = Alloc{n, raw};
    c.allocs++;
    c.live_bytes += n;
    if (c.live_bytes > c.peak_bytes) c.peak_bytes = c.live_bytes;
    printed_since_change = false;
    *p = base;
    return SUCCESS;
}

API CUresult cuMemFree_v2(CUdeviceptr p) {
    ENTER("cuMemFree_v2");
    run_all_async();
    auto it = allocs.find(uintptr_t(p));
    if (it == allocs.end()) {
        note("cuMemFree: 0x%llx is not the start of a live allocation", (unsigned long long)p);
        return ret(INVALID_VALUE);
    }
    bool ok = canaries_ok(it->first, it->second);
    free_alloc(it);
    return ok ? SUCCESS : ret(ILLEGAL_ADDRESS);
}

static CUresult bad_range(const char *call, const char *what, unsigned long long p, size_t n) {
    note("%s: %s [0x%llx, +%zu) is not inside one live allocation", call, what, p, n);
    return ret(INVALID_VALUE);
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    ENTER("cuMemcpyHtoD_v2");
    run_all_async();
    if (n == 0) return SUCCESS;
    if (!src) return ret(INVALID_VALUE);
    if (!find(dst, n)) return bad_range("cuMemcpyHtoD", "destination", dst, n);
    memcpy((void *)dst, src, n);
    c.h2d++;
    c.h2d_bytes += n;
    if (is_pinned(src, n)) c.h2d_pinned_bytes += n;
    printed_since_change = false;
    return SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    ENTER("cuMemcpyHtoDAsync_v2");
    if (s && !streams.count(s)) return ret(INVALID_HANDLE);
    if (n == 0) return SUCCESS;
    if (!src) return ret(INVALID_VALUE);
    if (!find(dst, n)) return bad_range("cuMemcpyHtoDAsync", "destination", dst, n);
    async_queue.push_back(AsyncCopy{uintptr_t(dst), src, n});
    async_queued++;
    c.h2d++;
    c.h2d_async++;
    c.h2d_bytes += n;
    if (is_pinned(src, n)) c.h2d_pinned_bytes += n;
    printed_since_change = false;
    return SUCCESS;
}

API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    ENTER("cuMemcpyDtoH_v2");
    run_all_async();
    if (n == 0) return SUCCESS;
    if (!dst) return ret(INVALID_VALUE);
    if (!find(src, n)) return bad_range("cuMemcpyDtoH", "source", src, n);
    memcpy(dst, (const void *)src, n);
    c.d2h++;
    c.d2h_bytes += n;
    printed_since_change = false;
    return SUCCESS;
}

API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    ENTER("cuMemcpyDtoD_v2");
    run_all_async();
    if (n == 0) return SUCCESS;
    if (!find(dst, n)) return bad_range("cuMemcpyDtoD", "destination", dst, n);
    if (!find(src, n)) return bad_range("cuMemcpyDtoD", "source", src, n);
    memmove((void *)dst, (const void *)src, n);
    c.d2d++;
    c.d2d_bytes += n;
    printed_since_change = false;
    return SUCCESS;
}

API CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n) {
    ENTER("cuMemsetD32_v2");
    run_all_async();
    if (n == 0) return SUCCESS;
    if (dst % 4) return ret(INVALID_VALUE);
    if (n > SIZE_MAX / 4 || !find(dst, 4 * n)) return bad_range("cuMemsetD32", "destination", dst, 4 * n);
    unsigned int *p = (unsigned int *)dst;
    for (size_t i = 0; i < n; i++) p[i] = v;
    c.memsets++;
    c.memset_bytes += 4 * n;
    printed_since_change = false;
    return SUCCESS;
}

API CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) {
    ENTER("cuMemHostRegister_v2");
    (void)flags;
    if (!p || n == 0) return ret(INVALID_VALUE);
    uintptr_t a = uintptr_t(p);
    auto it = pinned.upper_bound(a + n - 1);
    if (it != pinned.begin()) {
        --it;
        if (it->first + it->second > a) return ret(HOST_MEMORY_ALREADY_REGISTERED);
    }
    pinned[a] = n;
    c.host_registers++;
    return SUCCESS;
}

API CUresult cuMemHostUnregister(void *p) {
    ENTER("cuMemHostUnregister");
    run_all_async();
    auto it = pinned.find(uintptr_t(p));
    if (it == pinned.end() || host_allocs.count(uintptr_t(p))) return ret(HOST_MEMORY_NOT_REGISTERED);
    pinned.erase(it);
    return SUCCESS;
}

API CUresult cuMemAllocHost_v2(void **p, size_t n) {
    ENTER("cuMemAllocHost_v2");
    if (!p || n == 0) return ret(INVALID_VALUE);
    void *h = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    if (!h) return ret(OUT_OF_MEMORY);
    pinned[uintptr_t(h)] = n;
    host_allocs.insert(uintptr_t(h));
    c.host_allocs++;
    c.host_live_bytes += n;
    *p = h;
    return SUCCESS;
}

API CUresult cuMemFreeHost(void *p) {
    ENTER("cuMemFreeHost");
    run_all_async();
    if (!host_allocs.erase(uintptr_t(p))) return ret(INVALID_VALUE);
    c.host_frees++;
    c.host_live_bytes -= pinned[uintptr_t(p)];
    pinned.erase(uintptr_t(p));
    free(p);
    return SUCCESS;
}

// ------------------------------------------------------------ modules ---

API CUresult cuModuleLoadData(CUmodule *m, const void *image) {
    ENTER("cuModuleLoadData");
    if (!m || !image) return ret(INVALID_VALUE);
    const char *want = "// gpumap.cu sha256 " EMU_SOURCE_SHA "\n";
    if (strncmp((const char *)image, want, strlen(want)) != 0) {
        note("cuModuleLoadData: the PTX was not generated from the gpumap.cu this emulator was built from "
             "(want a first line \"// gpumap.cu sha256 %s\"; run make ptx, then make cudaemu)",
             EMU_SOURCE_SHA);
        return ret(INVALID_PTX);
    }
    std::string *mod = new std::string((const char *)image);
    modules.insert(mod);
    *m = mod;
    return SUCCESS;
}

API CUresult cuModuleUnload(CUmodule m) {
    ENTER("cuModuleUnload");
    if (!modules.erase(m)) return ret(INVALID_HANDLE);
    for (auto it = functions.begin(); it != functions.end();) {
        Function *f = (Function *)*it;
        if (f->module == m) {
            delete f;
            it = functions.erase(it);
        } else {
            ++it;
        }
    }
    delete (std::string *)m;
    return SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
    ENTER("cuModuleGetFunction");
    if (!f || !name) return ret(INVALID_VALUE);
    if (!modules.count(m)) return ret(INVALID_HANDLE);
    std::string entry = std::string(".entry ") + name + "(";
    if (((std::string *)m)->find(entry) == std::string::npos) return ret(NOT_FOUND);
    for (int i = 0; emu_table_0[i].name; i++)
        if (!strcmp(emu_table_0[i].name, name)) {
            Function *fn = new Function{i, &emu_table_0[i], m};
            functions.insert(fn);
            *f = fn;
            return SUCCESS;
        }
    return ret(NOT_FOUND);
}

// ----------------------------------------------------------- launches ---

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned shared, CUstream s, void **params, void **extra) {
    emu_launch l;
    {
        ENTER("cuLaunchKernel");
        run_all_async();
        if (!functions.count(f)) return ret(INVALID_HANDLE);
        if (s && !streams.count(s)) return ret(INVALID_HANDLE);
        Function *fn = (Function *)f;
        if (shared != 0) {
            note("cuLaunchKernel(%s): dynamic shared memory is not emulated; use static __shared__ arrays", fn->k->name);
            return ret(INVALID_VALUE);
        }
        if (extra) return ret(NOT_SUPPORTED);
        if (fn->k->nargs > 0 && !params) return ret(INVALID_VALUE);
        if (uint64_t(bx) * by * bz > 1024 || bx == 0 || by == 0 || bz == 0 || gx == 0 || gy == 0 || gz == 0 ||
            gy > 65535 || gz > 65535 || bz > 64)
            return ret(INVALID_VALUE);
        for (int i = 0; i < fn->k->nargs && i < 64; i++) {
            if (!(fn->k->ptrs >> i & 1)) continue;
            uintptr_t p = *(uintptr_t *)params[i];
            if (p && !find(p, 0)) {
                note("cuLaunchKernel(%s): argument %d (0x%lx) does not point into a live allocation", fn->k->name, i,
                     (unsigned long)p);
                return ret(INVALID_VALUE);
            }
        }
        if (!all_canaries_ok()) return ret(ILLEGAL_ADDRESS);
        l = emu_launch{fn->k, fn->index, {gx, gy, gz}, {bx, by, bz}, params, emu_mix(chaos_seed + launch_no++)};
        c.launches++;
        if (fn->k->team) c.team_launches++;
        printed_since_change = false;
    }
    uint64_t t0 = now_ns();
    const char *why = emu_run(l);
    uint64_t t1 = now_ns();
    LOCK;
    if (why) {
        note("cuLaunchKernel(%s): %s", l.k->name, why);
        return ret(LAUNCH_OUT_OF_RESOURCES);
    }
    KernelStats &ks = kstats[l.k->name];
    ks.launches++;
    ks.blocks += uint64_t(gx) * gy * gz;
    ks.ns += t1 - t0;
    return SUCCESS;
}

// ------------------------------------------------------ streams, events ---

API CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
    ENTER("cuStreamCreate");
    if (!s || flags > 1) return ret(INVALID_VALUE);
    void *h = new char(0);
    streams.insert(h);
    *s = h;
    return SUCCESS;
}

API CUresult cuStreamDestroy_v2(CUstream s) {
    ENTER("cuStreamDestroy_v2");
    run_all_async();
    if (!streams.erase(s)) return ret(INVALID_HANDLE);
    delete (char *)s;
    return SUCCESS;
}

API CUresult cuStreamSynchronize(CUstream s) {
    ENTER("cuStreamSynchronize");
    run_all_async();
    if (s && !streams.count(s)) return ret(INVALID_HANDLE);
    c.syncs++;
    return all_canaries_ok() ? SUCCESS : ret(ILLEGAL_ADDRESS);
}

API CUresult cuEventCreate(CUevent *e, unsigned int flags) {
    ENTER("cuEventCreate");
    (void)flags;
    if (!e) return ret(INVALID_VALUE);
    Event *h = new Event{0, 0};
    events.insert(h);
    *e = h;
    return SUCCESS;
}

API CUresult cuEventDestroy_v2(CUevent e) {
    ENTER("cuEventDestroy_v2");
    if (!events.erase(e)) return ret(INVALID_HANDLE);
    delete (Event *)e;
    return SUCCESS;
}

API CUresult cuEventRecord(CUevent e, CUstream s) {
    ENTER("cuEventRecord");
    if (!events.count(e) || (s && !streams.count(s))) return ret(INVALID_HANDLE);
    // Launches before it have finished (they are synchronous); queued
    // copies run when it is waited for.
    *(Event *)e = Event{now_ns(), async_queued};
    return SUCCESS;
}

API CUresult cuEventSynchronize(CUevent e) {
    ENTER("cuEventSynchronize");
    if (!events.count(e)) return ret(INVALID_HANDLE);
    run_async(((Event *)e)->copies);
    c.syncs++;
    return SUCCESS;
}

API CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
    ENTER("cuEventElapsedTime");
    if (!ms) return ret(INVALID_VALUE);
    if (!events.count(a) || !events.count(b)) return ret(INVALID_HANDLE);
    *ms = float((double)((Event *)b)->t - (double)((Event *)a)->t) / 1e6f;
    return SUCCESS;
}

// ------------------------------------------------------------- errors ---

static const struct {
    int code;
    const char *name, *text;
} errs[] = {
    {SUCCESS, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

API CUresult cuGetErrorString(CUresult r, const char **s) {
    if (!s) return INVALID_VALUE;
    for (auto &e : errs)
        if (e.code == r) {
            *s = e.text;
            return SUCCESS;
        }
    *s = nullptr;
    return INVALID_VALUE;
}

API CUresult cuGetErrorName(CUresult r, const char **s) {
    if (!s) return INVALID_VALUE;
    for (auto &e : errs)
        if (e.code == r) {
            *s = e.name;
            return SUCCESS;
        }
    *s = nullptr;
    return INVALID_VALUE;
}

// ------------------------------------------------- emulator controls ---

// cudaemu_counters copies up to n counters into out, in this order:
// launches, team launches, synchronisations, h2d copies, h2d bytes, h2d
// pinned bytes, d2h copies, d2h bytes, d2d copies, d2d bytes, memsets,
// memset bytes, allocations, frees, live bytes, peak bytes, errors,
// context retains, context releases, host registrations, barriers,
// page-locked host allocations (cuMemAllocHost), their frees, their live
// bytes, asynchronous h2d copies (of the h2d copies). It returns how many
// there are.
API int cudaemu_counters(unsigned long long *out, int n) {
    LOCK;
    unsigned long long v[] = {c.launches,   c.team_launches, c.syncs,        c.h2d,          c.h2d_bytes,
                              c.h2d_pinned_bytes, c.d2h,     c.d2h_bytes,    c.d2d,          c.d2d_bytes,
                              c.memsets,    c.memset_bytes,  c.allocs,       c.frees,        c.live_bytes,
                              c.peak_bytes, c.errors,        c.ctx_retains,  c.ctx_releases, c.host_registers,
                              emu_barriers(), c.host_allocs,  c.host_frees,   c.host_live_bytes, c.h2d_async};
    int total = int(sizeof v / sizeof v[0]);
    for (int i = 0; i < n && i < total; i++) out[i] = v[i];
    return total;
}

// cudaemu_fail makes the nth next call (1: the next) of the named entry
// point return code instead of running.
API void cudaemu_fail(const char *call, long long nth, int code) {
    LOCK;
    fails.push_back(Fail{call, nth, code});
}

// cudaemu_clear_failures drops pending failures.
API void cudaemu_clear_failures(void) {
    LOCK;
    fails.clear();
}

// cudaemu_set_memory sets the device memory size in bytes.
API void cudaemu_set_memory(unsigned long long bytes) {
    LOCK;
    mem_total = size_t(bytes);
}
