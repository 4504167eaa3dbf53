/*
 * core.c - what every intercepted constructor shares: the on/off
 * decisions, the private communicator, the lazy loading of libgpumap.so,
 * the agreement across ranks, the call to gpumap_reorder and the
 * GPUMAP_VERBOSE line.
 *
 * Nothing here runs unless a constructor is called with reorder != 0 on
 * more than one process: preloading the interposer into a program that
 * never asks for a reordering does not even load libgpumap.so (and so
 * does not start the Go runtime and its signal handlers).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumap.h"
#include "gpumap_dl.h"
#include "gpumap_env.h"
#include "topo.h"

__thread int topo_in_fortran;

/* ---- libgpumap.so, loaded on first use ---- */

typedef struct api {
    int (*reorder)(MPI_Comm, int, const int[], const double[], const gpumap_options *, MPI_Comm *);
    /* gpumap_topo_reorder (cabi/topo_export.go), NULL in an older
     * libgpumap.so: maps on our private communicator itself and returns
     * this process's new rank, where gpumap_reorder makes a copy and a new
     * communicator, two more collectives. */
    int (*reorder_rank)(MPI_Fint, int, const int[], const double[], const gpumap_options *, const char *, int *);
    int (*last_result)(gpumap_result *, size_t);
    const char *(*last_error)(void);
    const char *(*error_string)(int);
    void (*options_init)(gpumap_options *);
} api;

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static int api_state; /* 0 not tried, 1 loaded, -1 failed */
static api gpumap;
static char api_error[1024];

static const api *load_api(char *why, size_t n) {
    pthread_mutex_lock(&api_lock);
    if (api_state == 0) {
        api_state = -1;
        void *h = gpumap_dl_open(api_error, sizeof api_error);
        if (h) {
            gpumap.reorder = (int (*)(MPI_Comm, int, const int[], const double[], const gpumap_options *, MPI_Comm *))dlsym(h, "gpumap_reorder");
            gpumap.last_result = (int (*)(gpumap_result *, size_t))dlsym(h, "gpumap_last_result_size");
            gpumap.last_error = (const char *(*)(void))dlsym(h, "gpumap_last_error");
            gpumap.error_string = (const char *(*)(int))dlsym(h, "gpumap_error_string");
            gpumap.options_init = (void (*)(gpumap_options *))dlsym(h, "gpumap_options_init");
            gpumap.reorder_rank = (int (*)(MPI_Fint, int, const int[], const double[], const gpumap_options *, const char *, int *))dlsym(h, "gpumap_topo_reorder");
            if (gpumap.reorder && gpumap.last_result && gpumap.last_error && gpumap.error_string && gpumap.options_init)
                api_state = 1;
            else
                snprintf(api_error, sizeof api_error, "libgpumap.so lacks the gpumap_reorder API (a different version?)");
        }
    }
    int ok = api_state == 1;
    if (!ok) snprintf(why, n, "%s", api_error);
    pthread_mutex_unlock(&api_lock);
    return ok ? &gpumap : NULL;
}

/* ---- helpers ---- */

int topo_disabled(void) {
    return !gpumap_env_get("GPUMAP_TOPO", 1, 1, NULL, 0);
}

static int verbosity(void) {
    return gpumap_env_get("GPUMAP_VERBOSE", GPUMAP_ENV_MAX_LEVEL, 0, NULL, 0);
}

/* Rank 0 of a mapped call warns once per process about a switch or level
 * whose value the rule does not know (its default was used). */
static void warn_env(const topo_call *c) {
    static int warned_topo, warned_verbose;
    char w[256];
    if (c->rank != 0) return;
    if (!warned_topo && (gpumap_env_get("GPUMAP_TOPO", 1, 1, w, sizeof w), *w)) {
        warned_topo = 1;
        fprintf(stderr, "gpumap topo: warning: %s\n", w);
    }
    if (!warned_verbose && (gpumap_env_get("GPUMAP_VERBOSE", GPUMAP_ENV_MAX_LEVEL, 0, w, sizeof w), *w)) {
        warned_verbose = 1;
        fprintf(stderr, "gpumap topo: warning: %s\n", w);
    }
}

