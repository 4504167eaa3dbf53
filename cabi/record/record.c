/*
 * The recorder's counting core: a hash map from world rank to bytes and
 * messages, the per-communicator translation to world ranks (and the
 * out-neighbours of topology communicators), persistent requests, and the
 * hand-over to libgpumap.so at MPI_Finalize. See record.h.
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

typedef struct {
    MPI_Comm comm;
    int size;     /* how many ranks a destination may name (remote group of an inter-communicator) */
    int *world;   /* world rank of every destination rank, -1 outside world; NULL: the identity */
    int nbr_done; /* out-neighbours computed */
    int nout;
    int *out; /* world ranks of the out-neighbours in MPI's order, -1 for MPI_PROC_NULL */
} commrec;

typedef struct { /* what one start of a persistent request sends */
    int n;
    int *peer;
    uint64_t *bytes;
} plist;

static struct {
    int ready, usable;
    int world_size, world_rank;
    int locking; /* MPI_THREAD_MULTIPLE: counting takes the mutex */
    MPI_Group world_group;
    int keyval;
    cell *cells;
    size_t cap, used;
    uint64_t lost; /* messages not recorded: peers outside MPI_COMM_WORLD, or no memory */
    table comms, persist;
    MPI_Comm last_comm; /* one-entry memo in front of the comms table */
    commrec *last;
} R;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
#define LOCK() \
    do { if (R.locking) pthread_mutex_lock(&mu); } while (0)
#define UNLOCK() \
    do { if (R.locking) pthread_mutex_unlock(&mu); } while (0)

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
    R.cap = 64;
    R.cells = malloc(R.cap * sizeof *R.cells);
    if (!R.cells) return;
    for (size_t i = 0; i < R.cap; i++) R.cells[i].peer = -1;
    R.last_comm = MPI_COMM_NULL;
    R.usable = 1;
}

static inline int ready(void) {
    if (!__atomic_load_n(&R.ready, __ATOMIC_ACQUIRE)) {
        pthread_once(&once, init_once);
        __atomic_store_n(&R.ready, 1, __ATOMIC_RELEASE);
    }
    return R.usable;
}

static int grow(void) {
    size_t cap = 2 * R.cap;
    cell *c = malloc(cap * sizeof *c);
    if (!c) return 0;
    for (size_t i = 0; i < cap; i++) c[i].peer = -1;
    for (size_t j = 0; j < R.cap; j++) {
        if (R.cells[j].peer < 0) continue;
        size_t i = rank_hash(R.cells[j].peer) & (cap - 1);
        while (c[i].peer >= 0) i = (i + 1) & (cap - 1);
        c[i] = R.cells[j];
    }
    free(R.cells);
    R.cells = c;
    R.cap = cap;
    return 1;
}

/* add_new counts the first message to w, or one that cannot be recorded
 * (w < 0, or no memory): the cold path of add. */
static __attribute__((noinline)) void add_new(int w, uint64_t b) {
    if (w < 0 || (2 * (R.used + 1) > R.cap && !grow())) {
        R.lost++;
        return;
    }
    size_t m = R.cap - 1, i = rank_hash(w) & m;
    while (R.cells[i].peer >= 0) i = (i + 1) & m;
    R.cells[i].peer = w;
    R.cells[i].bytes = b;
    R.cells[i].msgs = 1;
    R.used++;
}

/* add counts one message of b bytes to world rank w (caller holds the
 * lock): one probe of the peer table when w was seen before. */
static inline void add(int w, uint64_t b) {
    if (w >= 0) {
        for (size_t m = R.cap - 1, i = rank_hash(w) & m;; i = (i + 1) & m) {
            cell *c = &R.cells[i];
            if (c->peer == w) {
                c->bytes += b;
                c->msgs++;
                return;
            }
            if (c->peer < 0) break;
        }
    }
    add_new(w, b);
}

/* bytes_of: the common predefined types by comparison (their sizes are
 * the C types'), the others through MPI. */
