/*
 * The recorder's counting core: per thread, a hash map from world rank to
 * bytes and messages; per communicator, the translation to world ranks
 * (and the out-neighbours of topology communicators), kept as an MPI
 * attribute; persistent requests; and the hand-over to libgpumap.so at
 * MPI_Finalize. See record.h.
 *
 * Threads (MPI_THREAD_MULTIPLE). No MPI call is made while a lock of the
 * recorder is held: a lock held across one would order our lock against
 * the MPI library's own (MPICH has one global lock), and an attribute
 * delete callback run inside MPI_Comm_free while another thread holds
 * ours, waiting inside MPI, deadlocks. So:
 *  - every thread counts into its own table (no lock, no shared cache
 *    line on a send); MPI_Finalize merges the tables;
 *  - a communicator's translation is built outside any lock and attached
 *    to the communicator as an attribute; each thread memoises it in its
 *    own table, emptied whenever some communicator is freed (comm_gen),
 *    because MPI may give a freed handle to the next new communicator;
 *  - the delete callback takes no lock.
 * Only the persistent requests' table is shared; its lock guards table
 * operations alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpumap_dl.h"
#include "gpumap_env.h"
#include "record.h"

/* --- open-addressing tables ------------------------------------------- */

static inline size_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

/* peer hash: ranks are small dense integers; Fibonacci hashing spreads
 * neighbouring ranks over the table in two instructions */
static inline size_t rank_hash(int w) { return (size_t)(((uint64_t)(uint32_t)w * 0x9e3779b97f4a7c15ULL) >> 32); }

/* Peer counts: world rank -> bytes, messages (peer -1: empty cell). */
typedef struct {
    int peer;
    uint64_t bytes, msgs;
} cell;

/* Handle -> pointer (key 0: empty). Communicators and requests are
 * pointers in OpenMPI and non-zero integers in MPICH. */
typedef struct {
    uintptr_t key;
    void *val;
} slot;
typedef struct {
    slot *s;
    size_t cap, used;
} table;

#define KEY(h) ((uintptr_t)(h))

static void *tget(table *t, uintptr_t k) {
    if (!t->cap) return NULL;
    for (size_t m = t->cap - 1, i = mix(k) & m; t->s[i].key; i = (i + 1) & m)
        if (t->s[i].key == k) return t->s[i].val;
    return NULL;
}

/* tput stores (k, v), replacing an old value (returned, so that the caller
 * can free it); on allocation failure it returns v itself. */