static const char *env_str(const char *name) {
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

/* One line on stderr from rank 0 of the caller's communicator. */
static void say(const topo_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const topo_call *c, const char *fmt, ...) {
    if (!c->verbose || c->rank != 0) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpumap topo: %s on %d ranks: %s\n", c->name, c->size, line);
    fflush(stderr);
}

void topo_reject(topo_call *c, const char *fmt, ...) {
    if (c->bad) return; /* keep the first reason */
    c->bad = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

void topo_edge(topo_call *c, int nbr, double vol) {
    if (nbr == c->rank || c->bad) return;
    if (c->degree == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        int *nb = realloc(c->nbrs, (size_t)cap * sizeof *nb);
        double *vo = nb ? realloc(c->vols, (size_t)cap * sizeof *vo) : NULL;
        if (nb) c->nbrs = nb;
        if (vo) c->vols = vo;
        if (!nb || !vo) {
            topo_reject(c, "out of memory for %d neighbours", cap);
            return;
        }
        c->cap = cap;
    }
    c->nbrs[c->degree] = nbr;
    c->vols[c->degree++] = vol;
}

/* ---- the private communicator, kept on comm_old ----
 *
 * Making it is a collective of its own (0.2-0.3 s under MPICH with 16
 * ranks on 2 cores, as much as MPI's whole MPI_Cart_create), so it is made
 * on the first call on a communicator and kept as an attribute of it:
 * freeing comm_old frees it (the delete callback), MPI_Comm_dup does not
 * copy it. Every rank sets and drops it in the same calls, so they agree
 * on whether it exists. A call that does not map drops it (a failed
 * dist-graph exchange may have left a message behind in it). */
static int private_key = MPI_KEYVAL_INVALID;

static int private_deleted(MPI_Comm old, int key, void *val, void *extra) {
    (void)old, (void)key, (void)extra;
    MPI_Comm *d = val;
    PMPI_Comm_free(d);
    free(d);
    return MPI_SUCCESS;
}

/* Sets c->d to the private communicator of c->old, made now if need be;
 * c->kept says whether it stays after the call. */
static int private_comm(topo_call *c) {
    pthread_mutex_lock(&api_lock);
    if (private_key == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, private_deleted, &private_key, NULL) != MPI_SUCCESS)
        private_key = MPI_KEYVAL_INVALID;
    int key = private_key;
    pthread_mutex_unlock(&api_lock);
    MPI_Comm *kept = NULL;
    int found = 0;
    if (key != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(c->old, key, &kept, &found) == MPI_SUCCESS && found) {
        c->d = *kept;
        c->kept = c->found = 1;
        return 1;
    }
    if (gpumap_dl_private_comm(c->old, c->rank, &c->d) != MPI_SUCCESS) {
        c->d = MPI_COMM_NULL;
        return 0;
    }
    /* Only out of memory fails here; that rank would then make a new
     * copy at the next call while the others do not. */
    if (key != MPI_KEYVAL_INVALID && (kept = malloc(sizeof *kept))) {
        *kept = c->d;
        if (PMPI_Comm_set_attr(c->old, key, kept) == MPI_SUCCESS)
            c->kept = 1;
        else
            free(kept);
    }
    return 1;
}

/* ---- the call ---- */

int topo_begin(topo_call *c, const char *name, MPI_Comm old, int reorder) {
    memset(c, 0, sizeof *c);
    c->name = name;
    c->old = old;
    c->d = MPI_COMM_NULL;
    c->rank = -1;
    if (topo_disabled() || topo_in_fortran) return 0;
    c->verbose = verbosity() >= 1;
    if (!reorder && !c->verbose) return 0; /* not a single MPI call */
    int init = 0, fin = 0, inter = 0;
    PMPI_Initialized(&init);
    if (init) PMPI_Finalized(&fin);
    if (!init || fin || old == MPI_COMM_NULL) return 0;
    if (PMPI_Comm_test_inter(old, &inter) != MPI_SUCCESS) return 0;
    PMPI_Comm_rank(old, &c->rank);
    PMPI_Comm_size(old, &c->size);
    warn_env(c);
    if (!reorder) {
        say(c, "reorder = 0, passed to PMPI unchanged");
        return 0;
    }
    if (inter) {
        say(c, "an inter-communicator, passed to PMPI unchanged");
        return 0;
    }
    if (c->size < 2) {
        say(c, "one process, passed to PMPI unchanged");
        return 0;
    }
    c->t0 = PMPI_Wtime();
    /* A private copy for our own traffic (gpumap_dl.h says why a split). */
    if (!private_comm(c)) {
        say(c, "MPI_Comm_split failed, passed to PMPI unchanged");
        return 0;
    }
    return 1;
}

int topo_any(topo_call *c, int failed) {
    int in = failed != 0, out = 1;
    if (PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, c->d) != MPI_SUCCESS) return 1;
    return out;
}