static uint64_t bytes_of(MPI_Count count, MPI_Datatype type) {
    MPI_Count size = 0;
    if (count <= 0) return 0;
    if (type == MPI_BYTE || type == MPI_CHAR)
        size = 1;
    else if (type == MPI_DOUBLE)
        size = sizeof(double);
    else if (type == MPI_INT)
        size = sizeof(int);
    else if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* --- communicators -------------------------------------------------------- */

static void comm_release(commrec *c) {
    if (!c) return;
    free(c->world);
    free(c->out);
    free(c);
}

/* comm_deleted is the attribute delete callback: MPI calls it when the
 * communicator is freed (by any binding), so a handle that MPI reuses
 * never finds a stale translation. */
static int comm_deleted(MPI_Comm comm, int keyval, void *attr, void *extra) {
    (void)keyval, (void)extra;
    LOCK();
    commrec *c = tdel(&R.comms, KEY(comm));
    if (R.last_comm == comm) {
        R.last_comm = MPI_COMM_NULL;
        R.last = NULL;
    }
    UNLOCK();
    comm_release(c ? c : attr);
    return MPI_SUCCESS;
}

static commrec *comm_build(MPI_Comm comm) {
    commrec *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->comm = comm;
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
    return c;
}

/* comm_get returns comm's record, building and caching it on first use
 * (caller holds the lock). NULL when it cannot be built. */
static commrec *comm_get(MPI_Comm comm) {
    if (comm == R.last_comm) return R.last;
    commrec *c = tget(&R.comms, KEY(comm));
    if (!c) {
        if (R.keyval == MPI_KEYVAL_INVALID || !(c = comm_build(comm))) return NULL;
        if (tput(&R.comms, KEY(comm), c) == c) {
            comm_release(c);
            return NULL;
        }
        if (PMPI_Comm_set_attr(comm, R.keyval, c) != MPI_SUCCESS) {
            tdel(&R.comms, KEY(comm));
            comm_release(c);
            return NULL;
        }
    }
    R.last_comm = comm;
    R.last = c;
    return c;
}

/* world rank of rank r of comm's (remote) group, -1 if none */
static inline int to_world(MPI_Comm comm, int r) {
    if (comm == MPI_COMM_WORLD) return r;
    commrec *c = comm_get(comm);
    if (!c || r < 0 || r >= c->size) return -1;
    return c->world ? c->world[r] : r;
}

static int world_of(commrec *c, int r) {
    if (r == MPI_PROC_NULL) return -2;
    if (r < 0 || r >= c->size) return -1;
    return c->world ? c->world[r] : r;
}

/* neighbours lists comm's out-neighbours in the order the neighbourhood
 * collectives use (MPI 4.0, 7.6): Cartesian -1 then +1 shift per
 * dimension, graph neighbours, dist-graph destinations. */
static commrec *neighbours(MPI_Comm comm) {
    commrec *c = comm_get(comm);
    if (!c || c->nbr_done) return c;
    int topo = MPI_UNDEFINED, n = 0, *out = NULL;
    PMPI_Topo_test(comm, &topo);
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
            n = 0;
        free(src), free(sw), free(dw);
    }
    if (!out) n = 0;
    for (int i = 0; i < n; i++) out[i] = world_of(c, out[i]);
    c->out = out;
    c->nout = n;
    c->nbr_done = 1;
    return c;
}

/* --- entry points --------------------------------------------------------- */

void rec_p2p(MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type) {
    if (dest == MPI_PROC_NULL || !ready()) return;
    uint64_t b = bytes_of(count, type);
    LOCK();
    add(to_world(comm, dest), b);
    UNLOCK();
}