static void *tput(table *t, uintptr_t k, void *v) {
    if (2 * (t->used + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        slot *s = calloc(cap, sizeof *s);
        if (!s) return v;
        for (size_t j = 0; j < t->cap; j++) {
            if (!t->s[j].key) continue;
            size_t i = mix(t->s[j].key) & (cap - 1);
            while (s[i].key) i = (i + 1) & (cap - 1);
            s[i] = t->s[j];
        }
        free(t->s);
        t->s = s;
        t->cap = cap;
    }
    size_t m = t->cap - 1, i = mix(k) & m;
    for (; t->s[i].key; i = (i + 1) & m) {
        if (t->s[i].key == k) {
            void *old = t->s[i].val;
            t->s[i].val = v;
            return old;
        }
    }
    t->s[i].key = k;
    t->s[i].val = v;
    t->used++;
    return NULL;
}

static void tclear(table *t) {
    if (t->cap) memset(t->s, 0, t->cap * sizeof *t->s);
    t->used = 0;
}

/* tdel removes k (backward-shift deletion, no tombstones) and returns its
 * value. */
static void *tdel(table *t, uintptr_t k) {
    if (!t->cap) return NULL;
    size_t m = t->cap - 1, i = mix(k) & m;
    while (t->s[i].key && t->s[i].key != k) i = (i + 1) & m;
    if (!t->s[i].key) return NULL;
    void *v = t->s[i].val;
    for (size_t j = (i + 1) & m; t->s[j].key; j = (j + 1) & m) {
        size_t h = mix(t->s[j].key) & m;
        /* move j into the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            t->s[i] = t->s[j];
            i = j;
        }
    }
    t->s[i].key = 0;
    t->s[i].val = NULL;
    t->used--;
    return v;
}

/* --- state --------------------------------------------------------------- */

/* A communicator's translation, immutable once attached to it. */
typedef struct commrec {
    int size;   /* how many ranks a destination may name (remote group of an inter-communicator) */
    int *world; /* world rank of every destination rank, -1 outside world; NULL: the identity */
    int nout;
    int *out; /* world ranks of the out-neighbours in MPI's order, -2 for MPI_PROC_NULL */
    struct commrec *next; /* in the retired list */
} commrec;

typedef struct { /* what one start of a persistent request sends */
    int n;
    int *peer;
    uint64_t *bytes;
} plist;

/* One thread's counts and its memo of communicators. */
typedef struct tstate {
    cell *cells;
    size_t cap, used;
    uint64_t lost; /* messages not recorded: peers outside MPI_COMM_WORLD, or no memory */
    uint64_t gen;  /* comm_gen when comms was filled */
    table comms;   /* handle -> commrec, valid while gen == comm_gen */
    MPI_Comm last_comm; /* one-entry memo in front of comms */
    commrec *last;
    struct tstate *next; /* in R.threads */
} __attribute__((aligned(64))) tstate;

/* lines allocates whole cache lines: the tables of two threads never
 * share one (a write to one would evict the other's). */
static void *lines(size_t n) { return aligned_alloc(64, (n + 63) & ~(size_t)63); }

static struct {
    int ready, usable;
    int world_size, world_rank;
    int locking; /* MPI_THREAD_MULTIPLE: the persistent requests' table takes pmu */
    MPI_Group world_group;
    int keyval;
    tstate *threads;  /* every thread that counted, merged at finalize */
    uint64_t lost;    /* messages of threads that got no table (no memory) */
    uint64_t comm_gen; /* communicators freed so far */
    commrec *retired; /* translations replaced while a thread may hold them */
    table persist;
} R;

/* initial-exec: the recorder is preloaded or linked, never dlopen'd late,
 * so its thread variable is one load from the thread pointer. */
static __thread tstate *T __attribute__((tls_model("initial-exec")));
/* set around our own MPI_Comm_set_attr: a delete callback run inside it
 * is a replacement, not a free */
static __thread int setting_attr __attribute__((tls_model("initial-exec")));

static pthread_mutex_t pmu = PTHREAD_MUTEX_INITIALIZER; /* R.persist, R.threads */
static pthread_once_t once = PTHREAD_ONCE_INIT;
#define LOCK() \
    do { if (R.locking) pthread_mutex_lock(&pmu); } while (0)
#define UNLOCK() \
    do { if (R.locking) pthread_mutex_unlock(&pmu); } while (0)

static int comm_deleted(MPI_Comm comm, int keyval, void *attr, void *extra);

static void init_once(void) {
    int init = 0, fin = 0, level = MPI_THREAD_SINGLE;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return;
    PMPI_Comm_size(MPI_COMM_WORLD, &R.world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &R.world_rank);
    PMPI_Query_thread(&level);
    R.locking = level == MPI_THREAD_MULTIPLE;
    PMPI_Comm_group(MPI_COMM_WORLD, &R.world_group);
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_deleted, &R.keyval, NULL) != MPI_SUCCESS)
        R.keyval = MPI_KEYVAL_INVALID;
    R.usable = 1;
}

static void ready(void) {
    if (!__atomic_load_n(&R.ready, __ATOMIC_ACQUIRE)) {
        pthread_once(&once, init_once);
        __atomic_store_n(&R.ready, 1, __ATOMIC_RELEASE);
    }
}

static int tstate_init(tstate *t) {
    t->cells = lines(64 * sizeof *t->cells);
    if (!t->cells) return 0;
    t->cap = 64;
    for (size_t i = 0; i < t->cap; i++) t->cells[i].peer = -1;
    t->last_comm = MPI_COMM_NULL;
    return 1;
}

/* thread_state: this thread's table, made at its first send; NULL before
 * MPI_Init or when there is no memory (the message counts in R.lost). */
static __attribute__((noinline)) tstate *thread_state(void) {
    ready();
    if (!R.usable) return NULL;
    tstate *t = lines(sizeof *t);
    if (t) memset(t, 0, sizeof *t);
    if (!t || !tstate_init(t)) {
        free(t);
        __atomic_add_fetch(&R.lost, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    t->gen = __atomic_load_n(&R.comm_gen, __ATOMIC_ACQUIRE);
    LOCK();
    t->next = R.threads;
    R.threads = t;
    UNLOCK();
    T = t;
    return t;
}

static inline tstate *me(void) {
    tstate *t = T;
    return t ? t : thread_state();
}

static int grow(tstate *t) {
    size_t cap = 2 * t->cap;
    cell *c = lines(cap * sizeof *c);
    if (!c) return 0;
    for (size_t i = 0; i < cap; i++) c[i].peer = -1;
    for (size_t j = 0; j < t->cap; j++) {
        if (t->cells[j].peer < 0) continue;
        size_t i = rank_hash(t->cells[j].peer) & (cap - 1);
        while (c[i].peer >= 0) i = (i + 1) & (cap - 1);
        c[i] = t->cells[j];
    }
    free(t->cells);
    t->cells = c;
    t->cap = cap;
    return 1;
}

/* add_new counts the first msgs messages to w, or ones that cannot be
 * recorded (w < 0, or no memory): the cold path of add. */
static __attribute__((noinline)) void add_new(tstate *t, int w, uint64_t b, uint64_t msgs) {
    if (w < 0 || (2 * (t->used + 1) > t->cap && !grow(t))) {
        t->lost += msgs;
        return;
    }
    size_t m = t->cap - 1, i = rank_hash(w) & m;
    while (t->cells[i].peer >= 0) i = (i + 1) & m;
    t->cells[i].peer = w;
    t->cells[i].bytes = b;
    t->cells[i].msgs = msgs;
    t->used++;
}

/* add counts msgs messages of b bytes in all to world rank w: one probe
 * of the thread's peer table when w was seen before. */
static inline void add(tstate *t, int w, uint64_t b, uint64_t msgs) {
    if (w >= 0) {
        for (size_t m = t->cap - 1, i = rank_hash(w) & m;; i = (i + 1) & m) {
            cell *c = &t->cells[i];
            if (c->peer == w) {
                c->bytes += b;
                c->msgs += msgs;
                return;
            }
            if (c->peer < 0) break;
        }
    }
    add_new(t, w, b, msgs);
}

/* bytes_by_mpi: count elements of a type MPI must size. */
static __attribute__((noinline)) uint64_t bytes_by_mpi(MPI_Count count, MPI_Datatype type) {
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size <= 0) return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* bytes_of: the common predefined types by comparison (their sizes are
 * the C types'), inline; the others through MPI. */
static inline uint64_t bytes_of(MPI_Count count, MPI_Datatype type) {
    if (count <= 0) return 0;
    if (type == MPI_BYTE || type == MPI_CHAR) return (uint64_t)count;
    if (type == MPI_DOUBLE) return (uint64_t)count * sizeof(double);
    if (type == MPI_INT) return (uint64_t)count * sizeof(int);
    return bytes_by_mpi(count, type);
}

/* --- communicators -------------------------------------------------------- */

static void comm_release(commrec *c) {
    if (!c) return;
    free(c->world);
    free(c->out);
    free(c);
}

/* comm_deleted is the attribute delete callback: MPI calls it when the
 * communicator is freed (by any binding), so that a handle MPI reuses
 * never finds a stale translation: the increment of comm_gen empties every
 * thread's memo before its next lookup. A translation replaced by our own
 * MPI_Comm_set_attr (two threads built one for the same communicator at
 * once) may still be in use by the other thread: it is kept until
 * finalize. It takes no lock: it runs inside MPI_Comm_free, where MPICH
 * holds its global lock. */
static int comm_deleted(MPI_Comm comm, int keyval, void *attr, void *extra) {
    (void)comm, (void)keyval, (void)extra;
    commrec *c = attr;
    if (setting_attr) {
        c->next = __atomic_load_n(&R.retired, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&R.retired, &c->next, c, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
        }
        return MPI_SUCCESS;
    }
    __atomic_add_fetch(&R.comm_gen, 1, __ATOMIC_RELEASE);
    comm_release(c);
    return MPI_SUCCESS;
}

static int world_of(commrec *c, int r) {
    if (r == MPI_PROC_NULL) return -2;
    if (r < 0 || r >= c->size) return -1;
    return c->world ? c->world[r] : r;
}

/* out_degree: how many out-neighbours comm's topology has (what a
 * neighbourhood collective sends to), -1 when it has none. */
static int out_degree(MPI_Comm comm) {
    int topo = MPI_UNDEFINED, n = -1;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        n *= 2;
    } else if (topo == MPI_GRAPH) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors_count(comm, me, &n);
    } else if (topo == MPI_DIST_GRAPH) {
        int in = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    }
    return n;
}

/* neighbours lists comm's out-neighbours in the order the neighbourhood
 * collectives use (MPI 4.0, 7.6): Cartesian -1 then +1 shift per
 * dimension, graph neighbours, dist-graph destinations. 0 when there is
 * no memory. */
static int neighbours(MPI_Comm comm, commrec *c) {
    int topo = MPI_UNDEFINED, n = 0, *out = NULL;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_UNDEFINED) return 1;
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        out = malloc((size_t)(2 * nd + 1) * sizeof *out);
        for (int d = 0; out && d < nd; d++) {
            int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &src, &dst);
            out[n++] = src;
            out[n++] = dst;
        }
    } else if (topo == MPI_GRAPH) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors_count(comm, me, &n);
        out = malloc((size_t)(n + 1) * sizeof *out);
        if (out) PMPI_Graph_neighbors(comm, me, n, out);
    } else if (topo == MPI_DIST_GRAPH) {
        int in = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
        int *src = malloc((size_t)(in + 1) * sizeof *src), *sw = malloc((size_t)(in + 1) * sizeof *sw);
        int *dw = malloc((size_t)(n + 1) * sizeof *dw);
        out = malloc((size_t)(n + 1) * sizeof *out);
        if (src && sw && dw && out)
            PMPI_Dist_graph_neighbors(comm, in, src, weighted ? sw : MPI_UNWEIGHTED, n, out,
                                      weighted ? dw : MPI_UNWEIGHTED);
        else
            free(out), out = NULL;
        free(src), free(sw), free(dw);
    }
    if (!out) return 0;
    for (int i = 0; i < n; i++) out[i] = world_of(c, out[i]);
    c->out = out;
    c->nout = n;
    return 1;
}

