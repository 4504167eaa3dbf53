/* gpumap_dl.c - see gpumap_dl.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumap_dl.h"

#ifndef GPUMAP_SONAME
#define GPUMAP_SONAME "libgpumap.so.0"
#endif

void *gpumap_dl_open(char *why, size_t n) {
    const char *env = getenv("GPUMAP_LIBRARY");
    void *h;
    if (env && *env) {
        if (!(h = dlopen(env, RTLD_NOW | RTLD_LOCAL)))
            snprintf(why, n, "cannot load %.600s (GPUMAP_LIBRARY): %.300s", env, dlerror());
        return h;
    }
    Dl_info self;
    char dir[PATH_MAX], path[PATH_MAX + 32] = "";
    if (dladdr((void *)gpumap_dl_open, &self) && self.dli_fname && realpath(self.dli_fname, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        const char *names[] = {GPUMAP_SONAME, "libgpumap.so"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) return h;
            snprintf(why, n, "cannot load %.600s: %.300s", path, dlerror());
        }
    }
    if ((h = dlopen(GPUMAP_SONAME, RTLD_NOW | RTLD_LOCAL))) return h;
    if (!path[0]) snprintf(why, n, "cannot load %s (set GPUMAP_LIBRARY): %.300s", GPUMAP_SONAME, dlerror());
    return NULL;
}