/* topo_agree's answer for a grid smaller than the communicator whose
 * members are kept (subset.c). */
#define TOPO_MEMBERS (-2)
static int topo_agree(topo_call *c);
static int topo_outcome(topo_call *c, const api *g, int rc, int newrank, MPI_Comm *nc);

int topo_map(topo_call *c, MPI_Comm *nc) {
    *nc = MPI_COMM_NULL;
    const api *g = NULL;
    char why[sizeof c->why];
    /* A private copy kept from an earlier call says that every rank then
     * loaded libgpumap.so (the copy is dropped otherwise): gpumap's own
     * agreement, one reduction, then also carries a rank's rejection of
     * its arguments, and this one is saved. */
    int direct = c->found && !c->members && (g = load_api(why, sizeof why)) && g->reorder_rank;
    if (!direct && !c->bad && !(g = load_api(c->why, sizeof c->why))) c->libfail = 1;
    if (!direct) {
        int rc = topo_agree(c);
        if (rc == TOPO_MEMBERS) {
            /* The members' sub-communicator is new: nothing kept applies. */
            int found = c->found;
            c->found = 0;
            rc = topo_map_members(c, nc);
            c->found = found;
            return rc;
        }
        if (rc >= 0) return rc;
    }

    gpumap_options o;
    g->options_init(&o);
    o.hierarchy = env_str("GPUMAP_HIERARCHY"); /* read now, not when Go loaded */
    o.distance = env_str("GPUMAP_DISTANCE");
    /* 2: gpumap's summary line; 3: also the time of each of its steps */
    int v = verbosity();
    o.verbosity = v >= 3 ? 3 : v >= 2 ? 1 : 0;
    int rc, newrank = -1;
    if (direct) {
        rc = g->reorder_rank(PMPI_Comm_c2f(c->d), c->bad ? 0 : c->degree, c->bad ? NULL : c->nbrs,
                             c->bad ? NULL : c->vols, &o, c->bad ? c->why : NULL, &newrank);
        if (rc == GPUMAP_ERR_ARGUMENT) { /* some rank's rejection: "rank r: why" */
            snprintf(c->why, sizeof c->why, "%s", g->last_error());
            return c->outcome = TOPO_PASS;
        }
    } else if (g->reorder_rank) {
        rc = g->reorder_rank(PMPI_Comm_c2f(c->d), c->degree, c->nbrs, c->vols, &o, NULL, &newrank);
    } else {
        rc = g->reorder(c->d, c->degree, c->nbrs, c->vols, &o, nc);
    }
    return topo_outcome(c, g, rc, newrank, nc);
}

/* The collective checks before gpumap_reorder, on the first call on a
 * communicator; returns the outcome, or -1 to map. */
static int topo_agree(topo_call *c) {
    /* Agree: the lowest rank that rejects its arguments, the lowest that
     * cannot load the library, whether any edge exists, the most and the
     * fewest processes the topology has and whether the members of a
     * smaller one are kept (topo_members). */
    int m = c->members ? c->members : c->size;
    int loc[6] = {c->bad ? c->size - c->rank : 0, c->libfail ? c->size - c->rank : 0, c->degree > 0, m, -m,
                  c->members && !c->any_members};
    int glob[6] = {0, 0, 0, 0, 0, 0};
    if (PMPI_Allreduce(loc, glob, 6, MPI_INT, MPI_MAX, c->d) != MPI_SUCCESS) {
        snprintf(c->why, sizeof c->why, "MPI_Allreduce on the private communicator failed");
        return c->outcome = TOPO_PASS;
    }
    if (!glob[0] && glob[3] != -glob[4]) { /* MPI itself reports it */
        snprintf(c->why, sizeof c->why, "the ranks pass topologies of %d to %d processes", -glob[4], glob[3]);
        return c->outcome = TOPO_PASS;
    }
    if (glob[0] > 0 || glob[1] > 0) {
        int root = c->size - (glob[0] > 0 ? glob[0] : glob[1]);
        char msg[sizeof c->why];
        memcpy(msg, c->why, sizeof msg);
        if (PMPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, root, c->d) != MPI_SUCCESS)
            snprintf(msg, sizeof msg, "(the reason could not be broadcast)");
        msg[sizeof msg - 1] = 0;
        snprintf(c->why, sizeof c->why, "rank %d: %.*s", root, (int)sizeof c->why - 20, msg);
        return c->outcome = glob[0] > 0 ? TOPO_PASS : TOPO_FALLBACK;
    }
    if (!glob[2]) {
        snprintf(c->why, sizeof c->why, "the topology has no edges");
        return c->outcome = TOPO_KEEP;
    }
    if (glob[5]) return TOPO_MEMBERS; /* a smaller grid: topo_map_members */
    return -1;
}