/* comm_build makes comm's translation (no lock held: it calls MPI). */
static commrec *comm_build(MPI_Comm comm) {
    commrec *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    int inter = 0;
    MPI_Group g;
    PMPI_Comm_test_inter(comm, &inter);
    if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS) {
        free(c);
        return NULL;
    }
    PMPI_Group_size(g, &c->size);
    int *idx = malloc((size_t)c->size * sizeof *idx), *w = malloc((size_t)c->size * sizeof *w);
    if (!idx || !w) {
        free(idx), free(w), free(c);
        PMPI_Group_free(&g);
        return NULL;
    }
    for (int i = 0; i < c->size; i++) idx[i] = i;
    PMPI_Group_translate_ranks(g, c->size, idx, R.world_group, w);
    PMPI_Group_free(&g);
    free(idx);
    int identity = 1;
    for (int i = 0; i < c->size; i++) {
        if (w[i] == MPI_UNDEFINED) w[i] = -1;
        identity &= w[i] == i;
    }
    if (identity) {
        free(w);
        w = NULL;
    }
    c->world = w;
    if (!neighbours(comm, c)) {
        comm_release(c);
        return NULL;
    }
    return c;
}

/* comm_find returns comm's translation: its attribute, or one built and
 * attached now. NULL when it cannot be built. */
