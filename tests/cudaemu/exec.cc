// exec.cc: runs kernel launches on host threads.
//
// Cheap path (kernels without __syncthreads or __shared__): a pool of
// workers (the launching thread and helpers, one per core) takes blocks
// in turn; a worker runs the threads of its block one after another.
// Blocks run at once on different workers, so atomics race for real.
//
// Team path (kernels that use __syncthreads or __shared__): EMU_TEAMS
// teams of real OS threads, one thread per thread of the block; each team
// runs one block at a time and __syncthreads is a barrier of its threads.
// Teams run different blocks at once. A thread that returns counts as
// arrived at every later barrier of its block, as on sm_70 and later.
//
// The order of blocks, and on the cheap path of the threads of a block,
// changes from launch to launch (perm_seed): results that depend on an
// order show up as differences between runs.
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "cuda_builtins.h"
#include "emu.h"
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

thread_local emu_thread emu_self __attribute__((tls_model("initial-exec")));

namespace {

void futex_wait(std::atomic<uint32_t> *a, uint32_t v) {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(a), FUTEX_WAIT_PRIVATE, v, nullptr, nullptr, 0);
}
void futex_wake(std::atomic<uint32_t> *a) {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(a), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}
void wait_change(std::atomic<uint32_t> *a, uint32_t old) {
    while (a->load(std::memory_order_acquire) == old) futex_wait(a, old);
}

std::atomic<uint64_t> barriers{0};

// Barrier of the threads of one block; threads that return leave it.
struct Barrier {
    std::mutex m;
    uint32_t expected = 0, arrived = 0;
    std::atomic<uint32_t> gen{0};
    void reset(uint32_t n) {
        expected = n;
        arrived = 0;
    }
    void release(std::unique_lock<std::mutex> &lk) {
        arrived = 0;
        gen.fetch_add(1, std::memory_order_acq_rel);
        lk.unlock();
        barriers.fetch_add(1, std::memory_order_relaxed);
        futex_wake(&gen);
    }
    void sync() {
        std::unique_lock<std::mutex> lk(m);
        uint32_t g = gen.load(std::memory_order_relaxed);
        if (++arrived == expected) {
            release(lk);
            return;
        }
        lk.unlock();
        wait_change(&gen, g);
    }
    void leave() {
        std::unique_lock<std::mutex> lk(m);
        expected--;
        if (arrived > 0 && arrived == expected) release(lk);
    }
};

struct Order { // i -> (off + i*step) mod n, a permutation of [0, n)
    uint64_t n = 1, off = 0, step = 1;
    Order() = default;
    Order(uint64_t n_, uint64_t seed) : n(n_ ? n_ : 1) {
        off = emu_mix(seed) % n;
        step = (emu_mix(seed ^ 0x5bd1e995) % n) | 1;
        auto gcd = [](uint64_t a, uint64_t b) {
            while (b) {
                uint64_t t = a % b;
                a = b;
                b = t;
            }
            return a;
        };
        while (n > 1 && gcd(step, n) != 1) step = (step + 2) % n;
        if (step == 0) step = 1;
    }
    uint64_t at(uint64_t i) const { return (off + (i % n) * step) % n; }
};

void set_block(const emu_launch &l, uint64_t b) {
    emu_self.blockDim = {l.block[0], l.block[1], l.block[2]};
    emu_self.gridDim = {l.grid[0], l.grid[1], l.grid[2]};
    emu_self.blockIdx = {unsigned(b % l.grid[0]), unsigned(b / l.grid[0] % l.grid[1]),
                         unsigned(b / (uint64_t(l.grid[0]) * l.grid[1]))};
}
void set_thread(const emu_launch &l, uint64_t t) {
    emu_self.threadIdx = {unsigned(t % l.block[0]), unsigned(t / l.block[0] % l.block[1]),
                          unsigned(t / (uint64_t(l.block[0]) * l.block[1]))};
}

thread_local struct Team *cur_team = nullptr;
thread_local const char *cur_kernel = nullptr;

// --------------------------------------------------------- cheap path ---

struct Pool {
    std::vector<pthread_t> helpers;
    std::atomic<uint32_t> gen{0}, busy{0};
    const emu_launch *l = nullptr;
    Order blocks;
    uint64_t nblocks = 0, nthreads = 0;
    std::atomic<uint64_t> next{0};
};
Pool pool;
int nworkers = 0;

void work() {
    const emu_launch &l = *pool.l;
    cur_kernel = l.k->name;
    for (;;) {
        uint64_t i = pool.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= pool.nblocks) break;
        uint64_t b = pool.blocks.at(i);
        set_block(l, b);
        Order threads(pool.nthreads, l.perm_seed ^ (b * 0x9e3779b97f4a7c15ULL));
        for (uint64_t j = 0; j < pool.nthreads; j++) {
            set_thread(l, threads.at(j));
            l.k->invoke(l.k->fn, l.args);
        }
    }
}

void *helper(void *arg) {
    uint32_t seen = uint32_t(uintptr_t(arg)); // the pool's count when the helper was made
    for (;;) {
        wait_change(&pool.gen, seen);
        seen = pool.gen.load(std::memory_order_acquire);
        work();
        if (pool.busy.fetch_sub(1, std::memory_order_acq_rel) == 1) futex_wake(&pool.busy);
    }
    return nullptr;
}

bool spawn(void *(*f)(void *), void *arg, pthread_t *t) {
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 512 << 10);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int r = pthread_create(t, &a, f, arg);
    pthread_attr_destroy(&a);
    return r == 0;
}