/* The outcome of gpumap's status rc (newrank from gpumap_topo_reorder,
 * *nc from gpumap_reorder). */
static int topo_outcome(topo_call *c, const api *g, int rc, int newrank, MPI_Comm *nc) {
    if (rc != GPUMAP_OK) {
        *nc = MPI_COMM_NULL;
        snprintf(c->why, sizeof c->why, "gpumap_reorder: %s: %s", g->error_string(rc), g->last_error());
        return c->outcome = TOPO_FALLBACK;
    }
    gpumap_result r;
    memset(&r, 0, sizeof r);
    g->last_result(&r, sizeof r);
    c->j_before = r.cost_before;
    c->j_after = r.cost_after;
    c->map_seconds = r.map_seconds;
    c->cached = r.cached;
    snprintf(c->machine, sizeof c->machine, "%s", r.machine);
    /* gpumap_reorder itself keeps the order unless J drops by GPUMAP_MIN_GAIN */
    if (r.changed == 0 || !(r.cost_after < r.cost_before)) {
        if (*nc != MPI_COMM_NULL) PMPI_Comm_free(nc);
        c->j_after = c->j_before;
        snprintf(c->why, sizeof c->why, "no order is cheaper");
        return c->outcome = TOPO_KEEP;
    }
    /* The outcome is the same on every rank: all of them split. (A split
     * that fails on one rank only is as fatal as in gpumap_reorder.) */
    if (g->reorder_rank && PMPI_Comm_split(c->d, 0, newrank, nc) != MPI_SUCCESS) {
        *nc = MPI_COMM_NULL;
        snprintf(c->why, sizeof c->why, "MPI_Comm_split into the new order failed");
        return c->outcome = TOPO_FALLBACK;
    }
    return c->outcome = TOPO_REORDER;
}

MPI_Comm topo_parent(const topo_call *c, MPI_Comm nc, int *reorder) {
    switch (c->outcome) {
    case TOPO_REORDER:
        *reorder = 0;
        return nc;
    case TOPO_KEEP:
        *reorder = 0;
        return c->d;
    case TOPO_FALLBACK:
        return c->d;
    default:
        return c->old;
    }
}

int topo_end(topo_call *c, MPI_Comm nc, int rc, MPI_Comm *out) {
    int private = c->outcome != TOPO_PASS;
    if (private && rc == MPI_SUCCESS && out && *out != MPI_COMM_NULL) {
        /* The topology communicator behaves like one made from comm_old. */
        MPI_Errhandler eh;
        if (PMPI_Comm_get_errhandler(c->old, &eh) == MPI_SUCCESS) {
            PMPI_Comm_set_errhandler(*out, eh);
            PMPI_Errhandler_free(&eh);
        }
    }
    if (nc != MPI_COMM_NULL) PMPI_Comm_free(&nc);
    if (c->kept && c->outcome != TOPO_REORDER && c->outcome != TOPO_KEEP)
        PMPI_Comm_delete_attr(c->old, private_key); /* frees c->d */
    else if (!c->kept && c->d != MPI_COMM_NULL)
        PMPI_Comm_free(&c->d);
    c->d = MPI_COMM_NULL;
    double ms = 1e3 * (PMPI_Wtime() - c->t0);
    switch (c->outcome) {
    case TOPO_REORDER:
        say(c, "J %.10g -> %.10g, reordered, %.1f ms (mapping %s%.1f ms); machine %s",
            c->j_before, c->j_after, ms, c->cached ? "cached, " : "", 1e3 * c->map_seconds, c->machine);
        break;
    case TOPO_KEEP:
        if (c->machine[0])
            say(c, "J %.10g -> %.10g, input order kept (%s), %.1f ms (mapping %s%.1f ms); machine %s",
                c->j_before, c->j_after, c->why, ms, c->cached ? "cached, " : "", 1e3 * c->map_seconds, c->machine);
        else
            say(c, "input order kept (%s), %.1f ms", c->why, ms);
        break;
    default:
        say(c, "passed to PMPI unchanged: %s", c->why);
    }
    free(c->nbrs);
    free(c->vols);
    c->nbrs = NULL;
    c->vols = NULL;
    if (private && rc != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(c->old, rc); /* as if raised on comm_old */
    return rc;
}