static commrec *comm_find(MPI_Comm comm) {
    void *v = NULL;
    int flag = 0;
    if (R.keyval == MPI_KEYVAL_INVALID) return NULL;
    if (PMPI_Comm_get_attr(comm, R.keyval, &v, &flag) == MPI_SUCCESS && flag) return v;
    commrec *c = comm_build(comm);
    if (!c) return NULL;
    setting_attr = 1;
    int rc = PMPI_Comm_set_attr(comm, R.keyval, c);
    setting_attr = 0;
    if (rc != MPI_SUCCESS) {
        comm_release(c);
        return NULL;
    }
    return c;
}

/* comm_get returns comm's translation through the thread's memo. NULL
 * when it cannot be built. */
static commrec *comm_get(tstate *t, MPI_Comm comm) {
    uint64_t gen = __atomic_load_n(&R.comm_gen, __ATOMIC_ACQUIRE);
    if (gen != t->gen) { /* some communicator was freed: its handle may name another now */
        tclear(&t->comms);
        t->last_comm = MPI_COMM_NULL;
        t->gen = gen;
    }
    if (comm == t->last_comm) return t->last;
    commrec *c = tget(&t->comms, KEY(comm));
    if (!c) {
        if (!(c = comm_find(comm))) return NULL;
        if (tput(&t->comms, KEY(comm), c) == c) return c; /* no memory for the memo: look up again next time */
    }
    t->last_comm = comm;
    t->last = c;
    return c;
}