static MPI_Count count_at(const void *counts, int wide, int i) {
    return wide ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

static void persist_put(MPI_Request req, plist *p) {
    plist *old = tput(&R.persist, KEY(req), p);
    if (old == p) { /* no memory: this request will not be counted */
        free(p);
        return;
    }
    if (old) free(old);
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
    if (!ready()) return;
    LOCK();
    commrec *c = neighbours(comm);
    int n = c ? c->nout : 0;
    plist *p = req ? plist_new(n) : NULL;
    for (int i = 0; i < n; i++) {
        MPI_Datatype t = types ? types[i] : ftypes ? PMPI_Type_f2c(ftypes[i]) : type;
        uint64_t b = bytes_of(counts ? count_at(counts, wide, i) : count, t);
        int w = c->out[i];
        if (p) {
            p->peer[i] = w;
            p->bytes[i] = b;
        } else if (w != -2) {
            add(w, b);
        }
    }
    if (p) persist_put(*req, p);
    UNLOCK();
}

void rec_persist_p2p(MPI_Request req, MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type) {
    if (!ready()) return;
    LOCK();
    plist *p = plist_new(1);
    if (p) {
        p->peer[0] = dest == MPI_PROC_NULL ? -2 : to_world(comm, dest);
        p->bytes[0] = bytes_of(count, type);
        persist_put(req, p);
    }
    UNLOCK();
}

void rec_start(MPI_Request req) {
    if (!ready()) return;
    LOCK();
    plist *p = tget(&R.persist, KEY(req));
    for (int i = 0; p && i < p->n; i++)
        if (p->peer[i] != -2) add(p->peer[i], p->bytes[i]);
    UNLOCK();
}

void rec_request_free(MPI_Request req) {
    if (!ready()) return;
    LOCK();
    free(tdel(&R.persist, KEY(req)));
    UNLOCK();
}

void *rec_next(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "gpumap record: %s is not in the MPI library (a mismatched MPI?)\n", name);
        abort();
    }
    return f;
}

/* --- finalize ------------------------------------------------------------- */

/* load finds gpumap_record_write in libgpumap.so (gpumap_dl.h). */
static rec_write_fn load(char *why, size_t len) {
    void *h = gpumap_dl_open(why, len);
    if (!h) return NULL;
    rec_write_fn f = (rec_write_fn)dlsym(h, REC_WRITE_SYMBOL);
    if (!f) snprintf(why, len, "libgpumap.so has no %s (an older libgpumap?)", REC_WRITE_SYMBOL);
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

void rec_finalize(void) {
    static int done;
    if (done) return;
    done = 1;
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return;
    int usable = ready();
    MPI_Comm c;
    /* split, not dup: a dup would run the program's attribute copy
     * callbacks on MPI_COMM_WORLD (and abort it when one fails) */
    if (PMPI_Comm_split(MPI_COMM_WORLD, 0, R.world_rank, &c) != MPI_SUCCESS) return;
    PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    char msg[1024] = "";
    rec_write_fn write = usable ? load(msg, sizeof msg) : NULL;
    if (!usable) snprintf(msg, sizeof msg, "out of memory at the first send");
    /* Agree before the collective: a rank that cannot load the library
     * must not leave the others waiting in the gather. */
    int bad = write ? INT_MAX : R.world_rank;
    if (PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS) bad = R.world_rank;
    if (bad != INT_MAX) {
        if (bad == R.world_rank) fprintf(stderr, "gpumap record: rank %d: %s; no pattern written\n", bad, msg);
        PMPI_Comm_free(&c);
        return;
    }
    LOCK();
    int n = 0;
    int *peers = malloc((R.used + 1) * sizeof *peers);
    uint64_t *bytes = malloc((R.used + 1) * sizeof *bytes), *msgs = malloc((R.used + 1) * sizeof *msgs);
    for (size_t i = 0; peers && bytes && msgs && i < R.cap; i++) {
        if (R.cells[i].peer < 0) continue;
        peers[n] = R.cells[i].peer;
        bytes[n] = R.cells[i].bytes;
        msgs[n++] = R.cells[i].msgs;
    }
    uint64_t lost = R.lost + (peers && bytes && msgs ? 0 : R.used);
    UNLOCK();
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
