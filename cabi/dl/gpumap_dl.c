/* gpumap_dl.c - see gpumap_dl.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gpumap_dl.h"

#if defined(OPEN_MPI)
#define GPUMAP_DL_ABI "Open MPI"
#elif defined(MPICH)
#define GPUMAP_DL_ABI "MPICH"
#else
#define GPUMAP_DL_ABI "unknown MPI"
#endif

/* checked refuses a libgpumap.so built for another MPI (its MPI calls
 * would crash this process), and one without the check (older). It is
 * not unloaded: a Go runtime cannot be. */
static void *checked(void *h, const char *path, char *why, size_t n) {
    if (!h) return NULL;
    const char *(*abi)(void) = (const char *(*)(void))dlsym(h, "gpumap_mpi_abi");
    if (!abi) {
        snprintf(why, n, "%.600s has no gpumap_mpi_abi (an older libgpumap?)", path);
        return NULL;
    }
    if (strcmp(abi(), GPUMAP_DL_ABI) != 0) {
        snprintf(why, n, "%.600s was built for %s, this program runs %s: use the library of the same MPI",
                 path, abi(), GPUMAP_DL_ABI);
        return NULL;
    }
    return h;
}

#ifndef GPUMAP_SONAME
#define GPUMAP_SONAME "libgpumap.so.0"
#endif

void *gpumap_dl_open(char *why, size_t n) {
    const char *env = getenv("GPUMAP_LIBRARY");
    void *h;
    if (env && *env) {
        if (!(h = dlopen(env, RTLD_NOW | RTLD_LOCAL)))
            snprintf(why, n, "cannot load %.600s (GPUMAP_LIBRARY): %.300s", env, dlerror());
        return checked(h, env, why, n);
    }
    Dl_info self;
    char dir[PATH_MAX], path[PATH_MAX + 32] = "";
    if (dladdr((void *)gpumap_dl_open, &self) && self.dli_fname && realpath(self.dli_fname, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        const char *names[] = {GPUMAP_SONAME, "libgpumap.so"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) return checked(h, path, why, n);
            snprintf(why, n, "cannot load %.600s: %.300s", path, dlerror());
        }
    }
    if ((h = dlopen(GPUMAP_SONAME, RTLD_NOW | RTLD_LOCAL))) return checked(h, GPUMAP_SONAME, why, n);
    if (!path[0]) snprintf(why, n, "cannot load %s (set GPUMAP_LIBRARY): %.300s", GPUMAP_SONAME, dlerror());
    return NULL;
}

void *gpumap_dl_next(const char *name, void **cache) {
    /* Racing threads store the same value. */
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

int gpumap_dl_private_comm(MPI_Comm comm, int key, MPI_Comm *out) {
    int rc = PMPI_Comm_split(comm, 0, key, out);
    if (rc != MPI_SUCCESS) {
        *out = MPI_COMM_NULL;
        return rc;
    }
    PMPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}