/* world rank of rank r of comm's (remote) group, -1 if none */
static inline int to_world(tstate *t, MPI_Comm comm, int r) {
    if (comm == MPI_COMM_WORLD) return r;
    commrec *c = comm_get(t, comm);
    if (!c || r < 0 || r >= c->size) return -1;
    return c->world ? c->world[r] : r;
}

/* --- entry points --------------------------------------------------------- */

void rec_p2p(MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type) {
    if (dest == MPI_PROC_NULL) return;
    tstate *t = me();
    if (!t) return;
    add(t, to_world(t, comm, dest), bytes_of(count, type), 1);
}

static MPI_Count count_at(const void *counts, int wide, int i) {
    return wide ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

static void persist_put(MPI_Request req, plist *p) {
    LOCK();
    plist *old = tput(&R.persist, KEY(req), p);
    UNLOCK();
    if (old == p) { /* no memory: this request will not be counted */
        free(p);
        return;
    }
    free(old);
}

static plist *plist_new(int n) {
    plist *p = malloc(sizeof *p + (size_t)n * (sizeof(int) + sizeof(uint64_t)));
    if (!p) return NULL;
    p->n = n;
    p->bytes = (uint64_t *)(p + 1);
    p->peer = (int *)(p->bytes + n);
    return p;
}

void rec_neighbors(MPI_Comm comm, MPI_Count count, MPI_Datatype type, const void *counts, int wide,
                   const MPI_Datatype *types, const MPI_Fint *ftypes, const MPI_Request *req) {
    tstate *t = me();
    if (!t) return;
    commrec *c = comm_get(t, comm);
    /* Without a translation the messages still went out: each counts as
     * lost (an unknown peer, -1), at every start of a persistent one. */
    int n = c ? c->nout : out_degree(comm);
    plist *p = req ? plist_new(n > 0 ? n : 0) : NULL;
    for (int i = 0; i < n; i++) {
        MPI_Datatype ty = types ? types[i] : ftypes ? PMPI_Type_f2c(ftypes[i]) : type;
        uint64_t b = bytes_of(counts ? count_at(counts, wide, i) : count, ty);
        int w = c ? c->out[i] : -1;
        if (p) {
            p->peer[i] = w;
            p->bytes[i] = b;
        } else if (w != -2) {
            add(t, w, b, 1);
        }
    }
    if (p) persist_put(*req, p);
}

void rec_persist_p2p(MPI_Request req, MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type) {
    tstate *t = me();
    if (!t) return;
    plist *p = plist_new(1);
    if (!p) return;
    p->peer[0] = dest == MPI_PROC_NULL ? -2 : to_world(t, comm, dest);
    p->bytes[0] = bytes_of(count, type);
    persist_put(req, p);
}

void rec_start(MPI_Request req) {
    tstate *t = me();
    if (!t) return;
    /* The request may be freed by another thread only after this start:
     * the lock covers the counting, which makes no MPI call. */
    LOCK();
    plist *p = tget(&R.persist, KEY(req));
    for (int i = 0; p && i < p->n; i++)
        if (p->peer[i] != -2) add(t, p->peer[i], p->bytes[i], 1);
    UNLOCK();
}

void rec_request_free(MPI_Request req) {
    /* nothing registered before the first count (which sets R.ready) */
    if (!__atomic_load_n(&R.ready, __ATOMIC_ACQUIRE)) return;
    LOCK();
    plist *p = tdel(&R.persist, KEY(req));
    UNLOCK();
    free(p);
}

void *rec_next(const char *name, void **cache) {
    void *f = gpumap_dl_next(name, cache);
    if (!f) {
        fprintf(stderr, "gpumap record: %s is not in the MPI library (a mismatched MPI?)\n", name);
        abort();
    }
    return f;
}

/* --- finalize ------------------------------------------------------------- */

/* load finds REC_WRITE_SYMBOL in libgpumap.so (gpumap_dl.h). */
static rec_write_fn load(char *why, size_t len) {
    void *h = gpumap_dl_open(why, len);
    if (!h) return NULL;
    rec_write_fn f = (rec_write_fn)dlsym(h, REC_WRITE_SYMBOL);
    if (!f) snprintf(why, len, "libgpumap.so has no %s: it is of another gpumap version than the recorder", REC_WRITE_SYMBOL);
    return f;
}

/* program returns the command line, NULs turned into spaces. */
static char *program(void) {
    static char buf[4096];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    while (n > 0 && buf[n - 1] == 0) n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 0 || buf[i] == '\n' || buf[i] == '\r') buf[i] = ' ';
    buf[n] = 0;
    return buf;
}