const char *run_cheap(const emu_launch &l, uint64_t nblocks, uint64_t nthreads) {
    if (nworkers == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        const char *w = getenv("GPUMAP_CUDAEMU_WORKERS");
        nworkers = w && atoi(w) > 0 ? atoi(w) : int(cpus < 2 ? 2 : cpus > 16 ? 16 : cpus);
        for (int i = 1; i < nworkers; i++) {
            pthread_t t;
            if (!spawn(helper, (void *)uintptr_t(pool.gen.load()), &t)) return "cannot start worker threads";
            pool.helpers.push_back(t);
        }
    }
    pool.l = &l;
    pool.nblocks = nblocks;
    pool.nthreads = nthreads;
    pool.blocks = Order(nblocks, l.perm_seed);
    pool.next.store(0, std::memory_order_relaxed);
    uint32_t helpers = nblocks > 1 ? uint32_t(pool.helpers.size()) : 0;
    if (helpers) {
        pool.busy.store(helpers, std::memory_order_relaxed);
        pool.gen.fetch_add(1, std::memory_order_acq_rel);
        futex_wake(&pool.gen);
    }
    work();
    if (helpers)
        for (uint32_t b; (b = pool.busy.load(std::memory_order_acquire)) != 0;) futex_wait(&pool.busy, b);
    return nullptr;
}

// ---------------------------------------------------------- team path ---

struct TeamLaunch {
    const emu_launch *l;
    Order blocks;
    uint64_t nblocks, nthreads;
    std::atomic<uint64_t> next{0};
    std::atomic<uint32_t> finished{0};
    uint32_t active = 0;
};
TeamLaunch *tl = nullptr;

struct Team {
    int id = 0;
    const emu_kernel *k = nullptr;
    std::vector<pthread_t> threads;
    std::atomic<uint32_t> start{0}, done{0};
    uint32_t size = 0; // threads started
    uint64_t block = 0;
    Barrier bar;
};
Team teams[EMU_TEAMS];

struct Member {
    Team *t;
    uint32_t i, seen; // seen: the team's start count when the thread was made
};

void start_block(Team &t, uint64_t b) {
    t.block = b;
    t.bar.reset(uint32_t(tl->nthreads));
    t.done.store(0, std::memory_order_relaxed);
    t.start.fetch_add(1, std::memory_order_acq_rel);
    futex_wake(&t.start);
}

void *member(void *arg) {
    Member *m = static_cast<Member *>(arg);
    Team &t = *m->t;
    uint32_t i = m->i, seen = m->seen;
    delete m;
    for (;;) {
        wait_change(&t.start, seen);
        seen = t.start.load(std::memory_order_acquire);
        const emu_launch &l = *tl->l;
        if (i < tl->nthreads) {
            cur_team = &t;
            cur_kernel = t.k->name;
            set_block(l, t.block);
            set_thread(l, i);
            t.k->invoke(t.k->fn, l.args);
            cur_team = nullptr;
            t.bar.leave();
        }
        if (t.done.fetch_add(1, std::memory_order_acq_rel) + 1 == t.size) {
            uint64_t j = tl->next.fetch_add(1, std::memory_order_relaxed);
            if (j < tl->nblocks) {
                start_block(t, tl->blocks.at(j));
            } else if (tl->finished.fetch_add(1, std::memory_order_acq_rel) + 1 == tl->active) {
                futex_wake(&tl->finished);
            }
        }
    }
    return nullptr;
}

const char *run_team(const emu_launch &l, uint64_t nblocks, uint64_t nthreads) {
    TeamLaunch launch;
    launch.l = &l;
    launch.blocks = Order(nblocks, l.perm_seed);
    launch.nblocks = nblocks;
    launch.nthreads = nthreads;
    tl = &launch;
    uint64_t first[EMU_TEAMS];
    for (int t = 0; t < EMU_TEAMS; t++) {
        Team &team = teams[t];
        team.id = t;
        while (team.size < nthreads) { // grow the team (between launches only)
            pthread_t th;
            if (!spawn(member, new Member{&team, team.size, team.start.load()}, &th)) return "cannot start the threads of a block";
            team.threads.push_back(th);
            team.size++;
        }
        team.k = &(t == 0 ? emu_table_0 : emu_table_1)[l.index];
        uint64_t j = launch.next.fetch_add(1, std::memory_order_relaxed);
        if (j < nblocks) first[launch.active++] = launch.blocks.at(j);
    }
    for (uint32_t t = 0; t < launch.active; t++) start_block(teams[t], first[t]);
    for (uint32_t f; (f = launch.finished.load(std::memory_order_acquire)) != launch.active;)
        futex_wait(&launch.finished, f);
    tl = nullptr;
    return nullptr;
}

std::mutex launch_mu;

} // namespace

extern "C" void emu_syncthreads(void) {
    if (!cur_team) {
        fprintf(stderr, "cudaemu: kernel %s called __syncthreads on the cheap path (gen.sh did not classify it)\n",
                cur_kernel ? cur_kernel : "?");
        abort();
    }
    cur_team->bar.sync();
}

const char *emu_run(const emu_launch &l) {
    uint64_t nblocks = uint64_t(l.grid[0]) * l.grid[1] * l.grid[2];
    uint64_t nthreads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
    if (nblocks == 0 || nthreads == 0) return "empty grid or block";
    if (nthreads > 1024) return "more than 1024 threads per block";
    std::lock_guard<std::mutex> g(launch_mu);
    return l.k->team ? run_team(l, nblocks, nthreads) : run_cheap(l, nblocks, nthreads);
}

uint64_t emu_barriers(void) { return barriers.load(); }
int emu_workers(void) { return nworkers; }
