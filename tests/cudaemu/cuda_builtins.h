// cuda_builtins.h: force-included (g++ -include) before gpumap.cu when the
// emulator compiles the kernels for the host. It maps the CUDA built-ins
// the kernels use onto the emulator's run time (exec.cc):
//
//   threadIdx, blockIdx, blockDim, gridDim  per-thread state of the
//                                            emulated thread (TLS)
//   __syncthreads()                          a barrier of the block's real
//                                            threads (team kernels only)
//   __shared__                               static storage; every team
//                                            compiles its own copy of the
//                                            kernels, so each running block
//                                            has its own
//   atomic*                                  GCC __atomic builtins
//   __clz, __clzll, __popc, __ffs, min, max   the host equivalents
//
// Limits: no dynamic shared memory (extern __shared__), no __device__
// global variables, no warp intrinsics (__shfl*, __syncwarp, __ballot).
// Using one fails to compile or is refused at launch, never silently
// wrong.
#pragma once
#include <stdint.h>

struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
};

struct emu_thread {
    uint3 threadIdx, blockIdx;
    dim3 blockDim, gridDim;
};
extern thread_local emu_thread emu_self __attribute__((tls_model("initial-exec")));

#define threadIdx (emu_self.threadIdx)
#define blockIdx (emu_self.blockIdx)
#define blockDim (emu_self.blockDim)
#define gridDim (emu_self.gridDim)

#define __global__
#define __host__
#define __device__ static
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __restrict__ __restrict
#define __launch_bounds__(...)

extern "C" void emu_syncthreads(void);
#define __syncthreads() emu_syncthreads()
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)

template <class T, class U> static inline T atomicAdd(T *p, U v) { return __atomic_fetch_add(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> static inline T atomicSub(T *p, U v) { return __atomic_fetch_sub(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> static inline T atomicExch(T *p, U v) { return __atomic_exchange_n(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> static inline T atomicOr(T *p, U v) { return __atomic_fetch_or(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> static inline T atomicAnd(T *p, U v) { return __atomic_fetch_and(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> static inline T atomicCAS(T *p, U expected_, U desired_) {
    T expected = (T)expected_, desired = (T)desired_;
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return expected; // the old value, as CUDA returns it
}
template <class T, class U> static inline T atomicMax(T *p, U v_) {
    T v = (T)v_;
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
template <class T, class U> static inline T atomicMin(T *p, U v_) {
    T v = (T)v_;
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
template <class T> static inline T min(T a, T b) { return b < a ? b : a; }
template <class T> static inline T max(T a, T b) { return a < b ? b : a; }