int rec_table(int **peers, uint64_t **bytes, uint64_t **msgs, uint64_t *lost) {
    *peers = NULL, *bytes = NULL, *msgs = NULL;
    *lost = __atomic_load_n(&R.lost, __ATOMIC_RELAXED);
    tstate *all = R.threads, merged = {0};
    /* one thread (the common case) needs no merge */
    tstate *m = all && !all->next ? all : &merged;
    if (m == &merged && tstate_init(m)) {
        for (tstate *t = all; t; t = t->next)
            for (size_t i = 0; i < t->cap; i++)
                if (t->cells[i].peer >= 0) add(m, t->cells[i].peer, t->cells[i].bytes, t->cells[i].msgs);
    } else if (m == &merged) { /* no memory to merge: every message is lost */
        for (tstate *t = all; t; t = t->next)
            for (size_t i = 0; i < t->cap; i++)
                if (t->cells[i].peer >= 0) m->lost += t->cells[i].msgs;
    }
    for (tstate *t = all; t; t = t->next)
        if (t != m) *lost += t->lost;
    *lost += m->lost;
    int n = 0;
    if (m->used > 0) {
        *peers = malloc(m->used * sizeof **peers);
        *bytes = malloc(m->used * sizeof **bytes);
        *msgs = malloc(m->used * sizeof **msgs);
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->cells[i].peer < 0) continue;
        if (*peers && *bytes && *msgs) {
            (*peers)[n] = m->cells[i].peer;
            (*bytes)[n] = m->cells[i].bytes;
            (*msgs)[n++] = m->cells[i].msgs;
        } else {
            *lost += m->cells[i].msgs; /* messages, not peers, are what lost counts */
        }
    }
    if (n == 0) {
        free(*peers), free(*bytes), free(*msgs);
        *peers = NULL, *bytes = NULL, *msgs = NULL;
    }
    if (m == &merged) free(merged.cells);
    return n;
}

void rec_finalize(void) {
    static int done;
    if (done) return;
    done = 1;
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return;
    ready();
    MPI_Comm c;
    if (gpumap_dl_private_comm(MPI_COMM_WORLD, R.world_rank, &c) != MPI_SUCCESS) return;
    char msg[1024] = "";
    rec_write_fn write = R.usable ? load(msg, sizeof msg) : NULL;
    if (!R.usable) snprintf(msg, sizeof msg, "the recorder was first called before MPI_Init");
    /* Agree before the collective: a rank that cannot load the library
     * must not leave the others waiting in the gather. */
    int bad = write ? INT_MAX : R.world_rank;
    if (PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS) bad = R.world_rank;
    if (bad != INT_MAX) {
        if (bad == R.world_rank) fprintf(stderr, "gpumap record: rank %d: %s; no pattern written\n", bad, msg);
        PMPI_Comm_free(&c);
        return;
    }
    int *peers;
    uint64_t *bytes, *msgs, lost;
    int n = rec_table(&peers, &bytes, &msgs, &lost);
    const char *path = getenv("GPUMAP_RECORD"), *mpath = getenv("GPUMAP_RECORD_MESSAGES");
    if (!path || !*path) path = "gpumap-pattern.graph";
    int rc = write(PMPI_Comm_c2f(c), n, peers, bytes, msgs, lost, program(), (char *)path,
                   (char *)(mpath ? mpath : ""), msg, (int)sizeof msg);
    char warn[256]; /* GPUMAP_VERBOSE=0 silences the line; default 1 */
    int verbose = gpumap_env_get("GPUMAP_VERBOSE", GPUMAP_ENV_MAX_LEVEL, 1, warn, sizeof warn);
    if (*warn && R.world_rank == 0) fprintf(stderr, "gpumap record: warning: %s\n", warn);
    if (rc != 0)
        fprintf(stderr, "gpumap record: rank %d: %s\n", R.world_rank, msg);
    else if (R.world_rank == 0 && verbose >= 1)
        fprintf(stderr, "gpumap record: %s\n", msg);
    free(peers), free(bytes), free(msgs);
    PMPI_Comm_free(&c);
}
