// emu.h: what the parts of the emulated CUDA driver share. driver.cc is
// the driver API (contexts, memory, modules, launches, counters), exec.cc
// runs kernels on host threads, kernels_team.cc compiles gpumap.cu once
// per team of threads.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <type_traits>
#include <utility>

// One kernel of the compiled source: its name, whether its blocks need a
// team of real threads (it uses __syncthreads or __shared__), the host
// function and the call that unpacks cuLaunchKernel's argument pointers.
struct emu_kernel {
    const char *name;
    int team;
    void *fn;
    void (*invoke)(void *fn, void **args);
    int nargs;
    uint64_t ptrs; // bit i: parameter i is a pointer (checked against the allocations at launch)
};

// emu_invoker<void(A...)>::call(f, args) calls f(*(A *)args[0], ...): each
// argument is read with the size of the kernel's own parameter, exactly as
// the driver copies sizeof(parameter) bytes from each pointer.
template <class F> struct emu_invoker;
template <class... A> struct emu_invoker<void(A...)> {
    template <size_t... I> static void call_(void *f, void **a, std::index_sequence<I...>) {
        ((void (*)(A...))f)(*(typename std::remove_cv<A>::type *)a[I]...);
    }
    static void call(void *f, void **a) {
        (void)a;
        call_(f, a, std::index_sequence_for<A...>{});
    }
    static constexpr int nargs = sizeof...(A);
    static constexpr uint64_t pointers() {
        const bool p[] = {std::is_pointer<A>::value..., false};
        uint64_t m = 0;
        for (int i = 0; i < nargs && i < 64; i++)
            if (p[i]) m |= uint64_t(1) << i;
        return m;
    }
};

#define EMU_TEAMS 2 // blocks of team kernels that run at once

extern "C" const emu_kernel emu_table_0[];
extern "C" const emu_kernel emu_table_1[];

// A launch as exec.cc runs it. perm_seed varies the order of blocks (and,
// on the cheap path, of threads in a block) from launch to launch: a GPU
// promises no order, so results must not depend on one.
struct emu_launch {
    const emu_kernel *k;    // team 0's copy
    int index;              // position in the tables (for the other teams' copies)
    unsigned grid[3], block[3];
    void **args;
    uint64_t perm_seed;
};

// emu_run executes a launch to completion; it returns a non-empty message
// when the launch cannot run (e.g. too many threads per block).
const char *emu_run(const emu_launch &l);

// Counters of the execution engine (barriers met by team threads).
uint64_t emu_barriers(void);
int emu_workers(void);

static inline uint64_t emu_mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
